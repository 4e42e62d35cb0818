"""Language features on the GPU: block reductions and the workgroup contract, and shared-memory
atomics. The language tests of tests/exec (vectors and matrices, tack.random bit-identical to its
NumPy mirrors, textures, device functions and classes, return values, debug mode, ndrange) run
on the GPU through their `engine` fixture."""
import numpy as np
import pytest
import tack

from tests.cuda import gpu

pytestmark = [*gpu.MARKS, pytest.mark.usefixtures("cuda_device")]


@tack.kernel
def group_stats(data, out, n):
    for i in range(n):
        s = tack.block_sum(data[i])
        lo = tack.block_min(data[i])
        hi = tack.block_max(data[i])
        if tack.thread_id() == 0:
            out[i // 256, 0] = s
            out[i // 256, 1] = lo
            out[i // 256, 2] = hi


def test_block_reductions():
    h = np.random.default_rng(0).normal(size=256 * 9).astype(np.float32)
    h[300] = np.nan
    out = tack.zeros((9, 3))
    group_stats(tack.array(h), out, len(h))
    g = h.reshape(9, 256).astype(np.float64)
    got = out.numpy()
    ok = ~np.isnan(g).any(1)
    np.testing.assert_allclose(got[ok, 0], g[ok].sum(1), rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(got[ok, 1], g[ok].min(1).astype(np.float32))
    np.testing.assert_array_equal(got[ok, 2], g[ok].max(1).astype(np.float32))
    assert np.isnan(got[~ok]).all()  # a NaN anywhere gives NaN
    with pytest.raises(ValueError, match="complete 256-lane groups; iteration count 300"):
        group_stats(tack.array(h[:300]), out, 300)


@tack.kernel
def hist_shared(data, bins, n, threads):
    for t in range(threads):
        local = tack.shared(tack.i32, 256)
        tid = tack.thread_id()
        local[tid] = 0
        tack.barrier()
        for k in range(t, n, threads):
            tack.atomic_add(local, data[k], 1)
        tack.barrier()
        tack.atomic_add(bins, tid, local[tid])


def test_shared_memory_histogram():
    h = np.random.default_rng(1).integers(0, 256, 1 << 20).astype(np.int32)
    bins = tack.zeros(256, tack.i32)
    hist_shared(tack.array(h), bins, len(h), 256 * 64)
    np.testing.assert_array_equal(bins.numpy(), np.bincount(h, minlength=256))
