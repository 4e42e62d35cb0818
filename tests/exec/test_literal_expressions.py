"""Integer expressions of literals only are computed exactly, as Python computes them, and typed by
their value like a written literal (docs/language.md, "Literals"): `2**40` is not 0, `1 << 40` not
256, and `out[i + 2**32]` does not become `out[i]`. Checked on every engine present against
Python's integers, and in the Julia rendering."""
import numpy as np
import pytest
import tack
from tack.compiler import specialize
from tack.render.julia.ka import render_julia

K = tack.constant(1 << 40)  # an untyped integer constant is a literal too


@tack.kernel
def exact_values(x, out, top):
    for i in range(x.shape[0]):
        out[i, 0] = 2 ** 40
        out[i, 1] = 10 ** 12
        out[i, 2] = 1 << 40
        out[i, 3] = -(2 ** 63)
        out[i, 4] = (1 << 62) // 3 + (1 << 62) % 7
        out[i, 5] = ~(2 ** 40) ^ (2 ** 33 | 2 ** 35) & (2 ** 36 - 1)
        out[i, 6] = (2 ** 64 - 1 > -1) + (3 > 2 > 1) + (2 ** 40 == 1 << 40)  # noqa: PLR0133
        out[i, 7] = max(2 ** 64 - 1, -1) // 2 ** 33 - pow(2, 31) + abs(-(2 ** 62))
        out[i, 8] = x[i] * 2 ** 40 + K * K // 2 ** 41  # typed i64 beside an i32 operand
        out[i, 9] = (1 << 200) >> 190
        top[i, 0] = 2 ** 64 - 1
        top[i, 1] = abs(-(2 ** 63))
        top[i, 2] = 2 ** 63 + 2 ** 62


def expected(x):
    row = [2 ** 40, 10 ** 12, 1 << 40, -(2 ** 63), (1 << 62) // 3 + (1 << 62) % 7,
           ~(2 ** 40) ^ (2 ** 33 | 2 ** 35) & (2 ** 36 - 1), 3,
           max(2 ** 64 - 1, -1) // 2 ** 33 - 2 ** 31 + 2 ** 62, None, 1024]
    out = []
    for v in x.tolist():
        r = list(row)
        r[8] = v * 2 ** 40 + (1 << 80) // 2 ** 41
        out.append(r)
    return out


@tack.kernel
def far_index(out):
    for i in range(out.shape[0] - 2 ** 32):
        out[i + 2 ** 32] = 1


@pytest.mark.parametrize("n", [1, 7])
def test_literal_expressions_are_exact(engine, n):
    x = np.arange(-(n // 2), n - n // 2, dtype=np.int32) * 1000
    out, top = tack.zeros((n, 10), tack.i64), tack.zeros((n, 3), tack.u64)
    exact_values(tack.array(x), out, top)
    assert out.numpy().tolist() == expected(x)
    assert top.numpy().tolist() == [[2 ** 64 - 1, 2 ** 63, 2 ** 63 + 2 ** 62]] * n


def test_literal_expressions_render_exactly_in_julia():
    tack.set_default_device("cpu")
    x = tack.array(np.arange(3, dtype=np.int32))
    text = render_julia(specialize(exact_values, [x, tack.zeros((3, 10), tack.i64),
                                                  tack.zeros((3, 3), tack.u64)]))
    assert "1099511627776" in text  # 2**40 as an Int64, not 0
    assert "0xffffffffffffffff" in text.lower() or "18446744073709551615" in text


def test_literal_index_offset_is_64_bit():
    """`out[i + 2**32]` indexes 2**32 elements further, not `out[i]`; the IR shows the i64
    constant (running it would need a 4 GiB array)."""
    tack.set_default_device("cpu")
    ir = tack.inspect(far_index, tack.zeros(4, tack.i8), mode="ir")
    assert "4294967296" in ir, ir


def test_literal_only_bound_types_the_loop_by_value():
    """`range(65536 * 65536 - 4294967290)` is the literal 6; `range(2**3, 2**3 + 2)` works."""
    @tack.kernel
    def bounds(out):
        for i in range(2 ** 3, 2 ** 3 + (1 << 1)):
            out[i - 8] = i * (65536 * 65536 // 2 ** 31)

    out = tack.zeros(2, tack.i64)
    bounds(out)
    assert out.numpy().tolist() == [16, 18]
