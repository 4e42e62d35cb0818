"""The planted-bug corpus's matrix multiply-accumulate kernels (tests/check/planted.py lists
them as cases): each bug marks the lines its finding names with `# @1`/`# @2`, and its fixed twin
is clean. One workgroup's 8 warps each multiply a 16×16 tile of A by a 16×8 tile of B, staged
through shared tiles: warp w takes rows 16w.. of A and columns 8w.. of B."""
import numpy as np
import tack

M, N, K = 128, 64, 16  # one workgroup: 8 warps, one 16×8 tile of C each


def args(fixed: bool = False):
    rng = np.random.default_rng(5)
    a = tack.array(rng.standard_normal((M, K)).astype(np.float16))
    b = tack.array(rng.standard_normal((K, N)).astype(np.float16))
    return a, b, tack.zeros((M, N)), 256


@tack.kernel
def mma_missing_barrier(A, B, C, n):
    for i in range(n):
        As = tack.shared(tack.f16, 2048)  # 128 × 16
        Bs = tack.shared(tack.f16, 1024)  # 16 × 64
        t = tack.thread_id()
        w = tack.warp_id()
        for e in range(8):
            As[t + 256 * e] = A[(t + 256 * e) // 16, (t + 256 * e) % 16]  # @1
        for e in range(4):
            Bs[t + 256 * e] = B[(t + 256 * e) // 64, (t + 256 * e) % 64]
        a = tack.mma_load_a(As, w * 16, 0, 16)  # @2
        b = tack.mma_load_b(Bs, 0, w * 8, 64)
        tack.mma_store(tack.mma(a, b, tack.mma_zeros()), C, w * 16, w * 8)


@tack.kernel
def mma_missing_barrier_fixed(A, B, C, n):
    for i in range(n):
        As = tack.shared(tack.f16, 2048)
        Bs = tack.shared(tack.f16, 1024)
        t = tack.thread_id()
        w = tack.warp_id()
        for e in range(8):
            As[t + 256 * e] = A[(t + 256 * e) // 16, (t + 256 * e) % 16]
        for e in range(4):
            Bs[t + 256 * e] = B[(t + 256 * e) // 64, (t + 256 * e) % 64]
        tack.barrier()
        a = tack.mma_load_a(As, w * 16, 0, 16)
        b = tack.mma_load_b(Bs, 0, w * 8, 64)
        tack.mma_store(tack.mma(a, b, tack.mma_zeros()), C, w * 16, w * 8)


@tack.kernel
def mma_in_lane_branch(A, B, C, n):
    for i in range(n):
        w = tack.warp_id()
        a = tack.mma_load_a(A, w * 16, 0)
        b = tack.mma_load_b(B, 0, w * 8)
        acc = tack.mma_zeros()
        if tack.lane_id() < 16:  # @2
            acc = tack.mma(a, b, acc)  # @1
        tack.mma_store(acc, C, w * 16, w * 8)


@tack.kernel
def mma_in_lane_branch_fixed(A, B, C, n):
    for i in range(n):
        w = tack.warp_id()
        a = tack.mma_load_a(A, w * 16, 0)
        b = tack.mma_load_b(B, 0, w * 8)
        tack.mma_store(tack.mma(a, b, tack.mma_zeros()), C, w * 16, w * 8)


@tack.kernel
def fragment_load_in_lane_branch(A, B, C, n):
    for i in range(n):
        w = tack.warp_id()
        a = tack.mma_load_a(A, w * 16, 0)
        if tack.lane_id() % 2 == 0:  # @2
            a = tack.mma_load_a(A, w * 16, 0)  # @1
        b = tack.mma_load_b(B, 0, w * 8)
        tack.mma_store(tack.mma(a, b, tack.mma_zeros()), C, w * 16, w * 8)


@tack.kernel
def fragment_load_in_lane_branch_fixed(A, B, C, n):
    for i in range(n):
        w = tack.warp_id()
        a = tack.mma_load_a(A, w * 16, 0)
        b = tack.mma_load_b(B, 0, w * 8)
        tack.mma_store(tack.mma(a, b, tack.mma_zeros()), C, w * 16, w * 8)


@tack.kernel
def mma_uninitialized_accumulator(A, B, C, n):
    for i in range(n):
        Cs = tack.shared(tack.f32, 1024)  # @2
        w = tack.warp_id()
        a = tack.mma_load_a(A, w * 16, 0)
        b = tack.mma_load_b(B, 0, w * 8)
        acc = tack.mma_load_acc(Cs, w * 16 % 128, 0, 8)  # @1
        tack.mma_store(tack.mma(a, b, acc), C, w * 16, w * 8)


@tack.kernel
def mma_uninitialized_accumulator_fixed(A, B, C, n):
    for i in range(n):
        Cs = tack.shared(tack.f32, 1024)
        t = tack.thread_id()
        for e in range(4):
            Cs[t + 256 * e] = 0.0
        tack.barrier()
        w = tack.warp_id()
        a = tack.mma_load_a(A, w * 16, 0)
        b = tack.mma_load_b(B, 0, w * 8)
        acc = tack.mma_load_acc(Cs, w * 16 % 128, 0, 8)
        tack.mma_store(tack.mma(a, b, acc), C, w * 16, w * 8)


@tack.kernel
def accumulator_unassigned_on_a_path(A, B, C, n):
    for i in range(n):
        w = tack.warp_id()
        if w < 4:  # warps 4..7 never start their accumulator
            acc = tack.mma_zeros()
        acc = tack.mma(tack.mma_load_a(A, w * 16, 0), tack.mma_load_b(B, 0, w * 8), acc)  # @1
        tack.mma_store(acc, C, w * 16, w * 8)


@tack.kernel
def accumulator_unassigned_on_a_path_fixed(A, B, C, n):
    for i in range(n):
        w = tack.warp_id()
        acc = tack.mma_zeros()
        acc = tack.mma(tack.mma_load_a(A, w * 16, 0), tack.mma_load_b(B, 0, w * 8), acc)
        tack.mma_store(acc, C, w * 16, w * 8)
