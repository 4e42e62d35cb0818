"""`attention(q, k, v, scale=None, causal=False)`: scaled dot-product attention on
(batch, heads, seq, head_dim) arrays, softmax(q k^T * scale) v with keys past the query masked
when `causal`. Numerically stable by the online softmax: each query row keeps its running
maximum m, the sum l of exp(score - m) and the weighted sum of values, rescaled by
exp(m_old - m_new) whenever the maximum grows, so no exponential ever overflows and no score
matrix is stored.

The portable kernel runs one query row per parallel iteration, its scaled query and its
weighted sum in two local arrays of head_dim elements. On an engine with workgroups a 256-lane
workgroup takes 256 query rows of one (batch, head) and stages 32 keys and values at a time in
shared memory, read by every lane; the key loop runs over the whole sequence for every group
(collectives need uniform trip counts), a causal row skipping the keys past itself.

Both keep storage proportional to head_dim in local arrays (a CPU thread's stack, GPU
registers) or shared memory, so each serves head dimensions up to a bound (LOCAL_HEAD elements,
SHARED_HEAD bytes a row); a wider head takes `_wide`, one query row per iteration whose
weighted sum accumulates in its output row (global memory) and whose query is read where it is
used, or with workgroups `_wide_group`, one query row per workgroup, each lane taking every
256th column and the scores summed across the group: no scratch but one shared slot per lane,
whatever head_dim is.

f16 and bf16 inputs of head_dim 64 or 128 take the fused tensor-core kernels of
ops/flash_attention.py where the device runs `tack.mma` (`capabilities.runs_mma`: CUDA sm_80
and newer, the simulator) and `precision` is "ieee"; other half inputs run the f32 kernels below
on widened copies.

`precision="tf32"` rounds each operand of the two products to TF32 (docs/ops.md, "Precision"):
q * scale, k and v before the kernels (ops/_precision.py), which then take scale 1; the weight
exp(score - m) where it is made, by the compile-time function `operand` each kernel takes (the
identity for "ieee"), m being the running maximum at that key (the online softmax's, as a
tensor-core kernel would round its tile of weights). The sum of the weights and the rescaling
stay f32."""
from __future__ import annotations

import math

from ..intrinsics import barrier, local_array_like, shared_like, thread_id, unroll
from ..kernel import kernel
from ..lib.combine import add
from ..lib.reductions import group_reduce
from . import _args, _precision, flash_attention

LOCAL_HEAD = 256  # head_dim of `_rows` at most: two local arrays of 2 KiB (f64: 4 KiB)
SHARED_HEAD = 512  # head_dim * itemsize of `_blocked` at most: 32 KiB of shared memory


@kernel
def _rows(q, k, v, out, rows, s, scale, causal, operand):
    for row in range(rows):
        kb = (row // s) * s  # the first key row of this (batch, head)
        keys = row % s + 1 if causal else s
        qv = local_array_like(q, q.shape[1])
        acc = local_array_like(q, q.shape[1])
        for d in range(q.shape[1]):
            qv[d] = q[row, d] * scale
            acc[d] = 0.0
        m = -math.inf
        total = 0.0
        for j in range(keys):
            score = 0.0
            for d in range(q.shape[1]):
                score += qv[d] * k[kb + j, d]
            if score > m:
                corr = exp(m - score)  # noqa: F821 - a kernel builtin
                total = total * corr
                for d in range(q.shape[1]):
                    acc[d] = acc[d] * corr
                m = score
            p = exp(score - m)  # noqa: F821
            total += p
            for d in range(q.shape[1]):
                acc[d] += operand(p) * v[kb + j, d]
        inv = 1.0 / total
        for d in range(q.shape[1]):
            out[row, d] = acc[d] * inv


@kernel
def _blocked(q, k, v, out, bh, s, scale, causal, operand):
    for t in range(bh * ((s + 255) // 256) * 256):
        g = t // 256
        lane = thread_id()
        kb = (g // ((s + 255) // 256)) * s
        i = (g % ((s + 255) // 256)) * 256 + lane
        row = kb + min(i, s - 1)  # a lane past the sequence computes the last row, unstored
        keys = min(i, s - 1) + 1 if causal else s
        k_s = shared_like(k, 32 * k.shape[1])
        v_s = shared_like(v, 32 * v.shape[1])
        qv = local_array_like(q, q.shape[1])
        acc = local_array_like(q, q.shape[1])
        for d in unroll(range(q.shape[1])):
            qv[d] = q[row, d] * scale
            acc[d] = 0.0
        m = -math.inf
        total = 0.0
        for j0 in range(0, s, 32):
            for e in range(lane, 32 * k.shape[1], 256):
                jj = j0 + e // k.shape[1]
                ok = jj < s
                k_s[e] = k[kb + jj, e % k.shape[1]] if ok else 0.0
                v_s[e] = v[kb + jj, e % k.shape[1]] if ok else 0.0
            barrier()
            for jj in range(min(32, keys - j0)):
                score = 0.0
                for d in unroll(range(q.shape[1])):
                    score += qv[d] * k_s[jj * k.shape[1] + d]
                if score > m:
                    corr = exp(m - score)  # noqa: F821
                    total = total * corr
                    for d in unroll(range(q.shape[1])):
                        acc[d] = acc[d] * corr
                    m = score
                p = exp(score - m)  # noqa: F821
                total += p
                for d in unroll(range(q.shape[1])):
                    acc[d] += operand(p) * v_s[jj * k.shape[1] + d]
            barrier()
        if i < s:
            inv = 1.0 / total
            for d in unroll(range(q.shape[1])):
                out[row, d] = acc[d] * inv


@kernel
def _wide(q, k, v, out, rows, s, d, scale, causal, operand):
    for row in range(rows):
        qb = row * d
        kb = (row // s) * s * d  # the first key of this (batch, head)
        keys = row % s + 1 if causal else s
        for c in range(d):
            out[qb + c] = 0.0
        m = -math.inf
        total = 0.0
        for j in range(keys):
            score = 0.0
            for c in range(d):
                score += q[qb + c] * scale * k[kb + j * d + c]
            if score > m:
                corr = exp(m - score)  # noqa: F821
                total = total * corr
                for c in range(d):
                    out[qb + c] = out[qb + c] * corr
                m = score
            p = exp(score - m)  # noqa: F821
            total += p
            for c in range(d):
                out[qb + c] += operand(p) * v[kb + j * d + c]
        inv = 1.0 / total
        for c in range(d):
            out[qb + c] = out[qb + c] * inv


@kernel
def _wide_group(q, k, v, out, rows, s, d, scale, causal, operand):
    for t in range(rows * 256):
        row = t // 256  # one query row per workgroup, its lanes taking every 256th column
        lane = thread_id()
        qb = row * d
        kb = (row // s) * s * d
        keys = row % s + 1 if causal else s
        for c in range(lane, d, 256):
            out[qb + c] = 0.0
        m = -math.inf
        total = 0.0
        for j in range(s):  # every key: the group sum needs a trip count of scalar arguments
            part = 0.0
            if j < keys:
                for c in range(lane, d, 256):
                    part += q[qb + c] * scale * k[kb + j * d + c]
            score = group_reduce(q, part, add)
            if j < keys:
                if score > m:
                    corr = exp(m - score)  # noqa: F821
                    total = total * corr
                    for c in range(lane, d, 256):
                        out[qb + c] = out[qb + c] * corr
                    m = score
                p = exp(score - m)  # noqa: F821
                total += p
                for c in range(lane, d, 256):
                    out[qb + c] += operand(p) * v[kb + j * d + c]
        inv = 1.0 / total
        for c in range(lane, d, 256):
            out[qb + c] = out[qb + c] * inv


def attention(q, k, v, scale=None, causal=False, out=None, precision="ieee"):
    """softmax(q @ k^T * scale [+ causal mask]) @ v over (batch, heads, seq, head_dim) arrays;
    `scale` defaults to 1/sqrt(head_dim). `out` may share memory with q, k or v: the result is
    computed apart and copied in. f16 and bf16 inputs of head_dim 64 or 128 take the fused tensor-core kernels of
ops/flash_attention.py where the device runs `tack.mma` (`capabilities.runs_mma`: CUDA sm_80
and newer, the simulator) and `precision` is "ieee"; other half inputs run the f32 kernels below
on widened copies.

`precision="tf32"` rounds each operand of the two products to
    TF32 (`tack.tf32`): q * scale and k in the scores, the softmax weights and v in the
    weighted sum (docs/ops.md, "Precision")."""
    op = "attention"
    dev = _args.device()
    qa, ka, va = (_args.as_array(op, n, a, dev) for n, a in (("q", q), ("k", k), ("v", v)))
    _args.same_dtype(op, qa, k=ka, v=va)
    precision = _args.precision(op, precision, qa)
    _args.need_rank(op, "q", qa, (4,))
    _args.need_shape(op, "k", ka, qa.shape)
    _args.need_shape(op, "v", va, qa.shape)
    if not isinstance(causal, bool):
        raise _args.TackTypeError(f"tack.ops.{op}: argument 'causal' must be a bool, "
                                  f"got {causal!r}")
    b, h, s, d = qa.shape
    sc = _args.number(op, "scale", scale) if scale is not None else \
        1.0 / math.sqrt(d) if d else 1.0  # head_dim 0: an empty result, no scores
    out = _args.output(op, out, qa)
    if qa.size == 0:
        return out
    if flash_attention.supported(qa, precision):  # tensor cores: ops/flash_attention.py
        res = _args.apart(out, {"q": qa, "k": ka, "v": va})
        flash_attention.attention(qa, ka, va, res, sc, causal)
        return _args.deliver(res, out)
    if _args.half(qa):  # scores, softmax and the weighted sum in f32, rounded once
        wide = (_args.widened(a) for a in (qa, ka, va))
        return _args.narrowed(attention(*wide, scale=sc, causal=causal, precision=precision),
                              out)
    res = _args.apart(out, {"q": qa, "k": ka, "v": va})  # every row reads other rows of k, v
    qa, ka, va = _precision.operands(precision, op, qa, ka, va, scale=sc)
    sc = sc if precision == "ieee" else 1.0  # q is scaled already
    operand = _precision.OPERAND[precision]
    if _args.workgroups(dev) and d * qa.dtype.itemsize <= SHARED_HEAD:
        views = [_args.view(a, (b * h * s, d)) for a in (qa, ka, va, res)]
        bh, seq = _args.sizes(qa.size + 256 * d, b * h, s)
        _blocked(*views, bh, seq, sc, int(causal), operand)
    elif not _args.workgroups(dev) and d <= LOCAL_HEAD:
        views = [_args.view(a, (b * h * s, d)) for a in (qa, ka, va, res)]
        sizes = _args.sizes(qa.size + 256 * d, b * h * s, s)
        _rows(*views, *sizes, sc, int(causal), operand)
    else:
        flat = [_args.view(a, (qa.size,)) for a in (qa, ka, va, res)]
        sizes = _args.sizes(qa.size + 256 * d, b * h * s, s, d)
        wide_kernel = _wide_group if _args.workgroups(dev) else _wide
        wide_kernel(*flat, *sizes, sc, int(causal), operand)
    return _args.deliver(res, out)
