"""tack.check on the warpgroup MMA: the tiled wgmma matmul of tests/kernels/wgmma.py is clean and
quick at 128³; a double-buffered k loop that chains wgmmas across groups and waits with a count
of 1 before restaging is clean and exact; an accumulator assigned while a wgmma may still write
it, and one chained into a wgmma of another shape, are reported (the planted pairs are in
tests/check/planted_wgmma.py)."""
import time

import numpy as np
import tack

from tests.kernels import wgmma as K


def test_the_tiled_matmul_is_clean_and_quick_under_check():
    rng = np.random.default_rng(2)
    a = rng.standard_normal((128, 128)).astype(tack.bf16.np)
    b = rng.standard_normal((128, 128)).astype(tack.bf16.np)
    start = time.perf_counter()
    report = tack.check(K.tiled_matmul, tack.array(a), tack.array(b), tack.zeros((128, 128)),
                        K.launch_size(128, 128))
    took = time.perf_counter() - start
    report.require_clean()
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    assert (np.abs(report.outputs["C"] - a64 @ b64) <= 129 * 2.0 ** -24 * (np.abs(a64)
                                                                           @ np.abs(b64))).all()
    assert took < 60, took  # a few seconds on a loaded 2-core machine; generous


@tack.func
def stage(As, Bs, A, B, t, buf, k0):
    for e in range(32):
        s = t + 256 * e
        As[8192 * buf + tack.wgmma_index(As, s // 64, s % 64, "swizzle128")] = A[s // 64,
                                                                                  k0 + s % 64]
    for e in range(16):
        s = t + 256 * e
        Bs[4096 * buf + tack.wgmma_index(Bs, s % 64, s // 64, "swizzle128")] = B[k0 + s // 64,
                                                                                 s % 64]


@tack.kernel
def double_buffered(A, B, C, n):
    """C (128×64) = A (128×192) @ B (192×64): three k-steps of 64 through two buffers; the
    wgmmas of a step chain on the accumulator the previous step's may still be writing."""
    for i in range(n):
        As = tack.shared_like(A, 2 * 8192)
        Bs = tack.shared_like(B, 2 * 4096)
        t = tack.thread_id()
        wg = t // 128
        acc = tack.wgmma_zeros(64)
        for step in range(3):
            buf = step % 2
            if step >= 2:
                tack.wgmma_wait(1)  # step - 2's group, which read this buffer, is done ...
                tack.barrier()  # ... in both warpgroups
            stage(As, Bs, A, B, t, buf, 64 * step)
            tack.barrier()
            for k0 in range(0, 64, 16):
                tack.wgmma(acc, As, 8192 * buf + tack.wgmma_index(As, 64 * wg, k0, "swizzle128"),
                           Bs, 4096 * buf + tack.wgmma_index(Bs, 0, k0, "swizzle128"),
                           "swizzle128")
            tack.wgmma_commit()
        tack.wgmma_wait(0)
        tack.wgmma_store(acc, C, 64 * wg, 0)


def _args():
    rng = np.random.default_rng(9)
    a = rng.integers(-3, 4, (128, 192)).astype(np.float16)
    b = rng.integers(-3, 4, (192, 64)).astype(np.float16)
    return a, b


def test_a_double_buffered_loop_is_clean_and_exact():
    a, b = _args()
    report = tack.check(double_buffered, tack.array(a), tack.array(b), tack.zeros((128, 64)),
                        256)
    report.require_clean()
    np.testing.assert_array_equal(report.outputs["C"], a.astype(np.float64) @ b)


@tack.kernel
def restarted(A, B, C, n):
    for i in range(n):
        As = tack.shared_like(A, 8192)
        Bs = tack.shared_like(B, 4096)
        t = tack.thread_id()
        wg = t // 128
        acc = tack.wgmma_zeros(64)
        tack.wgmma(acc, As, tack.wgmma_index(As, 64 * wg, 0, "swizzle128"), Bs, 0, "swizzle128")
        tack.wgmma_commit()
        acc = tack.wgmma_zeros(64)
        tack.wgmma_wait(0)
        tack.wgmma_store(acc, C, 64 * wg, 0)


def test_an_accumulator_assigned_before_its_wait_is_reported():
    args = (tack.zeros((128, 64), tack.f16), tack.zeros((64, 64), tack.f16),
            tack.zeros((128, 64)), 256)
    report = tack.check(restarted, *args, uninitialized=False)
    (f,) = report.of_kind("pipeline")
    assert "'acc' is assigned" in f.message and "may still write it" in f.message
    assert [loc[1] for loc in f.locations] == [restarted.fn.__code__.co_firstlineno + 10,
                                               restarted.fn.__code__.co_firstlineno + 8]


@tack.kernel
def two_shapes(A, B, C, n):
    for i in range(n):
        As = tack.shared(tack.f16, 8192)
        Bs = tack.shared(tack.f16, 4096)
        Xs = tack.shared(tack.f32, 4096)
        Ys = tack.shared(tack.f32, 2048)
        wg = tack.thread_id() // 128
        acc = tack.wgmma_zeros(64)
        tack.wgmma(acc, As, 4096 * wg, Bs, 0, "interleave")
        tack.wgmma(acc, Xs, 2048 * wg, Ys, 0, "interleave", "tf32")
        tack.wgmma_commit()
        tack.wgmma_wait(0)
        tack.wgmma_store(acc, C, 64 * wg, 0)


def test_an_accumulator_chained_into_another_shape_is_reported():
    args = (tack.zeros((128, 64), tack.f16), tack.zeros((64, 64), tack.f16),
            tack.zeros((128, 64)), 256)
    report = tack.check(two_shapes, *args, uninitialized=False)
    (f,) = report.of_kind("pipeline")
    assert "accumulator of a tack.wgmma of another shape" in f.message
