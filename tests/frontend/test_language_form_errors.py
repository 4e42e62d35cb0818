"""Tier 1: what the language forms of docs/language.md refuse ("Parallel loop", "Vectors and
matrices") is refused before launch with the contract's class, at the culprit's file:line:col
(the line and a caret shown), naming the kernel, with a hint; the arrays stay unchanged."""
import inspect as pyinspect
import os

import numpy as np
import pytest
import tack
from tack.errors import TackError

HERE = os.path.abspath(__file__)
ROT = tack.constant(((0.0, -1.0), (1.0, 0.0)))


def where(fn, snippet):
    """(line, col) in this file of the first occurrence of `snippet` in fn's body."""
    lines, first = pyinspect.getsourcelines(fn)
    for k, text in enumerate(lines[1:], 1):
        col = text.find(snippet)
        if col >= 0:
            return first + k, col + 1
    raise AssertionError(snippet)


@tack.func
def spread(a):
    return tack.vec3(a, a * 2.0, a * 3.0)


@tack.func
def twice(a):
    return a * 2.0


def k_matrix_x(x, out):
    for i in range(x.shape[0]):
        m = [[x[i], 1.0], [2.0, 3.0]]
        out[i] = m.x[0]


def k_constant_matrix_y(x, out):
    for i in range(x.shape[0]):
        out[i] = ROT.y[1]


def k_any_scalar(x, out):
    for i in range(x.shape[0]):
        out[i] = 1.0 if any(x[i] > 0.0) else 0.0


def k_all_scalar(x, out):
    for i in range(x.shape[0]):
        out[i] = 1.0 if all(x[i]) else 0.0


def k_ndrange_targets(x, out):
    for i, j, k in tack.ndrange(x.shape[0], 1, 1, 1):
        out[i] = x[i]


def k_shape_rank(x, out):
    h, w = x.shape  # noqa: RUF059
    for i in range(h):
        out[i] = x[i]


def k_returned_vector_count(x, out):
    for i in range(x.shape[0]):
        a, b = spread(x[i])
        out[i] = a + b


def k_returned_scalar(x, out):
    for i in range(x.shape[0]):
        a, b = twice(x[i])
        out[i] = a + b


def k_local_vector_count(x, out):
    for i in range(x.shape[0]):
        a, b, c, d = tack.vec3(x[i], 1.0, 2.0)
        out[i] = a + b + c + d


def k_store_after(x, out):
    for i in range(x.shape[0]):
        out[i] = x[i]
    out[0] = 5.0


def k_loop_local_after(x, out):
    for i in range(x.shape[0]):
        t = x[i]
        out[i] = t
    after = t * 2.0  # noqa: F841


def k_type_error_after(x, out):
    for i in range(x.shape[0]):
        out[i] = x[i]
    after = tack.vec2(1.0, 2.0) + tack.vec3(1.0, 2.0, 3.0)  # noqa: F841


def k_atomic_scalar_arm(x, out):
    for i in range(x.shape[0]):
        v = tack.vec3(x[i], 1.0, 2.0)
        w = v if x[i] > 0.0 else tack.atomic_add(out, 0, 1.0)
        out[i] = w.x


def k_arm_shapes(x, out):
    for i in range(x.shape[0]):
        w = tack.vec2(x[i], 1.0) if x[i] > 0.0 else tack.vec3(x[i], 1.0, 2.0)
        out[i] = w.x


def k_unpacked_bound(x, out):
    a, b = tack.vec2(x[0], x[1])  # noqa: RUF059
    for i in range(a):
        out[i] = x[i]


T, U, N = tack.TackTypeError, tack.UnsupportedSyntaxError, tack.TackNameError
CASES = [
    (k_matrix_x, T, "m.x", [".x of a tack.matrix(2, 2)", "m[i, j]"]),
    (k_constant_matrix_y, T, "ROT.y", [".y of a tack.matrix(2, 2)", "m[i] a row"]),
    (k_any_scalar, T, "any(x[i] > 0.0)", ["any() of a scalar", "any(v > 0.0)"]),
    (k_all_scalar, T, "all(x[i])", ["all() of a scalar of type tack.f32"]),
    (k_ndrange_targets, U, "i, j, k", ["3 target(s) for its 4 argument(s)", "one name per"]),
    (k_shape_rank, T, "x.shape", ["1-dimensional array 'x' into 2 names", "x.shape[k]"]),
    (k_returned_vector_count, T, "spread(x[i])", ["(3 components) into 2 names"]),
    (k_returned_scalar, T, "twice(x[i])", ["unpacking a scalar of type tack.f32 into 2"]),
    (k_local_vector_count, T, "tack.vec3(x[i], 1.0, 2.0)", ["(3 components) into 4 names"]),
    (k_store_after, U, "out[0] = 5.0", ["store is outside the parallel loop",
                                        "after the parallel loop"]),
    (k_loop_local_after, N, "t * 2.0", ["name 't'"]),
    (k_type_error_after, T, "tack.vec2(1.0, 2.0) + tack.vec3", ["mixes shapes"]),
    (k_atomic_scalar_arm, T, "v if x[i] > 0.0 else", ["atomic update in the scalar arm",
                                                     "once per component"]),
    (k_arm_shapes, T, "tack.vec2(x[i], 1.0) if", ["mixes shapes (2,) and (3,)"]),
    (k_unpacked_bound, U, "a):", ["'a' is unpacked from a value before the loop"]),
]


@pytest.mark.parametrize("fn,cls,snippet,words", CASES, ids=[c[0].__name__ for c in CASES])
def test_refused_at_the_culprit(fn, cls, snippet, words):
    x = tack.array(np.arange(1, 5, dtype=np.float32))
    out = tack.zeros(4)
    with pytest.raises(TackError) as ei:
        tack.kernel(fn)(x, out)
    err = ei.value
    assert isinstance(err, cls), (type(err), str(err))
    msg = str(err)
    line, col = where(fn, snippet)
    assert (err.loc.file, err.loc.line, err.loc.col) == (HERE, line, col), msg
    assert f"{HERE}:{line}:{col}" in msg and f"line {line}, column {col}" in msg, msg
    assert f"Kernel '{fn.__name__}'" in msg and "^" in msg and "hint:" in msg, msg
    for w in words:
        assert w in msg, msg
    assert "/tack/frontend" not in msg and "/tack/passes" not in msg
    np.testing.assert_array_equal(out.numpy(), np.zeros(4))
    np.testing.assert_array_equal(x.numpy(), np.arange(1, 5))


def test_host_matrix_constant_indices():
    assert ROT[0, 1] == ROT[0][1] == -1.0 and ROT[1, -2] == 1.0
    with pytest.raises(tack.TackTypeError, match=r"3 indices for a constant of shape \(2, 2\)"):
        ROT[0, 1, 0]
    with pytest.raises(TypeError):
        tack.constant((1.0, 2.0))[0, 1]
