"""Workgroup primitives and atomics on the GPU (docs/language.md, "Workgroup contract" and
"Atomics"): shared arrays, barriers, thread ids, the user's-guide block_reduce
(tests/kernels/corpus.py), a tiled n-body against the plain one and a float64
NumPy reference, and atomics returning the old value."""
import numpy as np
import pytest
import tack

from tests.cuda import gpu
from tests.kernels.corpus import _nbody_ref, nbody
from tests.kernels.workgroups import (
    block_reduce,
    compact,
    extremes,
    histogram,
    lanes,
    nbody_tiled,
    reverse_in_block,
)

pytestmark = [*gpu.MARKS, pytest.mark.usefixtures("cuda_device")]


def test_block_reduce():
    h = np.random.default_rng(0).normal(size=256 * 37).astype(np.float32)
    sums = tack.zeros(37)
    block_reduce(tack.array(h), sums, len(h))
    np.testing.assert_allclose(sums.numpy(), h.astype(np.float64).reshape(37, 256).sum(1),
                               rtol=1e-5, atol=1e-5)


def test_thread_id_is_the_lane_with_partial_last_group():
    out = tack.full(1000 + 10, -1, tack.i32)
    lanes(out, 1000)
    np.testing.assert_array_equal(out.numpy(), np.r_[np.arange(1000) % 256, np.full(10, -1)])


def test_shared_memory_is_per_block():
    h = np.arange(256 * 5, dtype=np.float64)
    out = tack.zeros(len(h), tack.f64)
    reverse_in_block(tack.array(h), out, len(h))
    np.testing.assert_array_equal(out.numpy(), h.reshape(5, 256)[:, ::-1].ravel())


def test_tiled_nbody_matches_plain_and_float64():
    rng = np.random.default_rng(1)
    n = 1024
    pos = np.c_[rng.normal(size=(n, 3)), rng.uniform(0.5, 1, n)].astype(np.float32)
    p = tack.array(pos)
    tiled, plain = tack.zeros((n, 3)), tack.zeros((n, 3))
    nbody_tiled(p, tiled, n, 0.01)
    nbody(p, plain, n, 0.01)
    ref = _nbody_ref(pos, 0.01)
    np.testing.assert_allclose(tiled.numpy(), ref, rtol=2e-4, atol=2e-4)
    np.testing.assert_allclose(plain.numpy(), ref, rtol=2e-4, atol=2e-4)
    np.testing.assert_allclose(tiled.numpy(), plain.numpy(), rtol=1e-5, atol=1e-5)


def test_histogram_global_atomics():
    h = np.random.default_rng(2).uniform(0, 1, 1_000_003).astype(np.float32)
    bins = tack.zeros(10, tack.i32)
    histogram(tack.array(h), bins, len(h))
    ref = np.bincount((h * np.float32(10)).astype(np.int32), minlength=10)
    np.testing.assert_array_equal(bins.numpy(), ref)


def test_atomic_add_returns_unique_old_values():
    vals = np.random.default_rng(3).normal(size=100_001).astype(np.float32)
    out, count = tack.zeros(len(vals)), tack.zeros(1, tack.i32)
    compact(tack.array(vals), out, count, len(vals))
    k = int(count.numpy()[0])
    assert k == int((vals > 0).sum())
    np.testing.assert_array_equal(np.sort(out.numpy()[:k]), np.sort(vals[vals > 0]))


@pytest.mark.parametrize("dtype", [np.int32, np.uint32, np.int64, np.uint64, np.float32,
                                   np.float64])
def test_atomic_min_max_and_old_values(dtype):
    rng = np.random.default_rng(4)
    h = (rng.uniform(1, 1000, size=20_011)).astype(dtype)
    start = dtype(500)
    lo, hi = tack.array(np.array([start], dtype)), tack.array(np.array([start], dtype))
    old = tack.zeros(len(h), tack.dtypes.from_numpy(np.dtype(dtype)))
    extremes(tack.array(h), lo, hi, old)
    assert lo.numpy()[0] == min(h.min(), start) and hi.numpy()[0] == max(h.max(), start)
    olds = old.numpy()
    # every old value was the running minimum at some moment: never below the final minimum,
    # never above the start, and the final minimum was seen by no one unless it was there first
    assert (olds >= lo.numpy()[0]).all() and (olds <= start).all()


def test_atomic_add_float_sums():
    @tack.kernel
    def total(x, acc):
        for i in range(x.shape[0]):
            tack.atomic_add(acc, 0, x[i])

    h = np.random.default_rng(5).uniform(0, 1, 65536)
    acc = tack.zeros(1, tack.f64)
    total(tack.array(h), acc)
    np.testing.assert_allclose(acc.numpy()[0], h.sum(), rtol=1e-12)


def test_partial_groups_rejected_after_warm_calls():
    """A kernel with collectives keeps checking complete groups on the prebuilt call path."""
    h = np.ones(256 * 2, np.float32)
    data, sums = tack.array(h), tack.zeros(2)
    block_reduce(data, sums, 512)
    block_reduce(data, sums, 512)
    with pytest.raises(ValueError, match="complete 256-lane groups"):
        block_reduce(data, sums, 300)
    np.testing.assert_array_equal(sums.numpy(), [256, 256])


def test_register_budget_is_within_the_occupancy_the_kernel_had():
    """runtime.cuda.occupancy: a kernel loaded with a `.maxnreg` budget keeps its blocks per SM
    and its results (the tiled n-body above is register-limited; a copy is thread-limited)."""
    from tack.runtime.cuda.occupancy import register_budget

    rng = np.random.default_rng(6)
    n = 512
    pos = np.c_[rng.normal(size=(n, 3)), rng.uniform(0.5, 1, n)].astype(np.float32)
    acc = tack.zeros((n, 3))
    variant = gpu.loaded_variant(nbody_tiled, tack.array(pos), acc, n, 0.01)
    np.testing.assert_allclose(acc.numpy(), _nbody_ref(pos, 0.01), rtol=2e-4, atol=2e-4)
    eng = variant.engine
    assert variant.blocks_per_sm >= 1
    if variant.max_registers is not None:
        assert variant.registers <= variant.max_registers
        assert eng.regs_per_sm // (variant.max_registers * 256) >= variant.blocks_per_sm
    else:
        assert register_budget(variant.registers, variant.blocks_per_sm, 256, eng.regs_per_sm,
                               eng.threads_per_sm) is None
    light = gpu.loaded_variant(lanes, tack.zeros(1024, tack.i32), 1024)
    assert light.max_registers is None and light.blocks_per_sm * 256 == eng.threads_per_sm
