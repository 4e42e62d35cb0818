"""Array.sum/min/max/mean against NumPy: floating sums within γ_n·Σ|x|, integers exact (wrapping
in i64/u64), the empty, NaN and signed-zero rules (docs/algorithms.md, "Reductions on arrays")."""
import math

import numpy as np
import pytest
import tack

from .conftest import SIZES, check_sum, data

FLOATS = [np.float32, np.float64]
INTS = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("n", SIZES)
def test_float_sum_within_bound(device, dtype, n):
    x = data(n, dtype)
    a = tack.array(x)
    check_sum(a.sum(), x, dtype)
    if n:
        assert a.min() == x.min() and a.max() == x.max()
        m = a.mean()
        check_sum(m * n, x, dtype)  # mean is the sum divided once, in f64


@pytest.mark.parametrize("dtype", INTS)
@pytest.mark.parametrize("n", [0, 1, 257, 65537, 131071])
def test_integer_reductions_exact(device, dtype, n):
    x = data(n, dtype)
    a = tack.array(x)
    wide = np.int64 if np.dtype(dtype).kind == "i" else np.uint64
    with np.errstate(over="ignore"):
        want = x.astype(wide).sum(dtype=wide) if n else wide(0)  # wraps at 64 bits
    assert a.sum() == float(want)
    if n:
        assert a.min() == float(x.min()) and a.max() == float(x.max())
        assert a.mean() == float(want) / n


def test_integer_sum_wraps_at_64_bits(device):
    a = tack.array(np.array([2 ** 63 - 1, 1], np.int64))
    assert a.sum() == float(-2 ** 63)
    b = tack.array(np.array([2 ** 64 - 1, 2], np.uint64))
    assert b.sum() == 1.0


def test_empty(device):
    a = tack.zeros(0)
    assert a.sum() == 0.0 and math.isnan(a.mean())
    with pytest.raises(ValueError):
        a.min()
    with pytest.raises(ValueError):
        a.max()


@pytest.mark.parametrize("where", [0, 1000, 65536, 99999])
def test_nan_anywhere(device, where):
    x = np.ones(100000, np.float32)
    x[where] = np.nan
    a = tack.array(x)
    assert math.isnan(a.sum()) and math.isnan(a.min()) and math.isnan(a.max())
    assert math.isnan(a.mean())


@pytest.mark.parametrize("order", [[0.0, -0.0], [-0.0, 0.0], [-0.0, -0.0], [0.0, 0.0]])
@pytest.mark.parametrize("reps", [1, 70000])
def test_signed_zeros(device, order, reps):
    a = tack.array(np.array(order * reps, np.float32))
    lo, hi = a.min(), a.max()
    assert lo == 0.0 and hi == 0.0
    neg = [math.copysign(1, v) < 0 for v in order]
    assert math.copysign(1, lo) == (-1 if any(neg) else 1)  # min: -0.0 if any is -0.0
    assert math.copysign(1, hi) == (-1 if all(neg) else 1)  # max: 0.0 if any is 0.0


@pytest.mark.parametrize("n", [13, 65543, 200003])
def test_min_max_zeros_nan_and_infinities_among_other_values(device, n):
    """The CPU chunks pick min and max by one compare per element and fold again when the
    result is a zero: signed zeros among other values, a NaN in the tail of a chunk,
    infinities, and integer zeros (no refold needed)."""
    x = np.abs(data(n, np.float32)) + 1
    x[[n // 3, n - 2]] = [0.0, -0.0]
    assert math.copysign(1, tack.array(x).min()) == -1 and tack.array(x).max() == x.max()
    y = -x
    assert math.copysign(1, tack.array(y).max()) == 1 and tack.array(y).min() == y.min()
    x[n - 1] = np.nan
    assert math.isnan(tack.array(x).min()) and math.isnan(tack.array(x).max())
    x[n - 1], x[n // 2] = -np.inf, np.inf
    assert tack.array(x).min() == -np.inf and tack.array(x).max() == np.inf
    k = data(n, np.uint32) % 1000
    assert tack.array(k).min() == k.min() and tack.array(k).max() == k.max()


def test_vector_and_2d_arrays_reduce_every_component(device):
    x = data(3 * 1001, np.float32).reshape(1001, 3)
    v = tack.array(x, dtype=tack.vec3)
    check_sum(v.sum(), x, np.float32)
    assert v.min() == x.min() and v.max() == x.max()
    m = tack.array(x)
    check_sum(m.sum(), x, np.float32)


def test_result_is_fixed_by_n(device):
    x = data(200003, np.float32)
    a = tack.array(x)
    assert len({a.sum() for _ in range(3)}) == 1


@pytest.mark.slow
@pytest.mark.engines("cpu", "cuda", reason="not sim: 10^7 elements take 15 s there")
def test_ten_million(device):
    x = data(10 ** 7, np.float32)
    a = tack.array(x)
    check_sum(a.sum(), x, np.float32)
    assert a.min() == x.min() and a.max() == x.max()
