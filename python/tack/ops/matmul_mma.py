"""The tensor-core `matmul` kernels (engines that run `tack.mma`: CUDA sm_80 and newer, the
simulator), written with the kernel language's warp MMA (docs/language.md, "Matrix
multiply-accumulate"): f16 and bf16 inputs through `mma.sync.m16n8k16`, f32 inputs with
precision="tf32" through `m16n8k8.tf32`, every sum in f32 and the result rounded once to the
output's dtype.

The structure is the one CUTLASS's and Triton's sm_80 GEMMs share (ours is written here):
- a 256-lane workgroup computes a 128 × 128 tile of C; its 8 warps form a 2 × 4 grid, each
  warp a 64 × 32 piece held in 16 accumulator fragments (4 tiles of 16 rows by 4 of 8 columns:
  64 f32 registers a lane), so each A fragment serves 4 MMAs and each B fragment 4;
- k advances in slabs (32 of f16/bf16, 16 of f32: 16 KiB of A and B a slab), staged through
  two shared buffers by `tack.async_copy` of 16 bytes a lane (`cp.async.cg`): the next slab's
  copies are in flight while the warps multiply the current one (docs/language.md,
  "Asynchronous copies", the double-buffered loop);
- the shared tiles are padded so that the fragment loads hit 32 distinct banks: A's rows hold
  a slab plus 16 bytes (40 halves, 20 floats), so `ldmatrix`'s eight 16-byte rows (or the
  plain loads of a TF32 fragment) start 80 bytes apart, on 8 distinct groups of 4 banks; B's
  rows hold 128 + 8 elements (272 or 544 bytes) for the same reason. The f16/bf16 fragments are
  `ldmatrix.x4` (A) and `ldmatrix.x2.trans` (B, stored K × N): their row addresses are
  multiples of 8 elements by construction (render/llvm/ptx_ldmatrix.py proves it). Both
  buffers take 37,888 bytes, under the 48 KiB a kernel's static shared memory may hold;
- edges are zeros: a 16-byte piece of A or B that lies wholly inside its matrix, at an index
  that is a multiple of its element count (a row length k or n that is a multiple of 8, or 4
  for f32), is copied asynchronously; any other piece is written by the lane itself, element
  by element, as the value or 0 past the matrix. Any m, n, k (k = 1, primes) and batch work.
  Where k and n are multiples of the piece, a piece is wholly inside or wholly outside, and a
  second specialization (`stage_whole`, the kernel's `stage` argument) leaves the element-wise
  loads out of the slab loop;
- C leaves through shared memory (the A buffers, free after the last slab): each warp stores
  one row of its accumulators (16 × 32, converted to C's dtype, the one rounding) at a time,
  and the workgroup copies the 128 × 128 tile out row by row (coalesced), the elements past
  m or n skipped.
"""
from __future__ import annotations

from ..constants import constant
from ..frontend.inline import func
from ..intrinsics import (
    async_commit,
    async_copy,
    async_wait,
    barrier,
    mma,
    mma_load_a,
    mma_load_b,
    mma_store,
    mma_zeros,
    shared_like,
    thread_id,
    unroll,
    warp_id,
)
from ..kernel import kernel

TILE = constant(128)  # rows and columns of C per workgroup
LDC = constant(40)  # row stride of the 16 × 32 pieces of C staged per warp in the A buffers


@func
def _mma_half(a, b, acc):
    return mma(a, b, acc)


@func
def _mma_tf32(a, b, acc):
    return mma(a, b, acc, "tf32")


@func
def _row(mul, a, b0, b1, b2, b3, x0, x1, x2, x3):
    """One A fragment times the warp's four B fragments, into one row of its accumulators."""
    return mul(a, b0, x0), mul(a, b1, x1), mul(a, b2, x2), mul(a, b3, x3)


@func
def _out_row(As, c, x0, x1, x2, x3, z, m, n, i0, j0, lane):
    """Row `i0` (16 rows) of each warp's accumulators x0..x3 (columns j0.. of 32) into C:
    staged in the A buffers as C's dtype, then copied out by the workgroup."""
    barrier()  # every lane is done with the buffers (the last slab, the previous row)
    w = warp_id()
    mma_store(x0, As, w * 16, 0, LDC)
    mma_store(x1, As, w * 16, 8, LDC)
    mma_store(x2, As, w * 16, 16, LDC)
    mma_store(x3, As, w * 16, 24, LDC)
    barrier()
    for e in unroll(range(16)):
        s = lane + 256 * e  # warp s // 512's piece, row s // 32 % 16, column s % 32
        v = s // 512
        i = i0 + v // 4 * 64 + s // 32 % 16
        j = j0 + v % 4 * 32 + s % 32
        if i < m and j < n:
            c[(z * m + i) * n + j] = As[v * 16 * LDC + s // 32 % 16 * LDC + s % 32]


def _kernel(tf32: bool):
    """The tile kernel for f32 inputs multiplied as TF32 (`tf32`) or for f16/bf16 inputs."""
    BK = constant(16 if tf32 else 32)  # k per slab
    KS = constant(8 if tf32 else 16)  # k per MMA
    CH = constant(4 if tf32 else 8)  # elements per 16-byte copy
    LDA = constant(20 if tf32 else 40)  # A's row stride: the slab plus 16 bytes
    LDB = constant(136)  # B's row stride: 128 columns plus 8
    RA = constant(4)  # 16-byte pieces per row of A's slab (BK // CH)
    RB = constant(32 if tf32 else 16)  # ... per row of B's slab (TILE // CH)
    mul = _mma_tf32 if tf32 else _mma_half

    @func
    def stage_whole(a, b, As, Bs, buf, z, m, k, n, i0, j0, p0, lane):
        """`stage_any` where k and n are multiples of CH: a piece then lies wholly inside its
        matrix, at a multiple of its size (copied asynchronously), or wholly outside (zeros),
        so the slab loop holds no element-wise loads."""
        for h in unroll(range(2)):
            q = lane + 256 * h
            row = q // RA
            kc = q % RA * CH
            dst = (buf * TILE + row) * LDA + kc
            if i0 + row < m and p0 + kc < k:
                async_copy(As, dst, a, (z * m + i0 + row) * k + p0 + kc, CH)
            else:
                for e in unroll(range(CH)):
                    As[dst + e] = 0.0
            kr = q // RB
            nc = q % RB * CH
            dst = (buf * BK + kr) * LDB + nc
            if p0 + kr < k and j0 + nc < n:
                async_copy(Bs, dst, b, (z * k + p0 + kr) * n + j0 + nc, CH)
            else:
                for e in unroll(range(CH)):
                    Bs[dst + e] = 0.0

    @func
    def stage_any(a, b, As, Bs, buf, z, m, k, n, i0, j0, p0, lane):
        """A's 128 × BK slab at (i0, p0) and B's BK × 128 slab at (p0, j0) into buffer `buf`,
        two 16-byte pieces of each per lane: copied asynchronously where the piece lies inside
        its matrix at a multiple of its size, else stored here, zero past the matrix."""
        for h in unroll(range(2)):
            q = lane + 256 * h
            row = q // RA
            kc = q % RA * CH
            dst = (buf * TILE + row) * LDA + kc
            src = (z * m + i0 + row) * k + p0 + kc
            if i0 + row < m and p0 + kc + CH <= k and k % CH == 0:
                async_copy(As, dst, a, src, CH)
            else:
                for e in unroll(range(CH)):
                    As[dst + e] = a[src + e] if i0 + row < m and p0 + kc + e < k else 0.0
            kr = q // RB
            nc = q % RB * CH
            dst = (buf * BK + kr) * LDB + nc
            src = (z * k + p0 + kr) * n + j0 + nc
            if p0 + kr < k and j0 + nc + CH <= n and n % CH == 0:
                async_copy(Bs, dst, b, src, CH)
            else:
                for e in unroll(range(CH)):
                    Bs[dst + e] = b[src + e] if p0 + kr < k and j0 + nc + e < n else 0.0

    @kernel
    def matmul_mma(a, b, c, batch, m, k, n, stage):
        for t in range(batch * ((m + 127) // 128) * ((n + 127) // 128) * 256):
            tn = (n + 127) // 128
            tiles = ((m + 127) // 128) * tn
            g = t // 256
            lane = thread_id()
            z = g // tiles
            i0 = (g % tiles) // tn * 128
            j0 = (g % tiles) % tn * 128
            As = shared_like(a, 2 * TILE * LDA)
            Bs = shared_like(b, 2 * BK * LDB)
            wm = warp_id() // 4 * 64  # this warp's 64 × 32 piece of the tile
            wn = warp_id() % 4 * 32
            c00, c01, c02, c03 = mma_zeros(), mma_zeros(), mma_zeros(), mma_zeros()
            c10, c11, c12, c13 = mma_zeros(), mma_zeros(), mma_zeros(), mma_zeros()
            c20, c21, c22, c23 = mma_zeros(), mma_zeros(), mma_zeros(), mma_zeros()
            c30, c31, c32, c33 = mma_zeros(), mma_zeros(), mma_zeros(), mma_zeros()
            slabs = (k + BK - 1) // BK
            stage(a, b, As, Bs, 0, z, m, k, n, i0, j0, 0, lane)
            async_commit()
            for kt in range(slabs):
                buf = kt % 2
                if kt + 1 < slabs:  # the next slab, in flight while this one is multiplied
                    stage(a, b, As, Bs, 1 - buf, z, m, k, n, i0, j0, (kt + 1) * BK, lane)
                async_commit()
                async_wait(1)  # this lane's copies of slab kt have landed
                barrier()  # ... and every lane's
                for ks in unroll(range(2)):
                    b0 = mma_load_b(Bs, buf * BK + ks * KS, wn, LDB)
                    b1 = mma_load_b(Bs, buf * BK + ks * KS, wn + 8, LDB)
                    b2 = mma_load_b(Bs, buf * BK + ks * KS, wn + 16, LDB)
                    b3 = mma_load_b(Bs, buf * BK + ks * KS, wn + 24, LDB)
                    a0 = mma_load_a(As, buf * TILE + wm, ks * KS, LDA)
                    c00, c01, c02, c03 = _row(mul, a0, b0, b1, b2, b3, c00, c01, c02, c03)
                    a1 = mma_load_a(As, buf * TILE + wm + 16, ks * KS, LDA)
                    c10, c11, c12, c13 = _row(mul, a1, b0, b1, b2, b3, c10, c11, c12, c13)
                    a2 = mma_load_a(As, buf * TILE + wm + 32, ks * KS, LDA)
                    c20, c21, c22, c23 = _row(mul, a2, b0, b1, b2, b3, c20, c21, c22, c23)
                    a3 = mma_load_a(As, buf * TILE + wm + 48, ks * KS, LDA)
                    c30, c31, c32, c33 = _row(mul, a3, b0, b1, b2, b3, c30, c31, c32, c33)
                barrier()  # every warp has read buffer `buf` before it is refilled
            async_wait(0)
            _out_row(As, c, c00, c01, c02, c03, z, m, n, i0, j0, lane)
            _out_row(As, c, c10, c11, c12, c13, z, m, n, i0 + 16, j0, lane)
            _out_row(As, c, c20, c21, c22, c23, z, m, n, i0 + 32, j0, lane)
            _out_row(As, c, c30, c31, c32, c33, z, m, n, i0 + 48, j0, lane)

    return matmul_mma, stage_whole, stage_any


# (kernel, stage for k and n multiples of a 16-byte piece, stage for any k and n)
KERNELS = {"half": _kernel(False), "tf32": _kernel(True)}


def launch(a, b, c, batch: int, m: int, k: int, n: int, sizes=lambda *v: v) -> tuple:
    """(kernel, arguments) computing c = a @ b (`batch` matrices, f16/bf16, or f32 multiplied
    as TF32) on tensor cores, one workgroup per 128 × 128 tile of C: the slab stage without
    element-wise loads where k and n are multiples of a 16-byte piece (a second
    specialization); `sizes` gives the integers the kernel's index width (ops._args.sizes)."""
    key = "tf32" if a.dtype.bits == 32 else "half"
    piece = 16 // a.dtype.itemsize
    kern, whole, any_ = KERNELS[key]
    stage = whole if k % piece == 0 and n % piece == 0 else any_
    return kern, (a, b, c, *sizes(batch, m, k, n), stage)


def run(a, b, c, batch: int, m: int, k: int, n: int, sizes) -> None:
    """c = a @ b by the tensor-core kernel (`launch`)."""
    kern, args = launch(a, b, c, batch, m, k, n, sizes)
    kern(*args)
