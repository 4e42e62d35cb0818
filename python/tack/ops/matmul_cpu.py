"""The portable `matmul` kernels (engines without workgroups: the native CPU engine), register
blocked, for any (batch, m, k, n):

1. `pack_panels` copies B into column panels of NR = 16, each k x 16 and contiguous, padded
   with zeros past the last column. Read in place, one step of k moves a tile to the next row of
   B, a whole row away: a tile would walk k cache lines 4 KiB apart (for n = 1024), all in the
   same few cache sets and each on its own page. The panel is read front to back.
2. `matmul_tiles`: each parallel iteration computes a 6 x 16 tile of C over the whole of k, its
   96 sums in registers (a local array indexed only by unrolled constants, which LLVM keeps in
   12 8-wide vector registers), reading per step of k six elements of A (broadcasts) and one
   row of 16 of the panel (two vector loads) for 96 multiply-adds. Neighbouring iterations take
   neighbouring row tiles of one panel, which stays in cache while A streams through.
3. `matmul_edges`: the tiles that overhang the last rows or columns, with the same sums (a row
   past m reads row m - 1 again and is not stored) and guarded stores. They are a kernel of
   their own because a guarded store beside the plain one makes LLVM's SLP vectorizer split
   the sums of every tile into narrower vectors.
"""
from __future__ import annotations

from ..constants import constant
from ..dtypes import i64
from ..frontend.inline import func
from ..intrinsics import local_array_like, select, unroll
from ..kernel import kernel
from . import _args

MR = constant(6)  # rows of a tile: 12 accumulator vectors + 2 of B + 1 broadcast of 16 registers
NR = constant(16)  # columns of a tile: two 8-wide vectors (AVX2)


@kernel
def pack_panels(b, bp, count, k, n):
    for t in range(count):  # batch * panels * k
        kk, nn, tt = i64(k), i64(n), i64(t)  # 64-bit: the panels' indices may pass 2^31
        nt = (nn + NR - 1) // NR
        zj = tt // kk  # z * nt + the panel
        j0 = (zj % nt) * NR
        src = ((zj // nt) * kk + tt % kk) * nn + j0
        for j in unroll(range(NR)):
            bp[tt * NR + j] = b[src + j] if j0 + j < nn else 0.0


@func
def _sums(a, bp, acc, ab, pb, i0, m, k):
    """acc[i * NR + j] = the sum over p of A[i0 + i, p] * panel[p, j] (64-bit indices: the
    vectorizer then sees panel[p, 0..15] as consecutive addresses)."""
    for q in unroll(range(MR * NR)):
        acc[q] = 0.0
    for p in range(k):
        brow = pb + p * NR
        for i in unroll(range(MR)):
            av = a[ab + min(i0 + i, m - 1) * k + p]
            for j in unroll(range(NR)):
                acc[i * NR + j] += av * bp[brow + j]


@kernel
def matmul_tiles(a, bp, c, count, m, k, n):
    for t in range(count):  # batch * (m // MR) * (n // NR)
        mm, kk, nn, tt = i64(m), i64(k), i64(n), i64(t)
        rt = mm // MR  # full row tiles (`matmul_edges` takes the rest)
        nt = (nn + NR - 1) // NR  # panels per matrix
        z = tt // (rt * (nn // NR))
        j = tt // rt % (nn // NR)  # row tiles fastest: neighbours share a panel
        i0 = tt % rt * MR
        acc = local_array_like(a, MR * NR)
        _sums(a, bp, acc, z * mm * kk, (z * nt + j) * kk * NR, i0, mm, kk)
        out = z * mm * nn + i0 * nn + j * NR
        for i in unroll(range(MR)):
            for q in unroll(range(NR)):
                c[out + i * nn + q] = acc[i * NR + q]


@kernel
def matmul_edges(a, bp, c, count, m, k, n, bottom, right):
    """The `bottom` tiles of the last, partial row strip (if m % MR), then the `right` tiles of
    the last, partial panel above it (if n % NR), for each of the batch."""
    for t in range(count):  # batch * (bottom + right)
        mm, kk, nn, tt = i64(m), i64(k), i64(n), i64(t)
        nt = (nn + NR - 1) // NR
        z = tt // (bottom + right)
        u = tt % (bottom + right)
        i0 = select(u < bottom, (mm // MR) * MR, (u - bottom) * MR)
        j = select(u < bottom, u, nt - 1)
        acc = local_array_like(a, MR * NR)
        _sums(a, bp, acc, z * mm * kk, (z * nt + j) * kk * NR, i0, mm, kk)
        for i in unroll(range(MR)):
            for q in unroll(range(NR)):
                if i0 + i < mm and j * NR + q < nn:
                    c[z * mm * nn + (i0 + i) * nn + j * NR + q] = acc[i * NR + q]


def panel_size(batch: int, k: int, n: int) -> int:
    """Elements of the packed copy of B that `pack_panels` writes."""
    return batch * -(-n // int(NR)) * k * int(NR)


def edge_tiles(m: int, n: int) -> tuple[int, int]:
    """(bottom, right): the tiles `matmul_edges` takes per matrix."""
    nt = -(-n // int(NR))
    return (nt if m % int(MR) else 0), (m // int(MR) if n % int(NR) else 0)


def run(a, b, c, batch: int, m: int, k: int, n: int) -> None:
    """c = a @ b (flat arrays of batch matrices) by the three kernels; the panel buffer is kept
    between calls of one shape (`_args.kept`: no allocation and zero-fill per call)."""
    size = panel_size(batch, k, n)
    bp = _args.kept(a.device, a.dtype, "matmul panels", size)
    pack_panels(b, bp, size // int(NR), k, n)
    full = batch * (m // int(MR)) * (n // int(NR))
    if full:
        matmul_tiles(a, bp, c, full, m, k, n)
    bottom, right = edge_tiles(m, n)
    if bottom + right:
        matmul_edges(a, bp, c, batch * (bottom + right), m, k, n, bottom, right)
