"""GPU-only kernels on the simulator against independent NumPy references: block reductions,
shared memory, barriers, thread ids, atomics (global and on shared arrays), the tiled n-body of
bench/gpu.py, and awkward launch sizes."""
import importlib.util
from pathlib import Path

import numpy as np
import pytest
import tack

from tests.kernels import workgroups as wg
from tests.kernels.corpus import _nbody_ref
from tests.kernels.workgroups import scan_in_block, shared_histogram

ROOT = Path(__file__).resolve().parents[2]
AWKWARD = [1, 2, 7, 255, 256, 257, 1021, 1025]


@pytest.fixture(autouse=True)
def sim():
    tack.set_default_device("sim")


def bench_gpu():
    spec = importlib.util.spec_from_file_location("bench_gpu", ROOT / "bench" / "gpu.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("groups", [1, 3, 37])
def test_block_reduce(groups):
    h = np.random.default_rng(0).normal(size=256 * groups).astype(np.float32)
    sums = tack.zeros(groups)
    wg.block_reduce(tack.array(h), sums, len(h))
    np.testing.assert_allclose(sums.numpy(), h.astype(np.float64).reshape(groups, 256).sum(1),
                               rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("n", AWKWARD)
def test_thread_id_with_partial_last_group(n):
    out = tack.full(n + 10, -1, tack.i32)
    wg.lanes(out, n)
    np.testing.assert_array_equal(out.numpy(), np.r_[np.arange(n) % 256, np.full(10, -1)])


def test_shared_memory_is_per_block():
    h = np.arange(256 * 5, dtype=np.float64)
    out = tack.zeros(len(h), tack.f64)
    wg.reverse_in_block(tack.array(h), out, len(h))
    np.testing.assert_array_equal(out.numpy(), h.reshape(5, 256)[:, ::-1].ravel())


def _bodies(n):
    rng = np.random.default_rng(1)
    return np.c_[rng.normal(size=(n, 3)), rng.uniform(0.5, 1, n)].astype(np.float32)


def test_tiled_nbody_matches_float64():
    n = 512
    pos = _bodies(n)
    tiled = tack.zeros((n, 3))
    wg.nbody_tiled(tack.array(pos), tiled, n, 0.01)
    np.testing.assert_allclose(tiled.numpy(), _nbody_ref(pos, 0.01), rtol=2e-4, atol=2e-4)


def test_bench_gpu_tiled_nbody_matches_float64():
    n = 768
    pos = _bodies(n)
    acc = tack.zeros((n, 3))
    bench_gpu().nbody_tiled(tack.array(pos), acc, n, np.float32(0.01))
    np.testing.assert_allclose(acc.numpy(), _nbody_ref(pos, 0.01), rtol=2e-4, atol=2e-4)


@pytest.mark.parametrize("n", [1, 1021, 1025, 100_003])
def test_histogram_global_atomics(n):
    h = np.random.default_rng(2).uniform(0, 1, n).astype(np.float32)
    bins = tack.zeros(10, tack.i32)
    wg.histogram(tack.array(h), bins, len(h))
    ref = np.bincount((h * np.float32(10)).astype(np.int32), minlength=10)
    np.testing.assert_array_equal(bins.numpy(), ref)


def test_atomic_add_returns_unique_old_values():
    vals = np.random.default_rng(3).normal(size=100_001).astype(np.float32)
    out, count = tack.zeros(len(vals)), tack.zeros(1, tack.i32)
    wg.compact(tack.array(vals), out, count, len(vals))
    k = int(count.numpy()[0])
    assert k == int((vals > 0).sum())
    # launch order: the k-th positive value (in index order) took slot k
    np.testing.assert_array_equal(out.numpy()[:k], vals[vals > 0])


@pytest.mark.parametrize("dtype", [np.int32, np.uint32, np.int64, np.uint64, np.float32,
                                   np.float64])
def test_atomic_min_max_old_values_are_the_running_extremes(dtype):
    h = np.random.default_rng(4).uniform(1, 1000, size=20_011).astype(dtype)
    start = dtype(500)
    lo, hi = tack.array(np.array([start], dtype)), tack.array(np.array([start], dtype))
    old = tack.zeros(len(h), tack.dtypes.from_numpy(np.dtype(dtype)))
    wg.extremes(tack.array(h), lo, hi, old)
    assert lo.numpy()[0] == min(h.min(), start) and hi.numpy()[0] == max(h.max(), start)
    running = np.minimum.accumulate(np.r_[start, h])[:-1]  # launch order, exactly
    np.testing.assert_array_equal(old.numpy(), running)


def test_atomic_add_float_old_values_are_the_serial_prefix():
    @tack.kernel
    def total(x, acc, old):
        for i in range(x.shape[0]):
            old[i] = tack.atomic_add(acc, i % 3, x[i])

    h = np.random.default_rng(5).uniform(0, 1, 65537).astype(np.float32)
    acc, old = tack.zeros(3), tack.zeros(len(h))
    total(tack.array(h), acc, old)
    for r in range(3):
        run = np.add.accumulate(np.r_[np.float32(0), h[r::3]], dtype=np.float32)
        np.testing.assert_array_equal(old.numpy()[r::3], run[:-1])
        assert acc.numpy()[r] == run[-1]


def test_integer_atomics_wrap():
    @tack.kernel
    def bump(acc, old, n):
        for i in range(n):
            old[i] = tack.atomic_add(acc, 0, tack.u8(100))

    acc, old = tack.zeros(1, tack.u8), tack.zeros(1000, tack.u8)
    bump(acc, old, 1000)
    np.testing.assert_array_equal(old.numpy(), (np.arange(1000) * 100 % 256).astype(np.uint8))
    assert acc.numpy()[0] == 1000 * 100 % 256


def test_atomics_on_shared_arrays():
    h = np.random.default_rng(6).integers(0, 1000, 256 * 9).astype(np.int32)
    bins = tack.zeros(16, tack.i32)
    shared_histogram(tack.array(h), bins, len(h))
    np.testing.assert_array_equal(bins.numpy(), np.bincount(h % 16, minlength=16))


def test_inclusive_scan_with_two_barriers_per_step():
    h = np.random.default_rng(7).integers(-1000, 1000, 256 * 4).astype(np.int64)
    out = tack.zeros(len(h), tack.i64)
    scan_in_block(tack.array(h), out, len(h))
    np.testing.assert_array_equal(out.numpy(), np.cumsum(h.reshape(4, 256), 1).ravel())


def test_block_reductions_from_the_library():
    @tack.kernel
    def sums(x, out, n):
        for i in range(n):
            s = tack.block_sum(x[i])
            if tack.thread_id() == 0:
                out[i // 256] = s

    h = np.random.default_rng(8).normal(size=256 * 6).astype(np.float32)
    out = tack.zeros(6)
    sums(tack.array(h), out, len(h))
    np.testing.assert_allclose(out.numpy(), h.astype(np.float64).reshape(6, 256).sum(1),
                               rtol=1e-5, atol=1e-5)


def test_partial_groups_rejected():
    h = np.ones(512, np.float32)
    with pytest.raises(ValueError, match="complete 256-lane groups"):
        wg.block_reduce(tack.array(h), tack.zeros(2), 300)
