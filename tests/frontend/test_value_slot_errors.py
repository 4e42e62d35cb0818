"""Values that cannot stand where they are written are positioned TackErrors, never a crash: a
vector or matrix where one number is required (range() arguments, indices, sizes, atomics'
values), an array or scratch array used as a value (an UnsupportedSyntaxError, also a TypeError),
and an integer expression of literals whose value no integer type holds or that shifts by a
negative count (docs/language.md, "Literals")."""
import inspect as pyinspect
import os

import numpy as np
import pytest
import tack

HERE = os.path.abspath(__file__)


def k_range_stop(out):
    for i in range(out.shape[0]):
        v = [1, 2]
        for j in range(v):
            out[i] += 1.0


def k_range_step(out):
    for i in range(out.shape[0]):
        m = [[1, 2], [3, 4]]
        for j in range(0, 4, m):
            out[i] += 1.0


def k_unroll(out):
    for i in range(out.shape[0]):
        v = [1, 2]
        for j in tack.unroll(range(v), 2):
            out[i] += 1.0


def k_ndrange(out):
    for i in range(out.shape[0]):
        v = [1, 2]
        for a, b in tack.ndrange(v, 2):
            out[i] += 1.0


def k_scratch_size(out):
    for i in range(out.shape[0]):
        v = [1, 2]
        s = tack.local_array(tack.f32, v)
        out[i] = s[0]


def k_scratch_index(out):
    for i in range(out.shape[0]):
        s = tack.local_array(tack.f32, 4)
        s[[1, 2]] = 1.0
        out[i] = s[0]


def k_atomic_value(out):
    for i in range(out.shape[0]):
        tack.atomic_max(out, i, [1.0, 2.0])


def k_literal_too_wide(out):
    for i in range(out.shape[0]):
        out[i] = 2 ** 64 + 1


def k_literal_too_narrow(out):
    for i in range(out.shape[0]):
        out[i] = -(2 ** 63) - 1


def k_literal_huge(out):
    for i in range(out.shape[0]):
        out[i] = 2 ** 10 ** 10


def k_literal_negative_shift(out):
    for i in range(out.shape[0]):
        out[i] = 1 << -1


def k_scratch_in_tuple(out):
    for i in range(out.shape[0]):
        s = tack.local_array(tack.f32, 4)
        a, b = 1.0, s  # noqa: F841 - the binding is the error
        out[i] = a


def k_scratch_operand(out):
    for i in range(out.shape[0]):
        s = tack.local_array(tack.f32, 4)
        out[i] = s + 1.0


def k_array_operand(out):
    for i in range(out.shape[0]):
        out[i] = out * 2.0


VEC = "a vector or matrix where"
CASES = [
    (k_range_stop, tack.TackTypeError, "v):", VEC),
    (k_range_step, tack.TackTypeError, "m):", VEC),
    (k_unroll, tack.TackTypeError, "v), 2)", VEC),
    (k_ndrange, tack.TackTypeError, "v, 2)", VEC),
    (k_scratch_size, tack.TackTypeError, "v)", VEC),
    (k_scratch_index, tack.TackTypeError, "[1, 2]", VEC),
    (k_atomic_value, tack.TackTypeError, "tack.atomic_max", VEC),
    (k_literal_too_wide, tack.TackTypeError, "2 ** 64 + 1", "outside the 64-bit ranges"),
    (k_literal_too_narrow, tack.TackTypeError, "-(2 ** 63) - 1", "outside the 64-bit ranges"),
    (k_literal_huge, tack.TackTypeError, "2 ** 10 ** 10", "larger than"),
    (k_literal_negative_shift, tack.TackValueError, "1 << -1", "negative shift count"),
    (k_scratch_in_tuple, tack.UnsupportedSyntaxError, "s  # noqa", "binding another name"),
    (k_scratch_operand, tack.UnsupportedSyntaxError, "s + 1.0", "used as a value"),
    (k_array_operand, tack.UnsupportedSyntaxError, "out * 2.0", "used as a value"),
]


@pytest.mark.parametrize("fn, cls, snippet, words", CASES, ids=[c[0].__name__ for c in CASES])
def test_value_error_carries_loc(fn, cls, snippet, words):
    lines, first = pyinspect.getsourcelines(fn)
    k = next(k for k, text in enumerate(lines) if k >= 2 and snippet in text)
    line, col = first + k, lines[k].find(snippet) + 1
    out = tack.zeros(4)
    with pytest.raises(cls, match=words) as info:
        tack.kernel(fn)(out)
    assert words != "used as a value" or isinstance(info.value, TypeError)
    loc = info.value.loc
    assert loc is not None and (loc.file, loc.line, loc.col) == (HERE, line, col), \
        (loc, str(info.value))
    assert f"{HERE}:{loc.line}:{loc.col}" in str(info.value)
    assert np.all(out.numpy() == 0)
