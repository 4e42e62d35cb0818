"""exclusive_scan / inclusive_scan against NumPy: integers exact (wrapping at dst's width),
floating prefixes within γ_k·Σ|x| (math.fsum), the total, in place, n (docs/algorithms.md,
"Scans")."""
import numpy as np
import pytest
import tack
from tack import algorithms as A

from .conftest import SIZES, check_sum, data

pytestmark = pytest.mark.sim_scans


def _want_int(x, dtype):
    with np.errstate(over="ignore"):
        return np.cumsum(x.astype(dtype), dtype=dtype)


@pytest.mark.parametrize("dtype", [np.int32, np.uint32, np.int64, np.uint64, np.int8])
@pytest.mark.parametrize("n", SIZES)
def test_integer_scans_exact(device, dtype, n):
    x = data(n, dtype)
    incl = _want_int(x, dtype)
    d = tack.zeros(n, dtype)
    assert A.inclusive_scan(tack.array(x), d, n) == (incl[-1].item() if n else 0)
    np.testing.assert_array_equal(d.numpy(), incl)
    e = tack.zeros(n, dtype)
    assert A.exclusive_scan(tack.array(x), e, n) == (incl[-1].item() if n else 0)
    excl = np.zeros(n, dtype)
    excl[1:] = incl[:-1]
    np.testing.assert_array_equal(e.numpy(), excl)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 257, 65537, 131071])
def test_float_prefixes_within_bound(device, dtype, n):
    x = data(n, dtype)
    d = tack.zeros(n, dtype)
    total = A.inclusive_scan(tack.array(x), d, n)
    out = d.numpy()
    check_sum(total, x, dtype)
    for k in sorted({0, 1, n // 3, n // 2, 65535, 65536, n - 1} & set(range(n))):
        check_sum(float(out[k]), x[:k + 1], dtype)
    e = tack.zeros(n, dtype)
    check_sum(A.exclusive_scan(tack.array(x), e, n), x, dtype)
    ex = e.numpy()
    assert ex[0] == 0
    for k in sorted({1, n // 2, 65536, n - 1} & set(range(1, n))):
        check_sum(float(ex[k]), x[:k], dtype)


def test_total_wraps_at_output_width(device):
    x = tack.array(np.full(1000, 100, np.int32))
    d = tack.zeros(1000, tack.i8)
    assert A.inclusive_scan(x, d, 1000) == (100000 + 128) % 256 - 128  # 100000 modulo 2^8
    np.testing.assert_array_equal(d.numpy(), (np.arange(1, 1001) * 100).astype(np.int8))


def test_converts_on_store(device):
    x = np.arange(70000, dtype=np.uint8)
    d = tack.zeros(70000, tack.i64)
    assert A.exclusive_scan(tack.array(x), d, 70000) == int(x.astype(np.int64).sum())
    np.testing.assert_array_equal(d.numpy()[1:], np.cumsum(x.astype(np.int64))[:-1])


@pytest.mark.parametrize("n", [1, 65537, 100000])
def test_in_place_and_only_n_touched(device, n):
    x = data(100003, np.int32)
    a = tack.array(x)
    A.exclusive_scan(a, a, n)
    got = a.numpy()
    assert got[0] == 0
    np.testing.assert_array_equal(got[1:n], _want_int(x[:n - 1], np.int32))
    np.testing.assert_array_equal(got[n:], x[n:])
    b = tack.array(x)
    A.inclusive_scan(b, b, n)
    np.testing.assert_array_equal(b.numpy()[:n], _want_int(x[:n], np.int32))


def test_deterministic(device):
    x = tack.array(data(300007, np.float32))
    d1, d2 = tack.zeros(300007), tack.zeros(300007)
    assert A.inclusive_scan(x, d1, 300007) == A.inclusive_scan(x, d2, 300007)
    np.testing.assert_array_equal(d1.numpy(), d2.numpy())


def test_argument_errors(device):
    a, d = tack.zeros(10, tack.i32), tack.zeros(8, tack.i32)
    assert A.inclusive_scan(a, d, 0) == 0
    with pytest.raises(ValueError):
        A.inclusive_scan(a, d, 9)  # beyond dst
    with pytest.raises(ValueError):
        A.exclusive_scan(a, d, -1)
    with pytest.raises(TypeError):
        A.exclusive_scan(np.zeros(10), d, 5)
    with pytest.raises(TypeError):
        A.exclusive_scan(a, d, 2.5)
