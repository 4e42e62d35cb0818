"""`tack.constant` checks its value: out-of-range and inexact values raise
ValueError, ragged or mixed tables TypeError (docs/language.md, "Constants")."""
import math

import pytest
import tack


@pytest.mark.parametrize("value, dtype, message", [
    (2**40, tack.i32, (r"tack.constant\(1099511627776, tack.i32\) is outside tack.i32's range "
                       r"\[-2147483648, 2147483647\]")),
    (-1, tack.u8, r"tack.constant\(-1, tack.u8\) is outside tack.u8's range \[0, 255\]"),
    (256, tack.u8, r"outside tack.u8's range"),
    (1.5, tack.i32, r"tack.constant\(1.5, tack.i32\): tack.i32 holds integers only"),
    (math.nan, tack.i64, r"holds integers only"),
    (1e39, tack.f32, r"tack.constant\(1e\+39, tack.f32\) overflows tack.f32"),
    ((1, 300), tack.u8, r"tack.constant\(300, tack.u8\) is outside"),
])
def test_constant_value_checks(value, dtype, message):
    with pytest.raises(ValueError, match=message):
        tack.constant(value, dtype)


@pytest.mark.parametrize("value, message", [
    (((1, 2), (3,)), r"the rows of a matrix constant must have one length \(this one is ragged\)"),
    (((1, 2), 3), r"a matrix constant is a tuple of rows, each a tuple; this one mixes numbers"),
    (((1, (2,)), (3, 4)), r"constants have at most two levels"),
    # More than 4 entries is a constant table, so the limits are an empty one and size.
    ((), r"a vector or table constant needs at least one entry"),
    (((), ()), r"needs at least one entry \(and each row at least one\)"),
    (tuple(range(1 << 16 + 1)), r"a constant table holds at most 65536 entries, this one 131072"),
])
def test_constant_table_checks(value, message):
    with pytest.raises(TypeError, match=message):
        tack.constant(value)


def test_constant_exact_values_still_accepted():
    assert tack.constant(2.0, tack.i32) == 2 and type(tack.constant(2.0, tack.i32).value) is int
    assert tack.constant(255, tack.u8) == 255
    assert tack.constant(-2**63, tack.i64) == -2**63
    assert tack.constant(0.1, tack.f32) == float.fromhex("0x1.99999ap-4")  # rounding: the cast
    assert tack.constant(math.inf, tack.f32) == math.inf  # an infinity is not an overflow
    assert tack.constant(16777217, tack.f32) == 16777216.0
    assert tack.constant((1, 2.0)) == (1, 2.0)  # like the list literal [1, 2.0]
