"""`attention(q, k, v, scale=None, causal=False)`: scaled dot-product attention on
(batch, heads, seq, head_dim) arrays, softmax(q k^T * scale) v with keys past the query masked
when `causal`. Numerically stable by the online softmax: each query row keeps its running
maximum m, the sum l of exp(score - m) and the weighted sum of values, rescaled by
exp(m_old - m_new) whenever the maximum grows, so no exponential ever overflows and no score
matrix is stored.

The portable kernel runs one query row per parallel iteration. On an engine with workgroups a
256-lane workgroup takes 256 query rows of one (batch, head) and stages 32 keys and values at a
time in shared memory, read by every lane; the key loop runs over the whole sequence for every
group (collectives need uniform trip counts), a causal row skipping the keys past itself."""
from __future__ import annotations

import math

from ..intrinsics import barrier, local_array_like, shared_like, thread_id, unroll
from ..kernel import kernel
from . import _args


@kernel
def _rows(q, k, v, out, rows, s, scale, causal):
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
                acc[d] += p * v[kb + j, d]
        inv = 1.0 / total
        for d in range(q.shape[1]):
            out[row, d] = acc[d] * inv


@kernel
def _blocked(q, k, v, out, bh, s, scale, causal):
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
                    acc[d] += p * v_s[jj * k.shape[1] + d]
            barrier()
        if i < s:
            inv = 1.0 / total
            for d in unroll(range(q.shape[1])):
                out[row, d] = acc[d] * inv


def attention(q, k, v, scale=None, causal=False, out=None):
    """softmax(q @ k^T * scale [+ causal mask]) @ v over (batch, heads, seq, head_dim) arrays;
    `scale` defaults to 1/sqrt(head_dim)."""
    op = "attention"
    dev = _args.device()
    qa, ka, va = (_args.as_array(op, n, a, dev) for n, a in (("q", q), ("k", k), ("v", v)))
    _args.same_dtype(op, qa, k=ka, v=va)
    _args.need_rank(op, "q", qa, (4,))
    _args.need_shape(op, "k", ka, qa.shape)
    _args.need_shape(op, "v", va, qa.shape)
    if not isinstance(causal, bool):
        raise _args.TackTypeError(f"tack.ops.{op}: argument 'causal' must be a bool, "
                                  f"got {causal!r}")
    b, h, s, d = qa.shape
    sc = 1.0 / math.sqrt(d) if scale is None else _args.number(op, "scale", scale)
    out = _args.output(op, out, qa)
    if qa.size == 0:
        return out
    views = [_args.view(a, (b * h * s, d)) for a in (qa, ka, va, out)]
    rows, seq = _args.sizes(qa.size + 256 * d, b * h * s, s)
    if _args.workgroups(dev):
        _blocked(*views, _args.sizes(qa.size + 256 * d, b * h)[0], seq, sc, int(causal))
    else:
        _rows(*views, rows, seq, sc, int(causal))
    return out
