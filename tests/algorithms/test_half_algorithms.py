"""tack.algorithms on float16 and bfloat16 data: sums, means and the statistics accumulate in
f32 (within the f32 bound γ_n · Σ|x| of the exact sum, where a half accumulator is off by
thousands of ulps or overflows), scans and segmented scans keep f32 running sums and round
each prefix once, min/max and histograms order half values as NumPy does (NaN wins, -0.0 == 0.0,
NumPy's own bin edges)."""
import itertools
import math

import ml_dtypes
import numpy as np
import pytest
import tack
from tack import algorithms as A

from tests.algorithms.conftest import check_sum

HALVES = [np.float16, ml_dtypes.bfloat16]
SIZES = [1, 7, 257, 4097, 65537]
UNIT = {"float16": 2.0 ** -11, "bfloat16": 2.0 ** -8}  # half the ulp of 1: one rounding




def _name(d) -> str:
    return np.dtype(d).name


def values(n, dtype, shift=0.0, seed=0):
    """n values around `shift` (mean 100: a half sum of them overflows float16 past 655 terms
    and stops growing in bfloat16 past 256 * 100)."""
    rng = np.random.default_rng(seed + n)
    return (rng.standard_normal(n) * 3.0 + shift).astype(dtype)


def check_prefixes(got: np.ndarray, x: np.ndarray, exclusive=False) -> None:
    """Each prefix is the f32 running sum rounded once: within one half rounding of the exact
    prefix plus the f32 bound of its additions (an overflow to inf where the exact one rounds
    there)."""
    t = np.float64
    exact = np.cumsum(x.astype(t))
    mags = np.cumsum(np.abs(x.astype(t)))
    if exclusive:
        exact, mags = np.concatenate([[0.0], exact[:-1]]), np.concatenate([[0.0], mags[:-1]])
    n = len(x)
    f32 = n * 2.0 ** -24 / (1 - n * 2.0 ** -24)
    g = got.astype(t)
    with np.errstate(over="ignore"):
        rounded = exact.astype(x.dtype).astype(t)
    ok = (np.abs(g - exact) <= UNIT[x.dtype.name] * np.abs(exact) + f32 * mags) | (g == rounded)
    assert ok.all(), (np.flatnonzero(~ok)[:5], g[~ok][:5], exact[~ok][:5])


@pytest.mark.parametrize("shift", [0.0, 100.0], ids=lambda s: f"mean{s:g}")
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", HALVES, ids=_name)
def test_sum_and_mean_accumulate_in_f32(device, dtype, n, shift):
    x = values(n, dtype, shift)
    t = tack.array(x)
    check_sum(t.sum(), x, np.float32)
    check_sum(t.mean() * n, x, np.float32)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", HALVES, ids=_name)
def test_statistics_accumulate_in_f32(device, dtype, n):
    x = values(n, dtype, 100.0)
    y = values(n, dtype, seed=1)
    x64, y64 = x.astype(np.float64), y.astype(np.float64)
    t, u = tack.array(x), tack.array(y)
    check_sum(A.dot(t, u), x64 * y64, np.float32)
    check_sum(A.norm(t, 1), np.abs(x64), np.float32)
    assert math.isclose(A.norm(t), math.sqrt(math.fsum(x64 * x64)), rel_tol=1e-5)
    assert math.isclose(A.var(t), x64.var(), rel_tol=1e-3, abs_tol=1e-4)
    assert math.isclose(A.std(t), x64.std(), rel_tol=1e-3, abs_tol=1e-4)
    assert A.absmax(t) == np.abs(x64).max()


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", HALVES, ids=_name)
def test_min_max_order_as_numpy(device, dtype, n):
    x = values(n, dtype)
    x[0] = -0.0
    t = tack.array(x)
    for got, want in ((t.min(), x.min()), (t.max(), x.max())):
        assert got == float(want)  # -0.0 and 0.0 tie, as min/max of floats (docs/language.md)
    x[n // 2] = np.nan
    t = tack.array(x)
    assert math.isnan(t.min()) and math.isnan(t.max()) and math.isnan(x.astype(np.float64).min())


@pytest.mark.parametrize("shift", [0.0, 100.0], ids=lambda s: f"mean{s:g}")
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", HALVES, ids=_name)
def test_scans_keep_f32_running_sums(device, dtype, n, shift):
    x = values(n, dtype, shift)
    src, dst = tack.array(x), tack.zeros(n, tack.array(x[:1]).dtype)
    total = A.inclusive_scan(src, dst)
    check_prefixes(dst.numpy(), x)
    assert np.dtype(type(total)) == np.dtype(dtype) and float(total) == float(dst.numpy()[-1])
    A.exclusive_scan(src, dst)
    check_prefixes(dst.numpy(), x, exclusive=True)
    A.inclusive_scan(src, src)  # in place
    check_prefixes(src.numpy(), x)


@pytest.mark.parametrize("dtype", HALVES, ids=_name)
def test_segments_accumulate_in_f32(device, dtype):
    n = 4097
    x = values(n, dtype, 100.0)
    cuts = [0, 1, 300, 300, 2000, n]
    got = A.segmented_reduce(tack.array(x), tack.array(np.array(cuts, np.int32))).numpy()
    assert got.dtype == np.dtype(dtype)
    for s, (lo, hi) in enumerate(itertools.pairwise(cuts)):
        exact = math.fsum(x[lo:hi].astype(np.float64))
        bound = UNIT[np.dtype(dtype).name] * abs(exact) + \
            (hi - lo) * 2.0 ** -24 * math.fsum(np.abs(x[lo:hi].astype(np.float64)))
        with np.errstate(over="ignore"):
            rounded = float(np.array(exact).astype(dtype))
        assert abs(float(got[s]) - exact) <= bound or float(got[s]) == rounded, (s, got[s], exact)
    flags = np.zeros(n, np.int32)
    flags[[1, 300, 2000]] = 1
    dst = tack.zeros(n, tack.array(x[:1]).dtype)
    A.segmented_inclusive_scan(tack.array(x), tack.array(flags), dst)
    d = dst.numpy()
    for lo, hi in ((0, 1), (1, 300), (300, 2000), (2000, n)):
        check_prefixes(d[lo:hi], x[lo:hi])


@pytest.mark.parametrize("bins", [1, 7, 20])
@pytest.mark.parametrize("dtype", HALVES, ids=_name)
def test_histogram_as_numpy(device, dtype, bins):
    x = values(4097, dtype, 100.0)
    x[5] = np.nan
    counts, edges = A.histogram(tack.array(x), bins=bins, range=(90.0, 110.0))
    want, want_edges = np.histogram(x[~np.isnan(x.astype(np.float32))], bins=bins,
                                    range=(90.0, 110.0))
    np.testing.assert_array_equal(edges, want_edges)
    inside = (x.astype(np.float64) >= 90) & (x.astype(np.float64) <= 110)
    if inside.sum() == (~np.isnan(x.astype(np.float64))).sum():  # no value outside the range
        np.testing.assert_array_equal(counts.numpy(), want)
    assert counts.numpy().sum() == 4096
