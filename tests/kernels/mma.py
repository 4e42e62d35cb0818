"""Kernels and the NumPy reference the MMA tests share (tests/exec/test_mma.py, the PTX checks of
tests/cuda/test_mma_ptx.py, tests/check/test_mma_check.py, the Julia rendering checks).

`reference_mma` is the accumulation order docs/language.md documents, written independently of
the simulator: exact rational arithmetic (`fractions.Fraction`) for each product and sum, and a
hand-written round-to-nearest-even to f32 after each addition.
"""
from fractions import Fraction

import numpy as np
import tack

W = tack.WARP_SIZE


def round_f32(x: Fraction) -> float:
    """The f32 nearest to `x` (ties to even), by integer arithmetic; overflow is ±inf."""
    if x == 0:
        return 0.0
    sign, m = (-1 if x < 0 else 1), abs(x)
    e = m.numerator.bit_length() - m.denominator.bit_length()  # 2**e <= m < 2**(e + 2)
    if Fraction(2) ** e > m:
        e -= 1
    e = max(e, -126)  # below the normal range the spacing stays 2**-149
    scale = Fraction(2) ** (23 - e)
    q, r = divmod(m * scale, 1)
    if r > Fraction(1, 2) or (r == Fraction(1, 2) and q % 2):
        q += 1
    v = float(q) * 2.0 ** (e - 23)
    return sign * (v if v < 2.0 ** 128 else float("inf"))


def reference_mma(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """D = A @ B + C of one tile: d = c; for k in order d = round_f32(d + a[m, k] * b[k, n])."""
    m, kk = a.shape
    n = b.shape[1]
    out = np.zeros((m, n), np.float32)
    af = [[Fraction(float(v)) for v in row] for row in a.astype(np.float64)]
    bf = [[Fraction(float(v)) for v in row] for row in b.astype(np.float64)]
    for i in range(m):
        for j in range(n):
            d = float(c[i, j])
            for k in range(kk):
                d = round_f32(Fraction(d) + af[i][k] * bf[k][j])
            out[i, j] = d
    return out


def to_tf32(x: np.ndarray) -> np.ndarray:
    """f32 values rounded to TF32: nearest, ties away from zero (PTX's cvt.rna.tf32.f32); an
    infinity kept, a NaN quieted with its top ten fraction bits (docs/language.md, "TF32")."""
    bits = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    r = (((bits + 0x1000) & 0xFFFFE000) & 0xFFFFFFFF).astype(np.uint32).view(np.float32)
    nan = ((bits | 0x400000) & 0xFFFFE000).astype(np.uint32).view(np.float32)
    return np.where(np.isnan(x), nan, r)


@tack.kernel
def tile_mma(A, B, C, D, n):
    """Warp w: D[16w:16w+16] = A[16w:16w+16] @ B[kw:kw+k] + C[16w:16w+16] (f16/bf16, k = 16)."""
    for i in range(n):
        w = i // 32
        acc = tack.mma_load_acc(C, w * 16, 0)
        a = tack.mma_load_a(A, w * 16, 0)
        b = tack.mma_load_b(B, w * 16, 0)
        tack.mma_store(tack.mma(a, b, acc), D, w * 16, 0)


@tack.kernel
def tile_mma_tf32(A, B, C, D, n):
    """tile_mma for f32 inputs multiplied as TF32 (k = 8)."""
    for i in range(n):
        w = i // 32
        acc = tack.mma_load_acc(C, w * 16, 0)
        a = tack.mma_load_a(A, w * 16, 0)
        b = tack.mma_load_b(B, w * 8, 0)
        tack.mma_store(tack.mma(a, b, acc, "tf32"), D, w * 16, 0)


@tack.kernel
def tiled_matmul(A, B, C, n):
    """C = A @ B for f16 or bf16 A (M×K) and B (K×N), f32 C, any M, N, K. One workgroup per
    64×32 block of C; its 8 warps as 4×2, each computing 16×16 (two accumulators). The block's
    A and B slabs go through shared tiles, zero outside the matrices; C through a shared tile,
    stored where it lies inside."""
    for i in range(n):
        M, K = A.shape
        N = B.shape[1]
        As = tack.shared_like(A, 1024)  # 64 × 16
        Bs = tack.shared_like(B, 512)  # 16 × 32
        Cs = tack.shared(tack.f32, 2048)  # 64 × 32
        t = tack.thread_id()
        g = i // 256
        blocks_n = (N + 31) // 32
        row0 = g // blocks_n * 64
        col0 = g % blocks_n * 32
        wr = tack.warp_id() // 2 * 16
        wc = tack.warp_id() % 2 * 16
        acc0 = tack.mma_zeros()
        acc1 = tack.mma_zeros()
        for k0 in range(0, K, 16):
            for e in range(4):
                s = t + 256 * e
                r, c = row0 + s // 16, k0 + s % 16
                As[s] = A[r, c] if r < M and c < K else 0.0
            for e in range(2):
                s = t + 256 * e
                r, c = k0 + s // 32, col0 + s % 32
                Bs[s] = B[r, c] if r < K and c < N else 0.0
            tack.barrier()
            a = tack.mma_load_a(As, wr, 0, 16)
            acc0 = tack.mma(a, tack.mma_load_b(Bs, 0, wc, 32), acc0)
            acc1 = tack.mma(a, tack.mma_load_b(Bs, 0, wc + 8, 32), acc1)
            tack.barrier()
        tack.mma_store(acc0, Cs, wr, wc, 32)
        tack.mma_store(acc1, Cs, wr, wc + 8, 32)
        tack.barrier()
        for e in range(8):
            s = t + 256 * e
            r, c = row0 + s // 32, col0 + s % 32
            if r < M and c < N:
                C[r, c] = Cs[s]


@tack.kernel
def tiled_matmul_tf32(A, B, C, n):
    """tiled_matmul for f32 A and B, multiplied as TF32 (k steps of 8)."""
    for i in range(n):
        M, K = A.shape
        N = B.shape[1]
        As = tack.shared(tack.f32, 512)  # 64 × 8
        Bs = tack.shared(tack.f32, 256)  # 8 × 32
        Cs = tack.shared(tack.f32, 2048)
        t = tack.thread_id()
        g = i // 256
        blocks_n = (N + 31) // 32
        row0 = g // blocks_n * 64
        col0 = g % blocks_n * 32
        wr = tack.warp_id() // 2 * 16
        wc = tack.warp_id() % 2 * 16
        acc0 = tack.mma_zeros()
        acc1 = tack.mma_zeros()
        for k0 in range(0, K, 8):
            for e in range(2):
                s = t + 256 * e
                r, c = row0 + s // 8, k0 + s % 8
                As[s] = A[r, c] if r < M and c < K else 0.0
            r, c = k0 + t // 32, col0 + t % 32
            Bs[t] = B[r, c] if r < K and c < N else 0.0
            tack.barrier()
            a = tack.mma_load_a(As, wr, 0, 8)
            acc0 = tack.mma(a, tack.mma_load_b(Bs, 0, wc, 32), acc0, "tf32")
            acc1 = tack.mma(a, tack.mma_load_b(Bs, 0, wc + 8, 32), acc1, "tf32")
            tack.barrier()
        tack.mma_store(acc0, Cs, wr, wc, 32)
        tack.mma_store(acc1, Cs, wr, wc + 8, 32)
        tack.barrier()
        for e in range(8):
            s = t + 256 * e
            r, c = row0 + s // 32, col0 + s % 32
            if r < M and c < N:
                C[r, c] = Cs[s]


def launch_size(m: int, n: int) -> int:
    """Lanes for tiled_matmul's grid: one 256-lane workgroup per 64×32 block of C."""
    return -(-m // 64) * -(-n // 32) * 256
