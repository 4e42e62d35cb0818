"""The Hopper `matmul` kernels (engines whose device runs the warpgroup MMA as a library path:
CUDA sm_90, the simulator when asked, `capabilities.runs_wgmma`), written with the kernel
language's `tack.wgmma` (docs/language.md, "Warpgroup MMA"): f16 and bf16 inputs through
`wgmma.m64n128k16`, f32 inputs with precision="tf32" through `m64n128k8.tf32`, every sum in f32
and each result rounded once to the output's dtype.

The structure follows the sm90 mainloops of CUTLASS (include/cutlass/gemm/collective/ of
https://github.com/NVIDIA/cutlass, sm90_mma_multistage_gmma_ss_warpspecialized.hpp) and
Triton's Hopper matmul (ours is written here):
- a 256-lane workgroup computes a 128 × 128 tile of C (WIDTH); each of its two warpgroups owns
  a 64 × 128 half in one wgmma accumulator (64 f32 registers a lane);
- k advances in slabs of 128 bytes a row (64 f16/bf16 or 32 f32 elements), A's 128 rows and
  B's 128 columns staged in the `swizzle128` layout (`tack.wgmma_index`) through a ring of
  STAGES = 4 shared stages of 32 KiB. The copies are `tack.async_copy` of the 16-byte chunks,
  each to its swizzled place: a chunk is contiguous in the layout, and the swizzle permutes
  whole chunks (the TMA tile below lets the copy engine swizzle instead);
- the pipeline, per slab kt: wait for this lane's copies of slab kt (`tack.async_wait(1)`:
  slab kt + 1 may stay in flight), a `tack.barrier()` (every lane's copies have landed, and
  both warpgroups have passed the `tack.wgmma_wait(1)` that retired slab kt - 2), the copies of
  slab kt + 2 into the stage slab kt - 2 left, then the wgmmas of slab kt, one commit, and
  `tack.wgmma_wait(1)`: the MMAs of slab kt stay in flight while the next iteration waits for
  its copies, those of slab kt - 1 are done. So two slabs load while one multiplies. The one
  barrier a slab stands for the full and empty transaction barriers of CUTLASS's
  warp-specialized pipeline: here every lane both copies and multiplies (a `tack.async_copy`
  completes no transaction barrier, and the simulator runs no warp specialization:
  docs/pipelines.md, "What the simulator runs");
- B is read K-major (a wgmma's B tile holds B's columns as rows), so the op hands the kernel
  Bᵀ: a (batch, n, kp) copy that `_transposed` writes. kp is k rounded up to a chunk (8 f16/bf16,
  4 f32): a row then holds whole chunks, each inside the matrix or past it. A is read as it is
  where k is a multiple of a chunk, else from a copy padded with zeros (`_padded`); for
  precision="tf32" both copies are rounded to TF32 (`tack.tf32`), so that the MMA's truncation
  of its f32 operands drops only zeros;
- edges are zeros: a chunk past m, n or kp is stored as zeros by its lane, so every wgmma reads
  a whole tile; the zeros add nothing to a sum (d + 0 = d for every d but -0, and d starts at +0);
- C leaves through shared memory (the ring, free after the last slab): each warpgroup stores
  its accumulator converted to C's dtype (the one rounding) with `tack.wgmma_store`, and the
  workgroup copies the 128 × 128 tile out row by row, coalesced, the elements past m or n
  skipped;
- tiles are visited in groups of GROUP row tiles (Triton's "grouped ordering"), so that a
  wave of workgroups reads fewer distinct rows of A and columns of B and keeps them in L2.

The TMA tile (`tma_tile_kernel`, not ops.matmul's default; bench/ops.py --hopper-tiles
128x4x2tma times it) brings the slabs with tensor copies (`tack.async_tensor_copy`, the TMA:
docs/language.md "Transaction barriers"), as CUTLASS's sm90 `KernelTma` mainloop
(sm90_mma_tma_gmma_ss.hpp) and Triton's Hopper matmul do:
- the kernel reads A as a 2-D (batch·m, kp) array and Bᵀ as a (batch·n, kp) one (`launch` gives
  these views); lane 0 starts the copies of slab kt + AHEAD, A's 128 × BK box at (z·m + i0, p0)
  and Bᵀ's BN × BK box at (z·n + j0, p0), into the stage's swizzle128 tiles, with one
  `tack.mbarrier_arrive_tx` of their bytes on the stage's full barrier;
- the copy zero-fills what lies past kp, so no lane has edge code: rows past m (or n) read the
  next matrix of the batch or zeros, and reach only rows (columns) of C that are not stored;
- every lane waits on the stage's full barrier (phase kt // STAGES), the warpgroups multiply,
  and after `tack.wgmma_wait(1)` has retired slab kt - 1 every lane arrives on that stage's
  empty barrier (256 arrivals a phase); lane 0 waits on it (phase (kt + AHEAD) // STAGES - 1)
  before refilling the stage. Producer and consumers stay in one loop (the simulator runs no
  warp specialization: docs/pipelines.md, "What the simulator runs").

The ring takes 128 KiB of shared memory, more than the 48 KiB a CUDA kernel may declare
statically: the CUDA engine gives such a kernel its shared arrays as dynamic shared memory
(render/llvm/ptx_shared.py). `tile_kernel` makes other tiles (256 columns, other rings), which
bench/ops.py --gpu times beside this one.
"""
from __future__ import annotations

from ..constants import constant
from ..errors import TackValueError
from ..frontend.inline import func
from ..intrinsics import (
    async_commit,
    async_copy,
    async_tensor_copy,
    async_wait,
    barrier,
    mbarrier_arrive,
    mbarrier_arrive_tx,
    mbarrier_init,
    mbarrier_wait,
    mbarriers,
    shared_like,
    thread_id,
    unroll,
    wgmma,
    wgmma_commit,
    wgmma_index,
    wgmma_store,
    wgmma_wait,
    wgmma_zeros,
)
from ..kernel import kernel
from ..lib.tf32 import tf32
from . import _args
from ._wide import keep

GROUP = constant(8)  # row tiles per group of the tile order


@func
def _mma_half(acc, s, a0, b0, kk):
    """k-step kk of the slab whose A tile starts at a0 and B tile at b0 (rows at multiples of
    8: the offset of column kk is the same in both)."""
    at = wgmma_index(s, 0, kk, "swizzle128")
    wgmma(acc, s, a0 + at, s, b0 + at, "swizzle128")


@func
def _mma_tf32(acc, s, a0, b0, kk):
    at = wgmma_index(s, 0, kk, "swizzle128")
    wgmma(acc, s, a0 + at, s, b0 + at, "swizzle128", "tf32")


def tile_kernel(tf32_inputs: bool, stages: int = 4, ahead: int = 2, width: int = 128):
    """The tile kernel for f32 inputs multiplied as TF32 or for f16/bf16 inputs: 128 × `width`
    tiles of C (128 or 256 columns), a ring of `stages` stages, the copies `ahead` slabs ahead
    of the MMAs. `ahead` is at most `stages - 2`: the copies of slab kt + ahead go into the
    stage of slab kt + ahead - stages, whose MMAs must be done, and `tack.wgmma_wait(1)` leaves
    slab kt - 1's in flight (`stages - 1` is the race tests/ops/test_matmul_wgmma.py plants
    for tack.check to find)."""
    if not 1 <= ahead < stages or width not in (128, 256):
        raise TackValueError(f"a ring of {stages} stages holds copies 1 to {stages - 1} slabs "
                             f"ahead of the MMAs (a race past {stages - 2}), not ahead={ahead}; "
                             f"a tile is 128 or 256 wide, not {width}")
    STAGES = constant(stages)
    AHEAD = constant(ahead)
    BN = constant(width)  # columns of C per workgroup
    BK = constant(32 if tf32_inputs else 64)  # k per slab: one 128-byte row
    KS = constant(8 if tf32_inputs else 16)  # k per wgmma
    CH = constant(4 if tf32_inputs else 8)  # elements per 16-byte chunk
    SLAB_A = constant(128 * (32 if tf32_inputs else 64))  # elements of A's slab
    SLAB_B = constant(width * (32 if tf32_inputs else 64))  # ... and of Bᵀ's
    LDC = constant(width + (4 if tf32_inputs else 8))  # C's staged rows: plus 16 bytes
    mul = _mma_tf32 if tf32_inputs else _mma_half

    @func
    def chunk(s, dst, x, src, inside):
        """One 16-byte chunk into `s` at `dst`: copied asynchronously from `x` at `src` where
        it lies inside its matrix, else zeros."""
        if inside:
            async_copy(s, dst, x, src, CH)
        else:
            for e in unroll(range(CH)):
                s[dst + e] = 0.0

    @func
    def stage(a, bt, s, slot, z, m, kp, n, i0, j0, p0, lane):
        """A's 128 × BK slab at (i0, p0) and Bᵀ's BN × BK slab at (j0, p0) into stage `slot`
        (A's ring first, then Bᵀ's): 4 and BN / 32 16-byte chunks per lane."""
        for h in unroll(range(4)):
            q = lane + 256 * h
            row, kc = q // 8, q % 8 * CH
            chunk(s, slot * SLAB_A + wgmma_index(s, row, kc, "swizzle128"), a,
                  (z * m + i0 + row) * kp + p0 + kc, i0 + row < m and p0 + kc < kp)
        for h in unroll(range(BN // 32)):
            q = lane + 256 * h
            row, kc = q // 8, q % 8 * CH
            chunk(s, STAGES * SLAB_A + slot * SLAB_B + wgmma_index(s, row, kc, "swizzle128"),
                  bt, (z * n + j0 + row) * kp + p0 + kc, j0 + row < n and p0 + kc < kp)

    @kernel
    def matmul_wgmma(a, bt, c, batch, m, kp, n):
        for t in range(batch * ((m + 127) // 128) * ((n + BN - 1) // BN) * 256):
            tm = (m + 127) // 128
            tn = (n + BN - 1) // BN
            g = t // 256
            lane = thread_id()
            z = g // (tm * tn)
            r = g % (tm * tn)
            first = r // (GROUP * tn) * GROUP  # the group's first row tile
            rows = min(tm - first, GROUP)
            i0 = (first + r % (GROUP * tn) % rows) * 128
            j0 = r % (GROUP * tn) // rows * BN
            s = shared_like(a, STAGES * (SLAB_A + SLAB_B))  # A's ring, then Bᵀ's
            wg = lane // 128  # this warpgroup's rows of the tile: 64 wg ..
            acc = wgmma_zeros(BN)
            slabs = (kp + BK - 1) // BK
            for p in unroll(range(AHEAD)):  # the prologue: slabs 0 .. AHEAD - 1
                if p < slabs:
                    stage(a, bt, s, p, z, m, kp, n, i0, j0, p * BK, lane)
                async_commit()
            for kt in range(slabs):
                async_wait(AHEAD - 1)  # this lane's copies of slab kt have landed
                barrier()  # ... and every lane's; slab kt - 2's wgmmas are done
                nxt = kt + AHEAD
                if nxt < slabs:  # into the stage slab kt + AHEAD - STAGES left
                    stage(a, bt, s, nxt % STAGES, z, m, kp, n, i0, j0, nxt * BK, lane)
                async_commit()
                slot = kt % STAGES
                a0 = slot * SLAB_A + wgmma_index(s, 64 * wg, 0, "swizzle128")
                b0 = STAGES * SLAB_A + slot * SLAB_B
                for kk in unroll(range(BK // KS)):
                    mul(acc, s, a0, b0, kk * KS)
                wgmma_commit()
                wgmma_wait(1)  # slab kt's MMAs in flight, slab kt - 1's done
            wgmma_wait(0)
            async_wait(0)
            barrier()  # both warpgroups are done with the ring
            wgmma_store(acc, s, 64 * wg, 0, LDC)
            barrier()
            for e in unroll(range(BN // 2)):
                q = lane + 256 * e
                i = i0 + q // BN
                j = j0 + q % BN
                if i < m and j < n:
                    c[(z * m + i) * n + j] = s[q // BN * LDC + q % BN]

    return matmul_wgmma


def tma_tile_kernel(tf32_inputs: bool, stages: int = 4, ahead: int = 2, width: int = 128):
    """`tile_kernel`'s tile, MMAs and epilogue with the slabs brought by tensor copies (the
    module's docstring, "The TMA tile"). `ahead` is at most `stages - 2`: the slab a refill
    replaces was released in an earlier iteration, so lane 0 never waits for arrivals that
    come after it in the loop."""
    if not 1 <= ahead <= stages - 2 or width not in (128, 256):
        raise TackValueError(f"a ring of {stages} stages refilled through empty barriers holds "
                             f"copies 1 to {stages - 2} slabs ahead of the MMAs, not "
                             f"ahead={ahead}; a tile is 128 or 256 wide, not {width}")
    STAGES = constant(stages)
    AHEAD = constant(ahead)
    BN = constant(width)
    BK = constant(32 if tf32_inputs else 64)
    KS = constant(8 if tf32_inputs else 16)
    SLAB_A = constant(128 * (32 if tf32_inputs else 64))
    SLAB_B = constant(width * (32 if tf32_inputs else 64))
    BYTES = constant((128 + width) * 128)  # both boxes of a slab: rows of 128 bytes
    LDC = constant(width + (4 if tf32_inputs else 8))
    mul = _mma_tf32 if tf32_inputs else _mma_half

    @kernel
    def matmul_tma(a, bt, c, batch, m, kp, n):
        for t in range(batch * ((m + 127) // 128) * ((n + BN - 1) // BN) * 256):
            tm = (m + 127) // 128
            tn = (n + BN - 1) // BN
            g = t // 256
            lane = thread_id()
            z = g // (tm * tn)
            r = g % (tm * tn)
            first = r // (GROUP * tn) * GROUP
            rows = min(tm - first, GROUP)
            i0 = (first + r % (GROUP * tn) % rows) * 128
            j0 = r % (GROUP * tn) // rows * BN
            s = shared_like(a, STAGES * (SLAB_A + SLAB_B))  # A's ring, then Bᵀ's
            full = mbarriers(STAGES)  # a stage's slab has landed
            empty = mbarriers(STAGES)  # ... and its MMAs are done
            wg = lane // 128
            acc = wgmma_zeros(BN)
            slabs = (kp + BK - 1) // BK
            if lane == 0:
                for q in unroll(range(STAGES)):
                    mbarrier_init(full[q], 1)
                    mbarrier_init(empty[q], 256)
            barrier()
            for kt in range(-AHEAD, slabs):
                nxt = kt + AHEAD
                if lane == 0 and nxt < slabs:
                    fill = nxt % STAGES
                    if nxt >= STAGES:  # slab nxt - STAGES released the stage
                        mbarrier_wait(empty[fill], nxt // STAGES - 1)
                    mbarrier_arrive_tx(full[fill], BYTES)
                    async_tensor_copy(s, fill * SLAB_A, a, (z * m + i0, nxt * BK), (128, BK),
                                      full[fill], "swizzle128")
                    async_tensor_copy(s, STAGES * SLAB_A + fill * SLAB_B, bt,
                                      (z * n + j0, nxt * BK), (BN, BK), full[fill],
                                      "swizzle128")
                if kt >= 0:
                    slot = kt % STAGES
                    mbarrier_wait(full[slot], kt // STAGES)
                    a0 = slot * SLAB_A + wgmma_index(s, 64 * wg, 0, "swizzle128")
                    b0 = STAGES * SLAB_A + slot * SLAB_B
                    for kk in unroll(range(BK // KS)):
                        mul(acc, s, a0, b0, kk * KS)
                    wgmma_commit()
                    wgmma_wait(1)  # slab kt's MMAs in flight, slab kt - 1's done
                    if kt >= 1:
                        mbarrier_arrive(empty[(kt - 1) % STAGES])
            wgmma_wait(0)
            barrier()  # both warpgroups are done with the ring
            wgmma_store(acc, s, 64 * wg, 0, LDC)
            barrier()
            for e in unroll(range(BN // 2)):
                q = lane + 256 * e
                i = i0 + q // BN
                j = j0 + q % BN
                if i < m and j < n:
                    c[(z * m + i) * n + j] = s[q // BN * LDC + q % BN]

    TMA_KERNELS.add(matmul_tma)
    return matmul_tma


TMA_KERNELS: set = set()  # the kernels `tma_tile_kernel` made: `launch` gives them 2-D views

# ops.matmul's tile: 128 × 128, a ring of four stages (128 KiB), copies two slabs ahead;
# bench/ops.py --gpu compares it with others (`tile_kernel`'s arguments)
WIDTH, STAGES, AHEAD = 128, 4, 2
KERNELS = {"half": tile_kernel(False, STAGES, AHEAD, WIDTH),
           "tf32": tile_kernel(True, STAGES, AHEAD, WIDTH)}
OPERAND = {"half": keep, "tf32": tf32}


@kernel
def _transposed(b, bt, batch, k, n, kp, operand):
    """bt[z, j, p] = operand(b[z, p, j]) for p < k, 0 for k <= p < kp: each workgroup moves a
    32 × 256 panel of B through shared memory, read along B's rows and written along Bᵀ's."""
    for t in range(batch * ((kp + 31) // 32) * ((n + 255) // 256) * 256):
        tp = (kp + 31) // 32
        tn = (n + 255) // 256
        g = t // 256
        lane = thread_id()
        z = g // (tp * tn)
        p0 = g % (tp * tn) // tn * 32
        j0 = g % (tp * tn) % tn * 256
        panel = shared_like(b, 32 * 257)  # rows of 256 plus one: the reads hit 32 banks
        for r in unroll(range(32)):
            p = p0 + r
            j = j0 + lane
            panel[r * 257 + lane] = (operand(b[(z * k + p) * n + j])
                                     if p < k and j < n else 0.0)
        barrier()
        for e in unroll(range(32)):
            jj = e * 8 + lane // 32
            p = p0 + lane % 32
            if j0 + jj < n and p < kp:
                bt[(z * n + j0 + jj) * kp + p] = panel[lane % 32 * 257 + jj]


@kernel
def _padded(a, ap, rows, k, kp, operand):
    """ap[r, p] = operand(a[r, p]) for p < k, 0 for k <= p < kp."""
    for t in range(rows * kp):
        r = t // kp
        p = t % kp
        ap[t] = operand(a[r * k + p]) if p < k else 0.0


def chunk(dtype) -> int:
    """Elements of `dtype` in one 16-byte copy."""
    return 16 // dtype.itemsize


def operands(a, b, batch: int, m: int, k: int, n: int, sizes=lambda *v: v):
    """(A, Bᵀ, kp) as the kernel reads them: Bᵀ a (batch, n, kp) copy of B transposed, A itself
    or a (batch, m, kp) copy padded with zeros where k is not a multiple of a chunk (and for
    TF32, both rounded by `tack.tf32`). The copies are kept per device, dtype and operand
    (overwritten by the next call, as ops/_precision.py's)."""
    key = "tf32" if a.dtype.bits == 32 else "half"
    piece = chunk(a.dtype)
    kp = -(-k // piece) * piece
    bt = _args.kept(b.device, b.dtype, ("matmul_wgmma", "bt"), batch * n * kp)
    _transposed(_args.view(b, (b.size,)), bt, *sizes(batch, k, n, kp), OPERAND[key])
    if kp != k or key == "tf32":
        ap = _args.kept(a.device, a.dtype, ("matmul_wgmma", "a"), batch * m * kp)
        _padded(_args.view(a, (a.size,)), ap, *sizes(batch * m, k, kp), OPERAND[key])
        a = ap
    else:
        a = _args.view(a, (a.size,))
    return a, bt, kp


def launch(a, bt, c, batch: int, m: int, kp: int, n: int, sizes=lambda *v: v) -> tuple:
    """(kernel, arguments) computing c = a @ btᵀ (`batch` matrices; a (batch, m, kp), bt
    (batch, n, kp) and c (batch, m, n), flat, as `operands` gives them), one workgroup per
    tile of C."""
    kern = KERNELS["tf32" if a.dtype.bits == 32 else "half"]
    if kern in TMA_KERNELS:  # tensor copies read 2-D arrays (`tma_tile_kernel`)
        a, bt = _args.view(a, (batch * m, kp)), _args.view(bt, (batch * n, kp))
    return kern, (a, bt, c, *sizes(batch, m, kp, n))


def run(a, b, c, batch: int, m: int, k: int, n: int, sizes) -> None:
    """c = a @ b by the warpgroup-MMA kernel (`operands`, then `launch`)."""
    ap, bt, kp = operands(a, b, batch, m, k, n, sizes)
    kern, args = launch(ap, bt, _args.view(c, (c.size,)), batch, m, kp, n, sizes)
    kern(*args)
