"""Atomic read-modify-write over many lanes at once, with the right old value for every lane.

Lanes that hit one element are serialized in launch order: the k-th such lane sees the element
after the k-1 updates before it, as one possible GPU interleaving (and the CPU engine's serial
one). Grouped by sorting, never a Python loop per lane: integer adds use a segmented prefix sum
(exact, wrapping: modular addition is associative); other updates take the first RANKS hits of
every element in RANKS vector steps, then each longer run with one `ufunc.accumulate`, which
applies the update sequentially (float adds round exactly as a serial loop would).
"""
from __future__ import annotations

import numpy as np

from ...ir.ops import Op

RANKS = 16  # hits per element done as vector steps before the per-element accumulate


def ufunc(op: Op, dtype: np.dtype) -> np.ufunc:
    """The update of an atomic op (float min/max: a NaN loses to a number, as ops.py says)."""
    f = dtype.kind == "f"
    return {Op.ATOMIC_ADD: np.add, Op.ATOMIC_MIN: np.fmin if f else np.minimum,
            Op.ATOMIC_MAX: np.fmax if f else np.maximum}[op]


def update(op: Op, data: np.ndarray, flat: np.ndarray, vals: np.ndarray) -> np.ndarray:
    """Apply `op` of `vals[k]` to `data[flat[k]]` for every k in order; the old values."""
    fn = ufunc(op, data.dtype)
    if len(flat) <= 1 or len(np.unique(flat)) == len(flat):
        old = data[flat]
        data[flat] = fn(old, vals)
        return old
    order = np.argsort(flat, kind="stable")
    f, v = flat[order], vals[order]
    head = np.r_[True, f[1:] != f[:-1]]
    heads = np.flatnonzero(head)
    seg = np.cumsum(head) - 1
    if fn is np.add and data.dtype.kind in "iu":
        old_sorted = _int_add(data, f, v, heads, seg)
    else:
        old_sorted = _serial(fn, data, f, v, heads, seg)
    old = np.empty_like(old_sorted)
    old[order] = old_sorted
    return old


def _int_add(data, f, v, heads, seg) -> np.ndarray:
    cs = np.cumsum(v, dtype=v.dtype)
    excl = cs - v  # the sum of the hits before each, from the first element of all
    at_head = excl[heads]
    base = data[f[heads]]
    old = base[seg] + (excl - at_head[seg])
    ends = np.r_[heads[1:], len(f)] - 1
    data[f[heads]] = base + (cs[ends] - at_head)
    return old


def _serial(fn, data, f, v, heads, seg) -> np.ndarray:
    rank = np.arange(len(f)) - heads[seg]
    old = np.empty_like(v)
    for k in range(min(RANKS, int(rank.max()) + 1)):
        hit = rank == k
        o = data[f[hit]]
        old[hit] = o
        data[f[hit]] = fn(o, v[hit])
    lengths = np.diff(np.r_[heads, len(f)])
    for h in heads[lengths > RANKS]:
        lo, hi = h + RANKS, h + lengths[seg[h]]
        acc = fn.accumulate(np.r_[data[f[h]:f[h] + 1], v[lo:hi]], dtype=v.dtype)
        old[lo:hi] = acc[:-1]
        data[f[h]] = acc[-1]
    return old
