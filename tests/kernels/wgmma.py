"""Kernels the warpgroup MMA tests share (tests/exec/test_wgmma.py, tests/check/test_wgmma_check.py,
tests/cuda/test_wgmma_ptx.py, the Julia rendering checks).

`tile_kernel(n, layout, tf32)` makes the smallest use: one workgroup, each of its two warpgroups
computing the 64×n tile D[64g:64g+64] = A[64g:64g+64] @ B (K = 64, four k-steps of 16 or eight of
8) from tiles it stages with `tack.wgmma_index`, then `tack.wgmma_store`. `tiled_matmul` is a
whole C = A @ B of any sizes (f16 or bf16): a 128×64 block of C per workgroup, its two
warpgroups 64 rows each, the k loop staging 64-wide slabs of A and of B transposed, zero past
the matrices' edges, and C written back through a shared tile where it lies inside C. It keeps
its shared arrays at 40 KiB, under the 48 KiB a CUDA kernel may declare statically.
"""
import tack

BM, BN, BK = 128, 64, 64  # tiled_matmul's block of C and k step


def tile_kernel(n: int, layout: str, tf32: bool = False):
    """The one-workgroup kernel for a 64×n tile per warpgroup, staged in `layout`: A (128×K)
    and B (K×n) arrive as 2-D arrays (K = 64 f16/bf16, or 32 f32 with `tf32`), D is 128×n f32."""
    NT = tack.constant(n)
    if tf32:
        return _tile_tf32_swizzled(NT) if layout == "swizzle128" else _tile_tf32_interleaved(NT)
    return _tile_swizzled(NT) if layout == "swizzle128" else _tile_interleaved(NT)


def _tile_swizzled(NT):
    @tack.kernel
    def tile(A, B, D, count):
        for i in range(count):
            As = tack.shared_like(A, 128 * 64)
            Bs = tack.shared_like(B, NT * 64)
            t = tack.thread_id()
            for e in range(128 * 64 // 256):
                s = t + 256 * e
                As[tack.wgmma_index(As, s // 64, s % 64, "swizzle128")] = A[s // 64, s % 64]
            for e in range(NT * 64 // 256):
                s = t + 256 * e  # B transposed: row c of Bs is column c of B
                Bs[tack.wgmma_index(Bs, s % NT, s // NT, "swizzle128")] = B[s // NT, s % NT]
            tack.barrier()
            acc = tack.wgmma_zeros(NT)
            wg = t // 128
            for k0 in range(0, 64, 16):
                tack.wgmma(acc, As, tack.wgmma_index(As, 64 * wg, k0, "swizzle128"), Bs,
                           tack.wgmma_index(Bs, 0, k0, "swizzle128"), "swizzle128")
            tack.wgmma_commit()
            tack.wgmma_wait(0)
            tack.wgmma_store(acc, D, 64 * wg, 0)
    return tile


def _tile_interleaved(NT):
    @tack.kernel
    def tile(A, B, D, count):
        for i in range(count):
            As = tack.shared_like(A, 128 * 64)
            Bs = tack.shared_like(B, NT * 64)
            t = tack.thread_id()
            for e in range(128 * 64 // 256):
                s = t + 256 * e
                As[tack.wgmma_index(As, s // 64, s % 64, "interleave")] = A[s // 64, s % 64]
            for e in range(NT * 64 // 256):
                s = t + 256 * e
                Bs[tack.wgmma_index(Bs, s % NT, s // NT, "interleave")] = B[s // NT, s % NT]
            tack.barrier()
            acc = tack.wgmma_zeros(NT)
            wg = t // 128
            for k0 in range(0, 64, 16):
                tack.wgmma(acc, As, tack.wgmma_index(As, 64 * wg, k0, "interleave"), Bs,
                           tack.wgmma_index(Bs, 0, k0, "interleave"), "interleave")
            tack.wgmma_commit()
            tack.wgmma_wait(0)
            tack.wgmma_store(acc, D, 64 * wg, 0)
    return tile


def _tile_tf32_swizzled(NT):
    @tack.kernel
    def tile(A, B, D, count):
        for i in range(count):
            As = tack.shared(tack.f32, 128 * 32)
            Bs = tack.shared(tack.f32, NT * 32)
            t = tack.thread_id()
            for e in range(128 * 32 // 256):
                s = t + 256 * e
                As[tack.wgmma_index(As, s // 32, s % 32, "swizzle128")] = A[s // 32, s % 32]
            for e in range(NT * 32 // 256):
                s = t + 256 * e
                Bs[tack.wgmma_index(Bs, s % NT, s // NT, "swizzle128")] = B[s // NT, s % NT]
            tack.barrier()
            acc = tack.wgmma_zeros(NT)
            wg = t // 128
            for k0 in range(0, 32, 8):
                tack.wgmma(acc, As, tack.wgmma_index(As, 64 * wg, k0, "swizzle128"), Bs,
                           tack.wgmma_index(Bs, 0, k0, "swizzle128"), "swizzle128", "tf32")
            tack.wgmma_commit()
            tack.wgmma_wait(0)
            tack.wgmma_store(acc, D, 64 * wg, 0)
    return tile


def _tile_tf32_interleaved(NT):
    @tack.kernel
    def tile(A, B, D, count):
        for i in range(count):
            As = tack.shared(tack.f32, 128 * 32)
            Bs = tack.shared(tack.f32, NT * 32)
            t = tack.thread_id()
            for e in range(128 * 32 // 256):
                s = t + 256 * e
                As[tack.wgmma_index(As, s // 32, s % 32, "interleave")] = A[s // 32, s % 32]
            for e in range(NT * 32 // 256):
                s = t + 256 * e
                Bs[tack.wgmma_index(Bs, s % NT, s // NT, "interleave")] = B[s // NT, s % NT]
            tack.barrier()
            acc = tack.wgmma_zeros(NT)
            wg = t // 128
            for k0 in range(0, 32, 8):
                tack.wgmma(acc, As, tack.wgmma_index(As, 64 * wg, k0, "interleave"), Bs,
                           tack.wgmma_index(Bs, 0, k0, "interleave"), "interleave", "tf32")
            tack.wgmma_commit()
            tack.wgmma_wait(0)
            tack.wgmma_store(acc, D, 64 * wg, 0)
    return tile


@tack.kernel
def tiled_matmul(A, B, C, n):
    """C = A @ B for f16 or bf16 A (M×K) and B (K×N), f32 C, any M, N, K: one workgroup per
    128×64 block of C."""
    for i in range(n):
        M, K = A.shape
        N = B.shape[1]
        As = tack.shared_like(A, 128 * 64)  # 128 rows of 64 k, swizzled
        Bs = tack.shared_like(B, 64 * 64)  # 64 columns of B, as rows of 64 k
        Cs = tack.shared(tack.f32, 64 * 64)  # one warpgroup's 64×64 piece at a time
        t = tack.thread_id()
        g = i // 256
        blocks_n = (N + 63) // 64
        row0 = g // blocks_n * 128
        col0 = g % blocks_n * 64
        wg = t // 128
        acc = tack.wgmma_zeros(64)
        for k0 in range(0, K, 64):
            for e in range(32):  # A's 128×64 slab, zero past the edges
                s = t + 256 * e
                r, c = row0 + s // 64, k0 + s % 64
                As[tack.wgmma_index(As, s // 64, s % 64, "swizzle128")] = (
                    A[r, c] if r < M and c < K else 0.0)
            for e in range(16):  # B's 64×64 slab, transposed
                s = t + 256 * e
                r, c = k0 + s // 64, col0 + s % 64
                Bs[tack.wgmma_index(Bs, s % 64, s // 64, "swizzle128")] = (
                    B[r, c] if r < K and c < N else 0.0)
            tack.barrier()  # staged before either warpgroup's wgmma reads the slabs
            for kk in range(0, 64, 16):
                tack.wgmma(acc, As, tack.wgmma_index(As, 64 * wg, kk, "swizzle128"), Bs,
                           tack.wgmma_index(Bs, 0, kk, "swizzle128"), "swizzle128")
            tack.wgmma_commit()
            tack.wgmma_wait(0)  # the slabs are read: they may be staged again
            tack.barrier()
        for half in range(2):  # each warpgroup's 64×64 piece through Cs, inside C only
            if wg == half:
                tack.wgmma_store(acc, Cs, 0, 0, 64)
            tack.barrier()
            for e in range(16):
                s = t + 256 * e
                r, c = row0 + 64 * half + s // 64, col0 + s % 64
                if r < M and c < N:
                    C[r, c] = Cs[s]
            tack.barrier()


def launch_size(m: int, n: int) -> int:
    """Lanes for tiled_matmul on an m×n C: one workgroup per 128×64 block."""
    return -(-m // BM) * -(-n // BN) * 256
