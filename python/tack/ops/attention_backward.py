"""`attention_backward(q, k, v, dout, scale=None, causal=False)`: the gradients dq, dk, dv of
`attention`'s result o = softmax(q k^T * scale) v against an upstream gradient dout, all
(batch, heads, seq, head_dim).

With s_ij = scale q_i·k_j, p_ij = exp(s_ij - L_i) (L_i the log of row i's sum of exponentials),
dp_ij = dout_i·v_j and D_i = sum_j p_ij dp_ij (= dout_i·o_i):

    dv_j = sum_i p_ij dout_i        ds_ij = p_ij (dp_ij - D_i)
    dq_i = scale sum_j ds_ij k_j    dk_j = scale sum_i ds_ij q_i

the sums over the keys a causal row sees (j <= i). FlashAttention's backward recomputes p from
L in the same way (Dao, https://arxiv.org/abs/2307.08691, Algorithm 2). Here three passes, each
one row per parallel iteration, so every engine runs them (no workgroups): `_row_stats` gives
L_i and D_i by an online pass over the keys (the running maximum rescales the sum of the
exponentials and that of p·dp, so D needs no stored o and no head_dim storage), `_query_rows`
accumulates dq_i in its output row, `_key_rows` dk_j and dv_j in theirs. Half inputs compute in
f32 on widened copies and round each gradient once, as the forward's f32 kernels do.
"""
from __future__ import annotations

import math

from ..kernel import kernel
from . import _args


@kernel
def _row_stats(q, k, v, do, lse, dsum, rows, s, d, scale, causal):
    for row in range(rows):
        qb = row * d
        kb = (row // s) * s * d  # the first key of this (batch, head)
        keys = row % s + 1 if causal else s
        m = -math.inf
        total = 0.0
        weighted = 0.0
        for j in range(keys):
            score = 0.0
            dp = 0.0
            for c in range(d):
                score += q[qb + c] * k[kb + j * d + c]
                dp += do[qb + c] * v[kb + j * d + c]
            score = score * scale
            if score > m:
                corr = exp(m - score)  # noqa: F821 - a kernel builtin
                total = total * corr
                weighted = weighted * corr
                m = score
            p = exp(score - m)  # noqa: F821
            total += p
            weighted += p * dp
        lse[row] = m + log(total)  # noqa: F821
        dsum[row] = weighted / total


@kernel
def _query_rows(q, k, v, do, lse, dsum, dq, rows, s, d, scale, causal):
    for row in range(rows):
        qb = row * d
        kb = (row // s) * s * d
        keys = row % s + 1 if causal else s
        for c in range(d):
            dq[qb + c] = 0.0
        for j in range(keys):
            score = 0.0
            dp = 0.0
            for c in range(d):
                score += q[qb + c] * k[kb + j * d + c]
                dp += do[qb + c] * v[kb + j * d + c]
            ds = exp(score * scale - lse[row]) * (dp - dsum[row]) * scale  # noqa: F821
            for c in range(d):
                dq[qb + c] += ds * k[kb + j * d + c]


@kernel
def _key_rows(q, k, v, do, lse, dsum, dk, dv, rows, s, d, scale, causal):
    for key in range(rows):
        kb = key * d
        head = (key // s) * s  # the first row of this (batch, head)
        first = key % s if causal else 0  # a causal key is seen by the queries from itself on
        for c in range(d):
            dk[kb + c] = 0.0
            dv[kb + c] = 0.0
        for i in range(head + first, head + s):
            score = 0.0
            dp = 0.0
            for c in range(d):
                score += q[i * d + c] * k[kb + c]
                dp += do[i * d + c] * v[kb + c]
            p = exp(score * scale - lse[i])  # noqa: F821
            ds = p * (dp - dsum[i]) * scale
            for c in range(d):
                dv[kb + c] += p * do[i * d + c]
                dk[kb + c] += ds * q[i * d + c]


def attention_backward(q, k, v, dout, scale=None, causal=False):
    """(dq, dk, dv): the gradients of `attention(q, k, v, scale, causal)` for the upstream
    gradient `dout`, all (batch, heads, seq, head_dim) of one float dtype; `scale` defaults to
    1/sqrt(head_dim). Computed from the definition (the softmax recomputed from each row's
    log-sum-exp), in f32 for half inputs with each gradient rounded once."""
    op = "attention_backward"
    dev = _args.device()
    qa, ka, va, ga = (_args.as_array(op, n, a, dev)
                      for n, a in (("q", q), ("k", k), ("v", v), ("dout", dout)))
    _args.same_dtype(op, qa, k=ka, v=va, dout=ga)
    _args.need_rank(op, "q", qa, (4,))
    for name, a in (("k", ka), ("v", va), ("dout", ga)):
        _args.need_shape(op, name, a, qa.shape)
    if not isinstance(causal, bool):
        raise _args.TackTypeError(f"tack.ops.{op}: argument 'causal' must be a bool, "
                                  f"got {causal!r}")
    b, h, s, d = qa.shape
    sc = _args.number(op, "scale", scale) if scale is not None else \
        1.0 / math.sqrt(d) if d else 1.0
    grads = tuple(_args.like(qa) for _ in range(3))
    if qa.size == 0:
        return grads
    if _args.half(qa):
        wide = [_args.widened(a) for a in (qa, ka, va, ga)]
        return tuple(_args.narrowed(w, g) for w, g in
                     zip(attention_backward(*wide, scale=sc, causal=causal), grads))
    rows = b * h * s
    flat = [_args.view(a, (qa.size,)) for a in (qa, ka, va, ga)]
    stats = [_args.like(qa, (rows,)) for _ in range(2)]  # L_i and D_i
    dq, dk, dv = (_args.view(g, (qa.size,)) for g in grads)
    sizes = _args.sizes(qa.size, rows, s, d)
    _row_stats(*flat, *stats, *sizes, sc, int(causal))
    _query_rows(*flat, *stats, dq, *sizes, sc, int(causal))
    _key_rows(*flat, *stats, dk, dv, *sizes, sc, int(causal))
    return grads

