"""The reduction orders of docs/numerics.md ("One sum order"), on every engine of the `engine`
fixture (tests/engines.py), against NumPy emulations of the documented order.

- tack.ops.softmax and log_softmax add a row's exps in the workgroup's order (element c into
  lane (c // 8) % 256, each lane in index order, the lanes combined by the halving tree), on the CPU
  engine's portable kernel and on the workgroup engines' one-read kernel alike: the same bits
  for rows of up to 256 * 32 elements, in float32, float64 and the half types. Longer rows on
  an engine with workgroups take the online kernel, whose rescaled sums round otherwise: there
  the engines agree within the declared softmax bound.
- `Array.min()`/`max()` give the same bits everywhere (min and max are exact: no order to
  choose); `sum()`/`mean()` add in each engine's own documented order, within the sum bound.
"""
import math

import ml_dtypes
import numpy as np
import pytest
import tack
from tack import ops
from tack.testing.bounds import OP_BOUNDS

pytestmark = pytest.mark.engines("cpu", "sim", "julia",
                                 reason="the exps come from tack.lib on these engines; a GPU's "
                                        "from its device library (docs/numerics.md), so the bits "
                                        "differ there")

DTYPES = [np.float32, np.float64, np.float16, ml_dtypes.bfloat16]
# one element, primes, a workgroup, one past it, several rounds of lanes, the one-read limit
SHAPES = [(1, 1), (3, 7), (2, 256), (4, 257), (2, 1000), (1, 8192)]


def _name(d) -> str:
    return np.dtype(d).name


def _bits(a):
    a = np.asarray(a)
    return a.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])


def _stat(dtype):
    """The dtype of a row's statistics: f32 for half rows."""
    return np.float64 if dtype == np.float64 else np.float32


@tack.kernel
def _exp_shifted(x, m, out):
    for i in range(x.shape[0]):
        out[i] = exp(x[i] - m)  # noqa: F821 - a kernel builtin


@tack.kernel
def _log(s, out):
    for i in range(s.shape[0]):
        out[i] = log(s[i])  # noqa: F821 - a kernel builtin


def _lane_order_sum(e):
    """sum of e in the documented order, in e's dtype, by NumPy: lane (c // 8) % 256 takes e[c],
    each lane in index order, then slot i += slot i + s for s = 128, ..., 1."""
    lanes = np.zeros(256, e.dtype)
    for k in range(0, e.size, 256 * 8):
        for v in range(8):  # lane j's v-th element of this round is e[k + 8 j + v]
            part = e[k + v:k + 256 * 8:8]
            lanes[:part.size] += part
    s = 128
    while s:
        lanes[:s] += lanes[s:2 * s]
        s //= 2
    return lanes[0]


def _reference(x, log: bool):
    """softmax (or log_softmax) of each row of x in the documented order: the exps and the log
    are the engine's (one elementwise call each, the same function the ops use), the order
    and the arithmetic around them NumPy's."""
    st = _stat(x.dtype)
    out = np.empty(x.shape, st)
    for r, row in enumerate(x):
        m = row.astype(st).max()
        e = tack.zeros(row.size, tack.f64 if st == np.float64 else tack.f32)
        _exp_shifted(tack.array(row), m, e)
        e = e.numpy()
        s = _lane_order_sum(e)
        if log:
            ls = tack.zeros(1, e.dtype if st == np.float64 else tack.f32)
            _log(tack.array(np.array([s])), ls)
            out[r] = (row.astype(st) - m) - ls.numpy()[0]
        else:
            out[r] = e * (st(1) / s)
    return out.astype(x.dtype)


def _rows(shape, dtype, seed=0):
    return (np.random.default_rng(seed).standard_normal(shape) * 3).astype(dtype)


@pytest.mark.parametrize("log", [False, True], ids=["softmax", "log_softmax"])
@pytest.mark.parametrize("dtype", DTYPES, ids=_name)
def test_softmax_adds_in_the_workgroup_order(engine, dtype, log):
    for shape in SHAPES:
        x = _rows(shape, dtype, seed=shape[1])
        got = (ops.log_softmax if log else ops.softmax)(x).numpy()
        want = _reference(x, log)
        np.testing.assert_array_equal(_bits(got), _bits(want), f"{shape}")


@pytest.mark.parametrize("dtype", DTYPES, ids=_name)
def test_softmax_of_a_strided_view_and_another_axis(engine, dtype):
    x = _rows((6, 517), dtype, seed=5)
    view = x[::2, ::2]  # non-contiguous: 3 rows of 259
    np.testing.assert_array_equal(_bits(ops.softmax(view).numpy()),
                                  _bits(_reference(np.ascontiguousarray(view), False)))
    t = _rows((2, 257, 3), dtype, seed=6)  # axis 1: the column kernel, one per engine
    tack.set_default_device("cpu")
    cpu = ops.log_softmax(t, axis=1).numpy()
    tack.set_default_device(engine)
    np.testing.assert_array_equal(_bits(ops.log_softmax(t, axis=1).numpy()), _bits(cpu))


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=_name)
def test_long_rows_agree_within_the_softmax_bound(engine, dtype):
    """Past 256 * 32 elements an engine with workgroups runs the online kernel: its result is
    within the declared bound of the portable kernel's (both within it of float64)."""
    x = _rows((2, 9001), dtype, seed=7)
    got = ops.softmax(x).numpy().astype(np.float64)
    tack.set_default_device("cpu")
    cpu = ops.softmax(x).numpy().astype(np.float64)
    eps = float(np.finfo(dtype).eps) / 2
    scale = np.abs(cpu).max(axis=-1, keepdims=True)
    assert (np.abs(got - cpu) / (scale * eps)).max() <= 2 * OP_BOUNDS["softmax"][0]


def _julia_runs(engine, dtype, dtypes) -> None:
    """Skip `dtype` on the Julia engine unless it is one of `dtypes`: each length is a kernel
    Julia 1.5.3 compiles for seconds, and the other types run the same rendered kernels there
    (the other engines run every type)."""
    if engine.engine_name == "julia" and dtype not in dtypes:
        pytest.skip(f"the Julia tier runs this test in {', '.join(map(_name, dtypes))}, "
                    f"not {_name(dtype)}: the other engines run it in every type")


@pytest.mark.parametrize("dtype", DTYPES, ids=_name)
def test_min_and_max_have_the_same_bits_everywhere(engine, dtype):
    _julia_runs(engine, dtype, (np.float32, np.float16))
    for n in (1, 7, 257, 70_001):
        v = _rows((n,), dtype, seed=n)
        if n > 7:
            v[[3, n // 2]] = [-0.0, 0.0]
        a = tack.array(v)
        assert (a.min(), a.max()) == (float(v.astype(np.float64).min()),
                                      float(v.astype(np.float64).max()))
    v = np.array([0.0, -0.0, 0.0], dtype)
    assert math.copysign(1.0, tack.array(v).min()) == -1.0
    assert math.copysign(1.0, tack.array(-v).max()) == 1.0
    v[1] = np.nan
    assert math.isnan(tack.array(v).min()) and math.isnan(tack.array(v).max())


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=_name)
def test_sum_and_mean_are_within_the_sum_bound_of_each_other(engine, dtype):
    """sum and mean add in each engine's order (docs/numerics.md, "Not the same bits"): each is
    within the declared sum bound of float64 (plus the result's own rounding), so two engines
    are within twice it."""
    _julia_runs(engine, dtype, (np.float32,))
    factor = OP_BOUNDS["sum"][0]
    eps = float(np.finfo(dtype).eps) / 2
    # each length a Julia 1.5.3 compile of seconds: there, the three that reach one workgroup,
    # two, and the multi-level reduction
    lengths = (7, 257, 70_001) if engine.engine_name == "julia" else (7, 257, 70_001, 300_007)
    for n in lengths:
        v = (np.random.default_rng(n).standard_normal(n) + 0.25).astype(dtype)
        w = v.astype(np.float64)
        a = tack.array(v)
        exact = math.fsum(w)  # correctly rounded: a float64 reference for float64 too
        bound = factor * eps * n * np.abs(w).sum() + eps * abs(exact)
        assert abs(a.sum() - exact) <= bound
        assert abs(a.mean() - exact / n) <= bound / n + 2**-52 * abs(exact / n)
