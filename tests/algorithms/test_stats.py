"""Statistics against NumPy: sums of terms within γ_n·Σ|term| (math.fsum), counts exact,
histogram bins identical to NumPy's on clipped data (docs/algorithms.md, "Statistics")."""
import math

import numpy as np
import pytest
import tack
from tack import algorithms as A

from .conftest import check_sum, data, gamma, unit

SIZES = [1, 2, 31, 257, 4097, 65537, 131071]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.engines("cpu", "cuda",
                     reason="not sim: about 4 s there; test_reductions.py runs the simulator's "
                            "reductions, test_var_std below its sums of squares")
def test_norms_and_dot(device, dtype, n):
    x, y = data(n, dtype), data(n, dtype, seed=1)
    a, b = tack.array(x), tack.array(y)
    check_sum(A.norm(a, 1), np.abs(x), dtype)
    # the square of an f32 result is exact in f64; the f64 square root adds ~2^-53 relative
    check_sum(A.norm(a) ** 2, x.astype(np.float64) ** 2, dtype)
    assert A.norm(a, math.inf) == A.absmax(a) == np.abs(x).max()
    check_sum(A.dot(a, b), x.astype(np.float64) * y, dtype)  # Higham: γ_n · Σ|x·y|


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
@pytest.mark.parametrize("n", SIZES)
def test_var_std(device, dtype, n):
    x = data(n, dtype)
    xs = x.astype(np.float64)
    exact_mean = math.fsum(xs) / n
    exact = math.fsum((xs - exact_mean) ** 2) / n
    got = A.var(tack.array(x))
    # The two-pass bound (Chan, Golub & LeVeque): relative error ≤ γ_{n+3} + (n·u·κ)², with κ
    # the condition number sqrt(1 + mean²/var); integers accumulate in f64.
    u = unit(np.float32 if dtype == np.float32 else np.float64)
    acc = np.float32 if dtype == np.float32 else np.float64
    if exact == 0:
        assert got == 0
        return
    kappa = math.sqrt(1 + exact_mean ** 2 / exact)
    assert abs(got - exact) <= (gamma(n + 3, acc) + (n * u * kappa) ** 2) * exact
    assert A.std(tack.array(x)) == math.sqrt(got)


def test_dot_precision_rule(device):
    x32 = tack.array(np.full(3, 1 + 2 ** -20, np.float32))
    x64 = tack.array(np.full(3, 1 + 2 ** -40, np.float64))
    assert A.dot(x32, x64) == pytest.approx(3 * (1 + 2 ** -20) * (1 + 2 ** -40), rel=2 ** -50)
    i = tack.array(np.array([16777217, 1], np.int32))  # not an f32: terms in f32
    assert A.dot(i, tack.array(np.array([1, 1], np.int32))) == float(np.float32(16777217) + 1)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int8, np.uint64, np.int64])
def test_count_nonzero(device, dtype):
    x = data(70001, dtype)
    x[::3] = 0
    assert A.count_nonzero(tack.array(x)) == np.count_nonzero(x)
    f = tack.array(np.array([0.0, -0.0, np.nan, 1.0, -np.inf], np.float32))
    assert A.count_nonzero(f) == 3  # -0.0 is zero, NaN is not


@pytest.mark.parametrize("bins", [1, 10, 257])
@pytest.mark.parametrize("n", [0, 1, 1021, 65537])
def test_histogram_matches_numpy_inside_range(device, bins, n):
    x = data(n, np.float32)
    counts, edges = A.histogram(tack.array(x), bins, (-3.0, 3.0))
    want, want_edges = np.histogram(np.clip(x, -3, 3), bins, (-3.0, 3.0))
    assert counts.dtype == tack.i32 and edges.dtype == want_edges.dtype == np.float32
    np.testing.assert_array_equal(edges, want_edges)
    np.testing.assert_array_equal(counts.numpy(), want)  # out of range: first or last bin


def test_histogram_default_range_and_edges(device):
    x = data(4099, np.float64)
    counts, edges = A.histogram(tack.array(x))
    want, want_edges = np.histogram(x)
    np.testing.assert_array_equal(edges, want_edges)
    np.testing.assert_array_equal(counts.numpy(), want)
    c, e = A.histogram(tack.array(np.full(5, 2.0)), 4)
    np.testing.assert_array_equal(e, np.histogram(np.full(5, 2.0), 4)[1])
    assert c.numpy().sum() == 5
    c, _ = A.histogram(tack.array(np.array([np.nan, 0.5, 7.0, -7.0])), 2, (0, 1))
    np.testing.assert_array_equal(c.numpy(), [1, 2])  # -7 first, 0.5 and 7 last, NaN nowhere


def test_n_is_leading_flat_elements(device):
    x = data(3000, np.float32).reshape(1000, 3)
    v = tack.array(x, dtype=tack.vec3)
    check_sum(A.norm(v, 1, n=1500), np.abs(x.ravel()[:1500]), np.float32)
    assert A.count_nonzero(v, n=0) == 0
    with pytest.raises(ValueError):
        A.var(v, n=3001)


def test_argument_errors(device):
    a = tack.zeros(10)
    with pytest.raises(ValueError):
        A.norm(a, 3)
    with pytest.raises(ValueError):
        A.absmax(tack.zeros(0))
    with pytest.raises(ValueError):
        A.dot(a, tack.zeros(9))
    with pytest.raises(TypeError):
        A.var(np.zeros(3))
    with pytest.raises(TypeError):
        A.histogram(a, 2.5)
    with pytest.raises(ValueError):
        A.histogram(a, 0)
    with pytest.raises(ValueError):
        A.histogram(a, 4, (1.0, 0.0))
    assert math.isnan(A.var(tack.zeros(0))) and A.norm(tack.zeros(0)) == 0.0
    assert A.dot(tack.zeros(0), tack.zeros(0)) == 0.0


HIST_DATA = {  # label: data whose edges (and counts) must be NumPy's exactly
    "f32-constant": np.full(9, 7.0, np.float32),
    "f32-constant-1/3": np.full(4, 1 / 3, np.float32),
    "f64-constant": np.full(5, -2.5),
    "f32-one": np.array([3.25], np.float32),
    "f64-one": np.array([1e6]),
    "i32-one": np.array([3], np.int32),
    "i64-two": np.array([3, 9], np.int64),
    "u8-ramp": np.arange(200, dtype=np.uint8),
    "i16-negative": np.arange(-300, 7, dtype=np.int16),
    "f32-normal": data(1001, np.float32),
    "f64-normal": data(4099, np.float64),
    "f32-tiny": np.array([0.0, 1e-38, 3e-38], np.float32),
}


@pytest.mark.parametrize("label", list(HIST_DATA))
@pytest.mark.parametrize("bins", [1, 2, 7, 10])
def test_histogram_edges_are_numpys(device, label, bins):
    """np.histogram's edges, dtype included (float32 for float32 data: a constant range is
    widened by 0.5 in float32), and its counts, without a range and with one."""
    x = HIST_DATA[label]
    counts, edges = A.histogram(tack.array(x), bins)
    want, want_edges = np.histogram(x, bins)
    assert edges.dtype == want_edges.dtype
    np.testing.assert_array_equal(edges, want_edges)
    np.testing.assert_array_equal(counts.numpy(), want)
    lo, hi = float(x.min()), float(x.max()) + 1.0
    counts, edges = A.histogram(tack.array(x), bins, (lo, hi))
    want, want_edges = np.histogram(x, bins, (lo, hi))
    assert edges.dtype == want_edges.dtype
    np.testing.assert_array_equal(edges, want_edges)
    np.testing.assert_array_equal(counts.numpy(), want)


@pytest.mark.parametrize("x,match", [
    (np.array([1.0, np.nan], np.float32), "not finite"),
    (np.array([1.0, np.inf]), "not finite"),
    (np.array([-np.inf, 0.0]), "not finite"),
    (np.full(3, 1e8, np.float32), "Too many bins"),  # x ± 0.5 rounds back to x in float32
])
def test_histogram_refuses_what_numpy_refuses(device, launches_of_histogram, x, match):
    with pytest.raises(ValueError, match=match):
        np.histogram(x, 3)
    with pytest.raises(tack.TackValueError, match=f"histogram: .*{match}"):
        A.histogram(tack.array(x), 3)


def test_histogram_nan_with_a_range_counts_nowhere(device):
    x = np.array([np.nan, 0.25, 0.75, np.nan], np.float32)
    counts, edges = A.histogram(tack.array(x), 2, (0.0, 1.0))
    want, want_edges = np.histogram(x, 2, (0.0, 1.0))
    np.testing.assert_array_equal(counts.numpy(), want)
    np.testing.assert_array_equal(edges, want_edges)


@pytest.mark.parametrize("range_,err", [
    ((1.0,), tack.TackTypeError), ((1, 2, 3), tack.TackTypeError), (5, tack.TackTypeError),
    (("a", "b"), tack.TackTypeError), ((1j, 2), tack.TackTypeError),
    ((2.0, 1.0), tack.TackValueError), ((0.0, np.inf), tack.TackValueError),
    ((np.nan, 1.0), tack.TackValueError),
])
def test_histogram_malformed_range(device, launches_of_histogram, range_, err):
    with pytest.raises(err, match="histogram"):
        A.histogram(tack.array(np.arange(5.0)), 3, range_)
    assert launches_of_histogram == []


@pytest.mark.parametrize("bins,err", [(2 ** 31, tack.TackValueError), (-1, tack.TackValueError),
                                      (np.int64(0), tack.TackValueError),
                                      ("3", tack.TackTypeError), (True, tack.TackTypeError)])
def test_histogram_bins(device, bins, err):
    with pytest.raises(err, match="histogram: bins"):
        A.histogram(tack.array(np.arange(5.0)), bins)


@pytest.fixture
def launches_of_histogram(monkeypatch):
    """The launches of the binning kernel during the test."""
    from tack.algorithms import stats

    calls = []
    monkeypatch.setattr(stats, "_bin", lambda *a: calls.append(a))
    return calls
