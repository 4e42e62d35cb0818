"""The tolerance table and the elementwise comparison with the reference."""
import numpy as np
import pytest
import tack
from tack.testing.harness.compare import compare
from tack.testing.harness.tolerances import tolerance


def test_tolerance_table():
    assert tolerance("float32") == (1e-3, 1e-3)
    assert tolerance("float32", "elementwise") == (1e-3, 1e-3)
    for cls in ("reduction", "transcendental", "chained"):
        assert tolerance("float32", cls) == (2e-3, 2e-3)
    assert tolerance("float32", fused_ops=("layernorm", "gelu")) == (4e-3, 4e-3)
    assert tolerance("float32", "reduction", ("matmul",)) == (4e-3, 4e-3)
    a64, r64 = tolerance("float64")
    assert a64 < 1e-3 and r64 < 1e-3
    for d in ("int8", "uint16", "int32", "uint64"):
        assert tolerance(d, "reduction", ("a", "b")) == (0.0, 0.0)
    assert tolerance("int32", override=(1, 0.5)) == (1.0, 0.5)
    assert tolerance("float32", "reduction", ("x",), override=(0.1, 0.2)) == (0.1, 0.2)


def test_bad_tolerance_settings_are_refused():
    with pytest.raises(tack.TackValueError, match="op_class"):
        tolerance("float32", "matmul")
    with pytest.raises(tack.TackValueError, match="pair"):
        tolerance("float32", override=0.1)


def test_within_tolerance_passes_and_just_outside_fails():
    e = np.array([0.0, 1.0, 1000.0])
    atol, rtol = 1e-3, 1e-3
    inside = (e + 0.99 * (atol + rtol * np.abs(e))).astype(np.float32)
    outside = (e + 1.5 * (atol + rtol * np.abs(e))).astype(np.float32)
    assert compare(inside, e, "float32", atol, rtol, 0) is None
    m = compare(outside, e, "float32", atol, rtol, 0)
    assert m.count == 3 and m.total == 3 and m.output == 0
    assert m.message.startswith("output 0: 3 of 3 elements differ")


def test_nan_positions_must_match():
    e = np.array([np.nan, 1.0])
    assert compare(np.array([np.nan, 1.0], np.float32), e, "float32", 1e-3, 1e-3, 0) is None
    m = compare(np.array([1.0, 1.0], np.float32), e, "float32", 1e-3, 1e-3, 0)
    assert m.count == 1 and m.examples[0]["index"] == [0]
    m = compare(np.array([np.nan, np.nan], np.float32), e, "float32", 1e-3, 1e-3, 0,
                fill=float("nan"))
    assert m.count == 1 and m.unwritten == 1 and "never written" in m.message


def test_overflow_to_infinity_on_both_sides_passes():
    e = np.array([1e300, -1e300, np.inf])  # float64 holds them; float32 rounds to +-inf
    got = np.array([np.inf, -np.inf, np.inf], np.float32)
    assert compare(got, e, "float32", 1e-3, 1e-3, 0) is None
    assert compare(np.array([3e38, -np.inf, np.inf], np.float32), e, "float32", 1e-3, 1e-3,
                   0).count == 1


def test_integers_are_exact_after_wrapping_the_reference():
    x = np.array([2**31 - 1, 5], np.int64)
    expected = x + 1  # int64 reference: 2**31 does not wrap there
    wrapped = np.array([-2**31, 6], np.int32)  # what int32 arithmetic gives
    assert compare(wrapped, expected, "int32", 0.0, 0.0, 0) is None
    m = compare(np.array([-2**31, 7], np.int32), expected, "int32", 0.0, 0.0, 0)
    assert m.count == 1 and m.examples[0] == {"index": [1], "actual": 7, "expected": 6}
    assert compare(np.array([-2**31, 7], np.int32), expected, "int32", 1.0, 0.0, 0) is None


def test_sentinel_counts_unwritten_integers():
    fill = np.iinfo(np.int16).min
    m = compare(np.array([fill, 3], np.int16), np.array([4, 3]), "int16", 0, 0, 0, fill=fill)
    assert m.unwritten == 1


def test_shape_mismatch_is_a_failure_not_a_crash():
    m = compare(np.zeros(4, np.float32), np.zeros(5), "float32", 1e-3, 1e-3, 2)
    assert m.count == 5 and "output 2 has shape (4,)" in m.message
