"""The portable `matmul` kernels (engines without workgroups: the native CPU engine), register
blocked, for any (batch, m, k, n):

1. `pack_panels` copies B into column panels of NR columns (16 in float32, 8 in float64: two
   AVX2 registers either way), each k x NR and contiguous, padded with zeros past the last
   column. Read in place, one step of k moves a tile to the next row of B, a whole row away:
   a tile would walk k cache lines 4 KiB apart (for n = 1024), all in the same few cache sets
   and each on its own page. The panel is read front to back.
2. `matmul_tiles`: each parallel iteration computes a 6 x NR tile of C over the whole of k, its
   6 NR sums in registers (a local array indexed only by unrolled constants, which LLVM keeps
   in 12 vector registers), reading per step of k six elements of A (broadcasts) and one row of
   NR of the panel (two vector loads) for 6 NR multiply-adds. Neighbouring iterations take
   neighbouring row tiles of one panel, which stays in cache while A streams through.
3. `matmul_edges`: the tiles that overhang the last rows or columns, with the same sums (a row
   past m reads row m - 1 again and is not stored) and guarded stores. They are a kernel of
   their own because a guarded store beside the plain one makes LLVM's SLP vectorizer split
   the sums of every tile into narrower vectors.
"""
from __future__ import annotations

from ..constants import constant
from ..dtypes import f32, f64, i64
from ..frontend.inline import func
from ..intrinsics import local_array_like, select, unroll
from ..kernel import kernel
from . import _args

MR = constant(6)  # rows of a tile: 12 accumulator vectors + 2 of B + 1 broadcast of 16 registers


def _pack_kernel(NR):
    """The packing kernel for panels of `NR` (a tack.constant) columns."""

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
    return pack_panels


def _tile_kernels(NR):
    """(matmul_tiles, matmul_edges) for panels of `NR` (a tack.constant) columns."""

    @func
    def sums(a, bp, acc, ab, pb, i0, m, k):
        """acc[i * NR + j] = the sum over p of A[i0 + i, p] * panel[p, j] (64-bit indices: the
        vectorizer then sees panel[p, 0..NR-1] as consecutive addresses)."""
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
            sums(a, bp, acc, z * mm * kk, (z * nt + j) * kk * NR, i0, mm, kk)
            out = z * mm * nn + i0 * nn + j * NR
            for i in unroll(range(MR)):
                for q in unroll(range(NR)):
                    c[out + i * nn + q] = acc[i * NR + q]

    @kernel
    def matmul_edges(a, bp, c, count, m, k, n, bottom, right):
        """The `bottom` tiles of the last, partial row strip (if m % MR), then the `right`
        tiles of the last, partial panel above it (if n % NR), for each of the batch."""
        for t in range(count):  # batch * (bottom + right)
            mm, kk, nn, tt = i64(m), i64(k), i64(n), i64(t)
            nt = (nn + NR - 1) // NR
            z = tt // (bottom + right)
            u = tt % (bottom + right)
            i0 = select(u < bottom, (mm // MR) * MR, (u - bottom) * MR)
            j = select(u < bottom, u, nt - 1)
            acc = local_array_like(a, MR * NR)
            sums(a, bp, acc, z * mm * kk, (z * nt + j) * kk * NR, i0, mm, kk)
            for i in unroll(range(MR)):
                for q in unroll(range(NR)):
                    if i0 + i < mm and j * NR + q < nn:
                        c[z * mm * nn + (i0 + i) * nn + j * NR + q] = acc[i * NR + q]
    return matmul_tiles, matmul_edges


def _kernels(nr: int):
    NR = constant(nr)
    return (nr, _pack_kernel(NR)) + _tile_kernels(NR)


KERNELS = {f32: _kernels(16), f64: _kernels(8)}  # (NR, pack, tiles, edges) by dtype


def panel_size(batch: int, k: int, n: int, nr: int = 16) -> int:
    """Elements of the packed copy of B that `pack_panels` writes."""
    return batch * -(-n // nr) * k * nr


def edge_tiles(m: int, n: int, nr: int = 16) -> tuple[int, int]:
    """(bottom, right): the tiles `matmul_edges` takes per matrix."""
    nt = -(-n // nr)
    return (nt if m % int(MR) else 0), (m // int(MR) if n % nr else 0)


def run(a, b, c, batch: int, m: int, k: int, n: int) -> None:
    """c = a @ b (flat arrays of batch matrices) by the three kernels; the panel buffer is kept
    between calls of one shape (`_args.kept`: no allocation and zero-fill per call)."""
    nr, pack, tiles, edges = KERNELS[a.dtype]
    size = panel_size(batch, k, n, nr)
    bp = _args.kept(a.device, a.dtype, "matmul panels", size)
    pack(b, bp, size // nr, k, n)
    full = batch * (m // int(MR)) * (n // nr)
    if full:
        tiles(a, bp, c, full, m, k, n)
    bottom, right = edge_tiles(m, n, nr)
    if bottom + right:
        edges(a, bp, c, batch * (bottom + right), m, k, n, bottom, right)
