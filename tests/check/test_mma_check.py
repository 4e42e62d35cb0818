"""tack.check on matrix multiply-accumulate: the tiled matmul of tests/kernels/mma.py is clean and
quick at 128³; races on the shared tiles feeding an MMA, fragment loads and MMAs that part of a
warp executes, an accumulator read before anything wrote it and a tile past its array are each
reported, by the checkers that report them for plain code (the planted pairs are in
tests/check/planted_mma.py)."""
import time

import numpy as np
import tack

from tests.check import planted_mma as P
from tests.kernels import mma as K


def test_the_tiled_matmul_is_clean_and_quick_under_check():
    rng = np.random.default_rng(2)
    a = rng.standard_normal((128, 128)).astype(tack.bf16.np)
    b = rng.standard_normal((128, 128)).astype(tack.bf16.np)
    c = tack.zeros((128, 128))
    start = time.perf_counter()
    report = tack.check(K.tiled_matmul, tack.array(a), tack.array(b), c, K.launch_size(128, 128))
    took = time.perf_counter() - start
    report.require_clean()
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    assert (np.abs(report.outputs["C"] - a64 @ b64) <= 129 * 2.0 ** -24 * (np.abs(a64)
                                                                           @ np.abs(b64))).all()
    assert took < 30, took  # about a quarter second on a 2-core machine; generous for load


@tack.kernel
def no_trailing_barrier(A, B, C, n):
    """tiled_matmul's k loop without its second barrier: the next step's staging overwrites the
    shared tiles while slower warps may still load fragments from them."""
    for i in range(n):
        K_ = A.shape[1]
        As = tack.shared_like(A, 1024)
        Bs = tack.shared_like(B, 512)
        t = tack.thread_id()
        wr = tack.warp_id() // 2 * 16
        wc = tack.warp_id() % 2 * 16
        acc = tack.mma_zeros()
        for k0 in range(0, K_, 16):
            for e in range(4):
                As[t + 256 * e] = A[(t + 256 * e) // 16, k0 + (t + 256 * e) % 16]
            for e in range(2):
                Bs[t + 256 * e] = B[k0 + (t + 256 * e) // 32, (t + 256 * e) % 32]
            tack.barrier()
            acc = tack.mma(tack.mma_load_a(As, wr, 0, 16), tack.mma_load_b(Bs, 0, wc, 32), acc)
        tack.mma_store(acc, C, wr, wc)


def test_a_race_between_the_next_staging_and_the_fragment_loads_is_found():
    a = tack.array(np.ones((64, 32), np.float16))
    b = tack.array(np.ones((32, 32), np.float16))
    report = tack.check(no_trailing_barrier, a, b, tack.zeros((64, 32)), 256)
    races = report.of_kind("race")
    assert races, report.text()
    texts = " ".join(f.message for f in races)
    assert "shared array 'As'" in texts and "shared array 'Bs'" in texts


def test_partial_warp_fragment_loads_and_mmas_name_their_builtin():
    (f,) = tack.check(P.fragment_load_in_lane_branch, *P.args()).of_kind("barrier")
    assert "warp collective tack.mma_load_a" in f.message
    assert "16 of the 32 lanes of warp 0 of workgroup 0" in f.message
    (f,) = tack.check(P.mma_in_lane_branch, *P.args()).of_kind("barrier")
    assert "warp collective tack.mma" in f.message and "lanes 16..31 did not" in f.message


def test_an_accumulator_from_an_unwritten_array_is_uninitialized():
    a, b = tack.zeros((128, 16), tack.f16), tack.zeros((128, 8), tack.f16)
    report = tack.check(K.tile_mma, a, b, tack.empty((128, 8)), tack.zeros((128, 8)), 256)
    (f,) = report.of_kind("uninitialized")
    assert "C" in f.message


def test_a_tile_past_its_array_is_a_bounds_finding():
    a, b = tack.zeros((120, 16), tack.f16), tack.zeros((128, 8), tack.f16)  # warp 7 needs 128
    report = tack.check(K.tile_mma, a, b, tack.zeros((128, 8)), tack.zeros((128, 8)), 256)
    found = report.of_kind("bounds")
    assert found and "A" in found[0].message
