"""Language features on the GPU: block reductions and the workgroup contract, shared-memory
atomics, vectors and matrices, tack.random (bit-identical to its NumPy mirrors), textures, device
functions and classes, return values, debug mode and ndrange — the same kernels the CPU tests run."""
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


def test_cpu_kernels_on_the_gpu():
    """The CPU test modules' kernels, run on CUDA against the same references."""
    from tests.exec import test_funcs_classes as fc
    from tests.exec import test_library as lib
    from tests.exec import test_ndrange as nd
    from tests.exec import test_return_values as rv
    from tests.exec import test_vectors as vec

    vec.test_seed_scatter()
    vec.test_self_overwrite_rules()
    vec.test_runtime_component_index()
    vec.test_masks_and_select()
    vec.test_matrix_operations()
    lib.test_seed_init_particles_matches_mirrors()
    lib.test_uniform_and_states_bit_identical()
    lib.test_texture_snapshot_update_and_sampling()
    lib.test_tack_math_and_constants()
    fc.test_seed_cell_average()
    fc.test_seed_cached_interp()
    fc.test_nested_tuple_and_early_returns()
    fc.test_kernel_as_method()
    nd.test_ndrange_stencil_against_numpy()
    nd.test_ndrange_pairs_and_empty()
    rv.test_return_values(1025)


def test_debug_mode_on_the_gpu():
    from tests.exec import test_debug_mode as dm

    tack.set_debug(True)
    try:
        dm.test_store_negative_index_is_skipped()
        dm.test_atomic_index_checked_and_skipped()
        dm.test_guarded_accesses_are_not_reported()
    finally:
        tack.set_debug(False)
