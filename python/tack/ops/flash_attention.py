"""FlashAttention on tensor cores: `attention` of f16 and bf16 q, k, v with head_dim 64 or 128 on
an engine whose device has warps and MMA fragments (`capabilities.warps`: CUDA sm_80 and newer,
the simulator). One fused kernel per head dimension, in the structure of FlashAttention-2
(Dao, https://arxiv.org/abs/2307.08691, Algorithm 1):

- a workgroup takes 128 query rows of one (batch, head), each of its 8 warps 16 of them, whose
  Q fragments it loads once (staged through shared memory, rows past the sequence zero);
- keys and values stream through shared memory 32 at a time, in a two-stage `tack.async_copy`
  pipeline (the next tile lands while this one is used; keys past the sequence zero);
- per tile a warp computes its 16×32 scores S = Q K^T with `tack.mma` into f32 accumulators,
  scaled by scale·log2(e) so that exp2 gives the softmax weights; masks keys past the sequence
  and, when causal, past its query (only on the tiles that hold such keys); updates its rows'
  running maximum m and running sum l of the weights (f32) and rescales its output accumulators
  by exp2(m_old - m_new) (the online softmax);
- the weights P = exp2(S - m), rounded to the input dtype, become the A fragments of P V without
  leaving the registers (`tack.mma_to_a`: the accumulator layout of two 16×8 tiles is the A
  layout of their 16×16 tile), and P V accumulates in f32;
- causal workgroups stop at the last tile that holds a key at or before their last query: the
  tiles wholly above the diagonal are never loaded;
- at the end each row is divided by its l, rounded to the input dtype, staged through shared
  memory and written where it lies inside the sequence.

The weights are rounded to the input dtype before P V (as FlashAttention's and PyTorch's
half-precision kernels do) while l sums them unrounded: docs/numerics.md ("Attention") gives
the bound this costs and tests/ops/test_flash_attention.py checks against float64.

Shared memory: one buffer of 128 rows of head_dim + 8 elements (34 KiB for head_dim 128,
18 KiB for 64), under the 48 KiB a CUDA block may declare statically. It holds Q while the warps
load their fragments, then K and V tiles (two stages of 32 rows each), then the output. Rows are
padded by 8 elements so that the 8 rows a fragment load reads at once start in different banks.
"""
from __future__ import annotations

import math

from ..capabilities import runs_mma
from ..constants import constant
from ..dtypes import bf16, f16
from ..frontend.inline import func
from ..intrinsics import (
    async_commit,
    async_copy,
    async_wait,
    barrier,
    mma,
    mma_cols,
    mma_load_a,
    mma_load_b,
    mma_load_bt,
    mma_row_max,
    mma_row_sum,
    mma_rows,
    mma_store,
    mma_to_a,
    mma_zeros,
    select,
    shared_like,
    thread_id,
    warp_id,
)
from ..kernel import kernel
from . import _args

HEADS = (64, 128)  # the head dimensions the kernels serve
ROWS = constant(128)  # query rows per workgroup: 8 warps of 16
KEYS = constant(32)  # keys per pipeline stage
LOG2E = 1.4426950408889634


@func
def to_f16(x):
    return f16(x)


@func
def to_bf16(x):
    return bf16(x)


NARROW = {"f16": to_f16, "bf16": to_bf16}


@func
def _stage(buf, row0, x, base, first, rows, s):
    """Start copying rows first .. first + rows - 1 of this (batch, head) of x (row `base` is its
    first) into buffer rows row0 ..., 8 elements a copy; rows past the sequence are zero."""
    d = x.shape[1]
    ld = d + 8
    for e in range(rows * d // 8 // 256):
        c = thread_id() + 256 * e
        r = c // (d // 8)
        col = c % (d // 8) * 8
        if first + r < s:
            async_copy(buf, (row0 + r) * ld + col, x, (base + first + r, col), 8)
        else:
            for z in range(8):
                buf[(row0 + r) * ld + col + z] = 0.0


@func
def _qk(q0, q1, q2, q3, buf, row, col, ld, acc):
    """acc + the 16×8 scores of Q's 64 columns from col on and the 8 keys at buffer row `row`."""
    acc = mma(q0, mma_load_bt(buf, row, col, ld), acc)
    acc = mma(q1, mma_load_bt(buf, row, col + 16, ld), acc)
    acc = mma(q2, mma_load_bt(buf, row, col + 32, ld), acc)
    return mma(q3, mma_load_bt(buf, row, col + 48, ld), acc)


@func
def _pv(p0, p1, buf, row, col, ld, acc):
    """acc + the 16×8 tile of P V for 8 value columns from col, over the 32 keys at `row`."""
    return mma(p1, mma_load_b(buf, row + 16, col, ld), mma(p0, mma_load_b(buf, row, col, ld), acc))


@func
def _masked(x, key, limit):
    return select(key < limit, x, -math.inf)


@func
def _limit(s, q0, causal):
    """Each score element's first excluded key: the sequence's end, or one past its query."""
    own = mma_rows() + (q0 + warp_id() * 16 + 1)
    return select(causal != 0, min(own, s), s)


@func
def _write(buf, out, base, q0, s):
    """The 128 output rows staged in buf, into out where they lie inside the sequence."""
    d = out.shape[1]
    ld = d + 8
    for e in range(ROWS * d // 256):
        c = thread_id() + 256 * e
        r = c // d
        if q0 + r < s:
            out[base + q0 + r, c % d] = buf[r * ld + c % d]


@kernel
def flash64(q, k, v, out, lanes, s, scale2, causal, narrow):
    for i in range(lanes):
        g = i // 256
        w = warp_id()
        blocks = (s + ROWS - 1) // ROWS
        base = g // blocks * s  # the first row of this (batch, head)
        q0 = g % blocks * ROWS  # this workgroup's first query
        ld = q.shape[1] + 8
        buf = shared_like(q, ROWS * (q.shape[1] + 8))
        _stage(buf, 0, q, base, q0, ROWS, s)
        async_commit()
        async_wait(0)
        barrier()
        qa0 = mma_load_a(buf, w * 16, 0, ld)
        qa1 = mma_load_a(buf, w * 16, 16, ld)
        qa2 = mma_load_a(buf, w * 16, 32, ld)
        qa3 = mma_load_a(buf, w * 16, 48, ld)
        barrier()  # every warp holds its Q before the tiles overwrite it
        tiles = (min(q0 + ROWS, s) + KEYS - 1) // KEYS if causal != 0 else (s + KEYS - 1) // KEYS
        _stage(buf, 0, k, base, 0, KEYS, s)
        _stage(buf, 2 * KEYS, v, base, 0, KEYS, s)
        async_commit()
        m = mma_zeros() - math.inf
        total = mma_zeros()
        o0, o1, o2, o3 = mma_zeros(), mma_zeros(), mma_zeros(), mma_zeros()
        o4, o5, o6, o7 = mma_zeros(), mma_zeros(), mma_zeros(), mma_zeros()
        for j in range(tiles):
            kr = j % 2 * KEYS  # this tile's K rows in buf; its V rows 2 * KEYS further
            if j + 1 < tiles:
                _stage(buf, KEYS - kr, k, base, (j + 1) * KEYS, KEYS, s)
                _stage(buf, 3 * KEYS - kr, v, base, (j + 1) * KEYS, KEYS, s)
            async_commit()  # one group per trip, empty on the last
            async_wait(1)  # tile j has landed (this lane's copies) ...
            barrier()  # ... and every lane's
            s0 = _qk(qa0, qa1, qa2, qa3, buf, kr, 0, ld, mma_zeros()) * scale2
            s1 = _qk(qa0, qa1, qa2, qa3, buf, kr + 8, 0, ld, mma_zeros()) * scale2
            s2 = _qk(qa0, qa1, qa2, qa3, buf, kr + 16, 0, ld, mma_zeros()) * scale2
            s3 = _qk(qa0, qa1, qa2, qa3, buf, kr + 24, 0, ld, mma_zeros()) * scale2
            if (j + 1) * KEYS > s or (causal != 0 and (j + 1) * KEYS > q0 + 1):
                key = mma_cols() + j * KEYS
                limit = _limit(s, q0, causal)
                s0 = _masked(s0, key, limit)
                s1 = _masked(s1, key + 8, limit)
                s2 = _masked(s2, key + 16, limit)
                s3 = _masked(s3, key + 24, limit)
            top = max(m, mma_row_max(max(max(s0, s1), max(s2, s3))))
            corr = exp2(m - top)  # noqa: F821 - a kernel builtin
            m = top
            s0, s1, s2, s3 = exp2(s0 - m), exp2(s1 - m), exp2(s2 - m), exp2(s3 - m)  # noqa: F821
            total = total * corr + ((s0 + s1) + (s2 + s3))
            p0 = mma_to_a(narrow(s0), narrow(s1))
            p1 = mma_to_a(narrow(s2), narrow(s3))
            vr = kr + 2 * KEYS
            o0 = _pv(p0, p1, buf, vr, 0, ld, o0 * corr)
            o1 = _pv(p0, p1, buf, vr, 8, ld, o1 * corr)
            o2 = _pv(p0, p1, buf, vr, 16, ld, o2 * corr)
            o3 = _pv(p0, p1, buf, vr, 24, ld, o3 * corr)
            o4 = _pv(p0, p1, buf, vr, 32, ld, o4 * corr)
            o5 = _pv(p0, p1, buf, vr, 40, ld, o5 * corr)
            o6 = _pv(p0, p1, buf, vr, 48, ld, o6 * corr)
            o7 = _pv(p0, p1, buf, vr, 56, ld, o7 * corr)
            barrier()  # every warp is done with tile j before the next trip refills its stage
        inv = 1.0 / mma_row_sum(total)
        r = w * 16
        mma_store(o0 * inv, buf, r, 0, ld)
        mma_store(o1 * inv, buf, r, 8, ld)
        mma_store(o2 * inv, buf, r, 16, ld)
        mma_store(o3 * inv, buf, r, 24, ld)
        mma_store(o4 * inv, buf, r, 32, ld)
        mma_store(o5 * inv, buf, r, 40, ld)
        mma_store(o6 * inv, buf, r, 48, ld)
        mma_store(o7 * inv, buf, r, 56, ld)
        barrier()
        _write(buf, out, base, q0, s)



@kernel
def flash128(q, k, v, out, lanes, s, scale2, causal, narrow):
    for i in range(lanes):
        g = i // 256
        w = warp_id()
        blocks = (s + ROWS - 1) // ROWS
        base = g // blocks * s  # the first row of this (batch, head)
        q0 = g % blocks * ROWS  # this workgroup's first query
        ld = q.shape[1] + 8
        buf = shared_like(q, ROWS * (q.shape[1] + 8))
        _stage(buf, 0, q, base, q0, ROWS, s)
        async_commit()
        async_wait(0)
        barrier()
        qa0 = mma_load_a(buf, w * 16, 0, ld)
        qa1 = mma_load_a(buf, w * 16, 16, ld)
        qa2 = mma_load_a(buf, w * 16, 32, ld)
        qa3 = mma_load_a(buf, w * 16, 48, ld)
        qa4 = mma_load_a(buf, w * 16, 64, ld)
        qa5 = mma_load_a(buf, w * 16, 80, ld)
        qa6 = mma_load_a(buf, w * 16, 96, ld)
        qa7 = mma_load_a(buf, w * 16, 112, ld)
        barrier()  # every warp holds its Q before the tiles overwrite it
        tiles = (min(q0 + ROWS, s) + KEYS - 1) // KEYS if causal != 0 else (s + KEYS - 1) // KEYS
        _stage(buf, 0, k, base, 0, KEYS, s)
        _stage(buf, 2 * KEYS, v, base, 0, KEYS, s)
        async_commit()
        m = mma_zeros() - math.inf
        total = mma_zeros()
        o0, o1, o2, o3 = mma_zeros(), mma_zeros(), mma_zeros(), mma_zeros()
        o4, o5, o6, o7 = mma_zeros(), mma_zeros(), mma_zeros(), mma_zeros()
        o8, o9, o10, o11 = mma_zeros(), mma_zeros(), mma_zeros(), mma_zeros()
        o12, o13, o14, o15 = mma_zeros(), mma_zeros(), mma_zeros(), mma_zeros()
        for j in range(tiles):
            kr = j % 2 * KEYS  # this tile's K rows in buf; its V rows 2 * KEYS further
            if j + 1 < tiles:
                _stage(buf, KEYS - kr, k, base, (j + 1) * KEYS, KEYS, s)
                _stage(buf, 3 * KEYS - kr, v, base, (j + 1) * KEYS, KEYS, s)
            async_commit()  # one group per trip, empty on the last
            async_wait(1)  # tile j has landed (this lane's copies) ...
            barrier()  # ... and every lane's
            s0 = _qk(qa4, qa5, qa6, qa7, buf, kr, 64, ld,
                     _qk(qa0, qa1, qa2, qa3, buf, kr, 0, ld, mma_zeros())) * scale2
            s1 = _qk(qa4, qa5, qa6, qa7, buf, kr + 8, 64, ld,
                     _qk(qa0, qa1, qa2, qa3, buf, kr + 8, 0, ld, mma_zeros())) * scale2
            s2 = _qk(qa4, qa5, qa6, qa7, buf, kr + 16, 64, ld,
                     _qk(qa0, qa1, qa2, qa3, buf, kr + 16, 0, ld, mma_zeros())) * scale2
            s3 = _qk(qa4, qa5, qa6, qa7, buf, kr + 24, 64, ld,
                     _qk(qa0, qa1, qa2, qa3, buf, kr + 24, 0, ld, mma_zeros())) * scale2
            if (j + 1) * KEYS > s or (causal != 0 and (j + 1) * KEYS > q0 + 1):
                key = mma_cols() + j * KEYS
                limit = _limit(s, q0, causal)
                s0 = _masked(s0, key, limit)
                s1 = _masked(s1, key + 8, limit)
                s2 = _masked(s2, key + 16, limit)
                s3 = _masked(s3, key + 24, limit)
            top = max(m, mma_row_max(max(max(s0, s1), max(s2, s3))))
            corr = exp2(m - top)  # noqa: F821 - a kernel builtin
            m = top
            s0, s1, s2, s3 = exp2(s0 - m), exp2(s1 - m), exp2(s2 - m), exp2(s3 - m)  # noqa: F821
            total = total * corr + ((s0 + s1) + (s2 + s3))
            p0 = mma_to_a(narrow(s0), narrow(s1))
            p1 = mma_to_a(narrow(s2), narrow(s3))
            vr = kr + 2 * KEYS
            o0 = _pv(p0, p1, buf, vr, 0, ld, o0 * corr)
            o1 = _pv(p0, p1, buf, vr, 8, ld, o1 * corr)
            o2 = _pv(p0, p1, buf, vr, 16, ld, o2 * corr)
            o3 = _pv(p0, p1, buf, vr, 24, ld, o3 * corr)
            o4 = _pv(p0, p1, buf, vr, 32, ld, o4 * corr)
            o5 = _pv(p0, p1, buf, vr, 40, ld, o5 * corr)
            o6 = _pv(p0, p1, buf, vr, 48, ld, o6 * corr)
            o7 = _pv(p0, p1, buf, vr, 56, ld, o7 * corr)
            o8 = _pv(p0, p1, buf, vr, 64, ld, o8 * corr)
            o9 = _pv(p0, p1, buf, vr, 72, ld, o9 * corr)
            o10 = _pv(p0, p1, buf, vr, 80, ld, o10 * corr)
            o11 = _pv(p0, p1, buf, vr, 88, ld, o11 * corr)
            o12 = _pv(p0, p1, buf, vr, 96, ld, o12 * corr)
            o13 = _pv(p0, p1, buf, vr, 104, ld, o13 * corr)
            o14 = _pv(p0, p1, buf, vr, 112, ld, o14 * corr)
            o15 = _pv(p0, p1, buf, vr, 120, ld, o15 * corr)
            barrier()  # every warp is done with tile j before the next trip refills its stage
        inv = 1.0 / mma_row_sum(total)
        r = w * 16
        mma_store(o0 * inv, buf, r, 0, ld)
        mma_store(o1 * inv, buf, r, 8, ld)
        mma_store(o2 * inv, buf, r, 16, ld)
        mma_store(o3 * inv, buf, r, 24, ld)
        mma_store(o4 * inv, buf, r, 32, ld)
        mma_store(o5 * inv, buf, r, 40, ld)
        mma_store(o6 * inv, buf, r, 48, ld)
        mma_store(o7 * inv, buf, r, 56, ld)
        mma_store(o8 * inv, buf, r, 64, ld)
        mma_store(o9 * inv, buf, r, 72, ld)
        mma_store(o10 * inv, buf, r, 80, ld)
        mma_store(o11 * inv, buf, r, 88, ld)
        mma_store(o12 * inv, buf, r, 96, ld)
        mma_store(o13 * inv, buf, r, 104, ld)
        mma_store(o14 * inv, buf, r, 112, ld)
        mma_store(o15 * inv, buf, r, 120, ld)
        barrier()
        _write(buf, out, base, q0, s)


def supported(q, precision: str) -> bool:
    """Whether the tensor-core kernels serve these arrays on the current device: f16 or bf16 q
    of head_dim 64 or 128, "ieee" precision, and a device with warps and MMA fragments."""
    return (q.dtype.name in NARROW and q.shape[-1] in HEADS and precision == "ieee"
            and runs_mma(_args.device()))


def attention(q, k, v, out, scale: float, causal: bool) -> None:
    """out = softmax(q k^T * scale) v (causal: keys after the query masked) for (batch, heads,
    seq, head_dim) Tack arrays that `supported` accepts; out must not overlap q, k or v."""
    b, h, s, d = q.shape
    views = [_args.view(a, (b * h * s, d)) for a in (q, k, v, out)]
    lanes = b * h * -(-s // ROWS) * 256
    lanes, seq = _args.sizes(max(q.size + ROWS * d, lanes), lanes, s)
    kernel_for = flash64 if d == 64 else flash128
    kernel_for(*views, lanes, seq, float(scale) * LOG2E, int(causal), NARROW[q.dtype.name])
