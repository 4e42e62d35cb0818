"""The planted-bug corpus's warpgroup MMA kernels (tests/check/planted.py lists them as cases):
each bug marks the lines its finding names with `# @1`/`# @2`, and its fixed twin is clean. One
workgroup: its two warpgroups each multiply a 64×64 slab of A (rows 64g..) by B (64×64, staged
transposed), both tiles staged with `tack.wgmma_index` in the 128-byte swizzle."""
import numpy as np
import tack


def args(fixed: bool = False):
    """Small integers: every product and sum is exact in f32, so a GPU's tensor cores give the
    simulator's bits whatever order they add in (tests/cuda/test_sanitizer_corpus.py compares)."""
    rng = np.random.default_rng(7)
    a = tack.array(rng.integers(-3, 4, (128, 64)).astype(np.float16))
    b = tack.array(rng.integers(-3, 4, (64, 64)).astype(np.float16))
    return a, b, tack.zeros((128, 64)), 256


@tack.func
def stage(As, Bs, A, B, t):
    for e in range(32):
        s = t + 256 * e
        As[tack.wgmma_index(As, s // 64, s % 64, "swizzle128")] = A[s // 64, s % 64]
    for e in range(16):
        s = t + 256 * e
        Bs[tack.wgmma_index(Bs, s % 64, s // 64, "swizzle128")] = B[s // 64, s % 64]


@tack.kernel
def wgmma_store_before_wait(A, B, C, n):
    for i in range(n):
        As = tack.shared_like(A, 8192)
        Bs = tack.shared_like(B, 4096)
        t = tack.thread_id()
        stage(As, Bs, A, B, t)
        tack.barrier()
        wg = t // 128
        acc = tack.wgmma_zeros(64)
        for k0 in range(0, 64, 16):
            tack.wgmma(acc, As, tack.wgmma_index(As, 64 * wg, k0, "swizzle128"), Bs,  # @2
                       tack.wgmma_index(Bs, 0, k0, "swizzle128"), "swizzle128")
        tack.wgmma_commit()
        tack.wgmma_store(acc, C, 64 * wg, 0)  # @1


@tack.kernel
def wgmma_store_before_wait_fixed(A, B, C, n):
    for i in range(n):
        As = tack.shared_like(A, 8192)
        Bs = tack.shared_like(B, 4096)
        t = tack.thread_id()
        stage(As, Bs, A, B, t)
        tack.barrier()
        wg = t // 128
        acc = tack.wgmma_zeros(64)
        for k0 in range(0, 64, 16):
            tack.wgmma(acc, As, tack.wgmma_index(As, 64 * wg, k0, "swizzle128"), Bs,
                       tack.wgmma_index(Bs, 0, k0, "swizzle128"), "swizzle128")
        tack.wgmma_commit()
        tack.wgmma_wait(0)
        tack.wgmma_store(acc, C, 64 * wg, 0)


@tack.kernel
def wgmma_wait_too_short(A, B, C, n):
    """Two halves of k in two groups; waiting with 1 leaves the second pending at the store."""
    for i in range(n):
        As = tack.shared_like(A, 8192)
        Bs = tack.shared_like(B, 4096)
        t = tack.thread_id()
        stage(As, Bs, A, B, t)
        tack.barrier()
        wg = t // 128
        acc = tack.wgmma_zeros(64)
        for half in range(2):
            for k0 in range(32 * half, 32 * half + 32, 16):
                tack.wgmma(acc, As, tack.wgmma_index(As, 64 * wg, k0, "swizzle128"), Bs,  # @2
                           tack.wgmma_index(Bs, 0, k0, "swizzle128"), "swizzle128")
            tack.wgmma_commit()
        tack.wgmma_wait(1)
        tack.wgmma_store(acc, C, 64 * wg, 0)  # @1


@tack.kernel
def wgmma_wait_too_short_fixed(A, B, C, n):
    for i in range(n):
        As = tack.shared_like(A, 8192)
        Bs = tack.shared_like(B, 4096)
        t = tack.thread_id()
        stage(As, Bs, A, B, t)
        tack.barrier()
        wg = t // 128
        acc = tack.wgmma_zeros(64)
        for half in range(2):
            for k0 in range(32 * half, 32 * half + 32, 16):
                tack.wgmma(acc, As, tack.wgmma_index(As, 64 * wg, k0, "swizzle128"), Bs,
                           tack.wgmma_index(Bs, 0, k0, "swizzle128"), "swizzle128")
            tack.wgmma_commit()
        tack.wgmma_wait(0)
        tack.wgmma_store(acc, C, 64 * wg, 0)


@tack.kernel
def wgmma_tile_restaged_in_flight(A, B, C, n):
    """C = A @ (B + B): the second product restages Bs (doubled) while the first wgmma may still
    read it, and waits only after both."""
    for i in range(n):
        As = tack.shared_like(A, 8192)
        Bs = tack.shared_like(B, 4096)
        t = tack.thread_id()
        stage(As, Bs, A, B, t)
        tack.barrier()
        wg = t // 128
        acc = tack.wgmma_zeros(64)
        tack.wgmma(acc, As, tack.wgmma_index(As, 64 * wg, 0, "swizzle128"), Bs,  # @2
                   tack.wgmma_index(Bs, 0, 0, "swizzle128"), "swizzle128")
        tack.wgmma_commit()
        tack.barrier()
        for e in range(16):
            Bs[t + 256 * e] = Bs[t + 256 * e] * 2.0  # @1
        tack.barrier()
        tack.wgmma(acc, As, tack.wgmma_index(As, 64 * wg, 0, "swizzle128"), Bs,
                   tack.wgmma_index(Bs, 0, 0, "swizzle128"), "swizzle128")
        tack.wgmma_commit()
        tack.wgmma_wait(0)
        tack.wgmma_store(acc, C, 64 * wg, 0)


@tack.kernel
def wgmma_tile_restaged_in_flight_fixed(A, B, C, n):
    for i in range(n):
        As = tack.shared_like(A, 8192)
        Bs = tack.shared_like(B, 4096)
        t = tack.thread_id()
        stage(As, Bs, A, B, t)
        tack.barrier()
        wg = t // 128
        acc = tack.wgmma_zeros(64)
        tack.wgmma(acc, As, tack.wgmma_index(As, 64 * wg, 0, "swizzle128"), Bs,
                   tack.wgmma_index(Bs, 0, 0, "swizzle128"), "swizzle128")
        tack.wgmma_commit()
        tack.wgmma_wait(0)  # both warpgroups' wgmmas have read Bs ...
        tack.barrier()  # ... before any lane restages it
        for e in range(16):
            Bs[t + 256 * e] = Bs[t + 256 * e] * 2.0
        tack.barrier()
        tack.wgmma(acc, As, tack.wgmma_index(As, 64 * wg, 0, "swizzle128"), Bs,
                   tack.wgmma_index(Bs, 0, 0, "swizzle128"), "swizzle128")
        tack.wgmma_commit()
        tack.wgmma_wait(0)
        tack.wgmma_store(acc, C, 64 * wg, 0)


@tack.kernel
def wgmma_missing_barrier(A, B, C, n):
    for i in range(n):
        As = tack.shared_like(A, 8192)
        Bs = tack.shared_like(B, 4096)
        t = tack.thread_id()
        for e in range(32):
            s = t + 256 * e
            As[tack.wgmma_index(As, s // 64, s % 64, "swizzle128")] = A[s // 64, s % 64]  # @1
        for e in range(16):
            s = t + 256 * e
            Bs[tack.wgmma_index(Bs, s % 64, s // 64, "swizzle128")] = B[s // 64, s % 64]
        wg = t // 128
        acc = tack.wgmma_zeros(64)
        for k0 in range(0, 64, 16):
            tack.wgmma(acc, As, tack.wgmma_index(As, 64 * wg, k0, "swizzle128"), Bs,  # @2
                       tack.wgmma_index(Bs, 0, k0, "swizzle128"), "swizzle128")
        tack.wgmma_commit()
        tack.wgmma_wait(0)
        tack.wgmma_store(acc, C, 64 * wg, 0)


@tack.kernel
def wgmma_missing_barrier_fixed(A, B, C, n):
    for i in range(n):
        As = tack.shared_like(A, 8192)
        Bs = tack.shared_like(B, 4096)
        t = tack.thread_id()
        stage(As, Bs, A, B, t)
        tack.barrier()
        wg = t // 128
        acc = tack.wgmma_zeros(64)
        for k0 in range(0, 64, 16):
            tack.wgmma(acc, As, tack.wgmma_index(As, 64 * wg, k0, "swizzle128"), Bs,
                       tack.wgmma_index(Bs, 0, k0, "swizzle128"), "swizzle128")
        tack.wgmma_commit()
        tack.wgmma_wait(0)
        tack.wgmma_store(acc, C, 64 * wg, 0)


@tack.kernel
def wgmma_partial_warpgroup(A, B, C, n):
    """Warp 3 of each warpgroup skips the wgmma: a partial warpgroup."""
    for i in range(n):
        As = tack.shared_like(A, 8192)
        Bs = tack.shared_like(B, 4096)
        t = tack.thread_id()
        stage(As, Bs, A, B, t)
        tack.barrier()
        wg = t // 128
        acc = tack.wgmma_zeros(64)
        if tack.warp_id() % 4 != 3:  # @2
            tack.wgmma(acc, As, tack.wgmma_index(As, 64 * wg, 0, "swizzle128"), Bs,  # @1
                       tack.wgmma_index(Bs, 0, 0, "swizzle128"), "swizzle128")
        tack.wgmma_commit()
        tack.wgmma_wait(0)
        tack.wgmma_store(acc, C, 64 * wg, 0)


@tack.kernel
def wgmma_partial_warpgroup_fixed(A, B, C, n):
    for i in range(n):
        As = tack.shared_like(A, 8192)
        Bs = tack.shared_like(B, 4096)
        t = tack.thread_id()
        stage(As, Bs, A, B, t)
        tack.barrier()
        wg = t // 128
        acc = tack.wgmma_zeros(64)
        tack.wgmma(acc, As, tack.wgmma_index(As, 64 * wg, 0, "swizzle128"), Bs,
                   tack.wgmma_index(Bs, 0, 0, "swizzle128"), "swizzle128")
        tack.wgmma_commit()
        tack.wgmma_wait(0)
        tack.wgmma_store(acc, C, 64 * wg, 0)


@tack.kernel
def wgmma_tile_misplaced(A, B, C, n):
    """Bs staged row-major (B as it is, not transposed by tack.wgmma_index's rows): the wgmma
    reads elements nothing wrote."""
    for i in range(n):
        As = tack.shared_like(A, 8192)
        Bs = tack.shared_like(B, 8192)  # @2
        t = tack.thread_id()
        for e in range(32):
            s = t + 256 * e
            As[tack.wgmma_index(As, s // 64, s % 64, "swizzle128")] = A[s // 64, s % 64]
        for e in range(16):
            s = t + 256 * e
            Bs[s] = B[s // 64, s % 64]
        tack.barrier()
        wg = t // 128
        acc = tack.wgmma_zeros(128)
        tack.wgmma(acc, As, tack.wgmma_index(As, 64 * wg, 0, "swizzle128"), Bs,  # @1
                   tack.wgmma_index(Bs, 0, 0, "swizzle128"), "swizzle128")
        tack.wgmma_commit()
        tack.wgmma_wait(0)
        tack.wgmma_store(acc, C, 64 * wg, 0)


@tack.kernel
def wgmma_tile_misplaced_fixed(A, B, C, n):
    for i in range(n):
        As = tack.shared_like(A, 8192)
        Bs = tack.shared_like(B, 8192)
        t = tack.thread_id()
        for e in range(32):
            s = t + 256 * e
            As[tack.wgmma_index(As, s // 64, s % 64, "swizzle128")] = A[s // 64, s % 64]
        for e in range(32):
            s = t + 256 * e
            Bs[tack.wgmma_index(Bs, s % 128, s // 128, "swizzle128")] = B[s // 128 % 64, s % 64]
        tack.barrier()
        wg = t // 128
        acc = tack.wgmma_zeros(128)
        tack.wgmma(acc, As, tack.wgmma_index(As, 64 * wg, 0, "swizzle128"), Bs,
                   tack.wgmma_index(Bs, 0, 0, "swizzle128"), "swizzle128")
        tack.wgmma_commit()
        tack.wgmma_wait(0)
        tack.wgmma_store(acc, C, 64 * wg, 0)


def wide_args(fixed: bool = False):
    a, b, _, n = args()
    return a, b, tack.zeros((128, 128)), n
