"""tack.algorithms on CUDA beyond the tests of tests/algorithms, which run on a GPU through their
`device` fixture (the workgroup paths: block reductions, tile scans, the radix passes of
algorithms/radix.py): sizes that reach the recursive scan of tile totals, 10^7 elements, and the
single-pass look-back scan (the path CUDA takes for dtypes of at most 32 bits, so every scan test
of tests/algorithms runs it there) at each block span and write, beside the two passes forced,
with f32 bits the same as the simulator's. Skips without a GPU or cuda-bindings."""
import numpy as np
import pytest
import tack
from tack import algorithms as A

from tests.algorithms.conftest import check_sum, data
from tests.cuda import gpu

pytestmark = [*gpu.MARKS, pytest.mark.usefixtures("cuda_device")]


@pytest.mark.parametrize("n", [10 ** 7, 2048 * 2048 + 1])
def test_large_scan_and_sum(n):
    x = data(n, np.float32)
    a = tack.array(x)
    check_sum(a.sum(), x, np.float32)
    assert a.min() == x.min() and a.max() == x.max()
    k = (data(n, np.int32) % 1000).astype(np.int32)
    d = tack.zeros(n, tack.i32)
    assert A.exclusive_scan(tack.array(k), d, n) == int(k.sum(dtype=np.int32))
    want = np.zeros(n, np.int32)
    want[1:] = np.cumsum(k, dtype=np.int32)[:-1]
    np.testing.assert_array_equal(d.numpy(), want)


def test_sort_ten_million_matches_cpu_bits():
    keys = data(10 ** 7, np.int32)
    np.testing.assert_array_equal(A.argsort(tack.array(keys)).numpy(),
                                  np.argsort(keys, kind="stable"))


@pytest.mark.parametrize("lean", [False, True])
@pytest.mark.parametrize("window", [1, 32, 256])
@pytest.mark.parametrize("n", [4097, 10 ** 7])
def test_look_back_scan(window, n, lean):
    """The look-back scan on a GPU, where tiles really run concurrently: integer prefixes
    exact, f32 ones the same bits on every run and within the bound."""
    with A.tuning(scan="look_back", window=window, lean=lean):
        _look_back_scan(n)


def _look_back_scan(n):
    k = (data(n, np.int32) % 1000).astype(np.int32)
    d = tack.zeros(n, tack.i32)
    assert A.inclusive_scan(tack.array(k), d, n) == int(k.sum(dtype=np.int32))
    np.testing.assert_array_equal(d.numpy(), np.cumsum(k, dtype=np.int32))
    x = data(n, np.float32)
    d1, d2 = tack.zeros(n, tack.f32), tack.zeros(n, tack.f32)
    t1 = A.inclusive_scan(tack.array(x), d1, n)
    assert A.inclusive_scan(tack.array(x), d2, n) == t1
    np.testing.assert_array_equal(d1.numpy(), d2.numpy())
    check_sum(t1, x, np.float32)


@pytest.mark.parametrize("n", [4096 * 257 + 3, 10 ** 7])
def test_two_pass_scan_forced(n):
    """The two passes, which CUDA no longer takes for 32-bit dtypes, still right there."""
    with A.tuning(scan="two_pass"):
        _two_pass_scan(n)


def _two_pass_scan(n):
    k = (data(n, np.int32) % 1000).astype(np.int32)
    d = tack.zeros(n, tack.i32)
    assert A.inclusive_scan(tack.array(k), d, n) == int(np.cumsum(k, dtype=np.int32)[-1])
    np.testing.assert_array_equal(d.numpy(), np.cumsum(k, dtype=np.int32))
    x = data(n, np.float32)
    f = tack.zeros(n, tack.f32)
    check_sum(A.inclusive_scan(tack.array(x), f, n), x, np.float32)


@pytest.mark.parametrize("lean", [False, True])
def test_look_back_f32_bits_match_the_simulator(lean):
    """The same kernel and the same additions: the GPU's f32 prefixes are the simulator's bit
    for bit (blocks of 2 tiles: many blocks, so the block prefixes are exercised)."""
    with A.tuning(scan="look_back", window=2, lean=lean) as config:
        n = 9 * 2 * 4096 * config.sub + 11
        x = data(n, np.float32)
        f = tack.zeros(n, tack.f32)
        t = A.inclusive_scan(tack.array(x), f, n)
        gpu = f.numpy().view(np.uint32)
        with tack.device("sim"), A.tuning(patience=8):
            g = tack.zeros(n, tack.f32)
            assert A.inclusive_scan(tack.array(x), g, n) == t
    np.testing.assert_array_equal(g.numpy().view(np.uint32), gpu)
