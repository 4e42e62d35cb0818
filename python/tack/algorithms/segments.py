"""Runs and segments: `unique`, `reduce_by_key`, `segmented_inclusive_scan`, `segmented_reduce`.

Runs of equal neighbouring keys (or segments marked by flags) become a table of start offsets —
a flag per element, an exclusive scan of the flags, a scatter of the starts — and each segment
is then folded or scanned by one iteration, left to right. The order of every operation is fixed,
so results are bit-identical on every engine (docs/algorithms.md, "Sorting and segments").
"""
from __future__ import annotations

import numpy as np

from .. import dtypes as dt
from ..arrays import Array, zeros
from ..frontend.inline import func
from ..kernel import kernel
from ..lib.combine import add, in_dtype, nan_max, nan_min
from . import _views as V
from ._scratch import unfilled
from .copy_fill import copy_elements, detached
from .scans import exclusive_scan
from .sorting import KEYS

__all__ = ["reduce_by_key", "segmented_inclusive_scan", "segmented_reduce", "unique"]

OPS = ("sum", "min", "max")


@kernel
def key_flags(keys, flags, n):
    for i in range(n):
        f = 1
        if i > 0:  # noqa: SIM102 - keys[i - 1] is read only when i > 0
            if keys[i] == keys[i - 1]:
                f = 0
        flags[i] = f


@kernel
def mark_flags(marks, flags, n):
    for i in range(n):
        m = marks[i]
        flags[i] = 1 if i == 0 or m != m - m else 0  # m − m: zero in m's own type


@kernel
def scatter_starts(flags, idx, starts, n):
    for i in range(n):
        if flags[i] != 0:
            starts[idx[i]] = i
        if i == n - 1:
            starts[idx[i] + flags[i]] = n  # the end of the last segment


@kernel
def run_heads(keys, starts, heads, counts, r):
    for s in range(r):
        heads[s] = keys[starts[s]]
        counts[s] = starts[s + 1] - starts[s]


@func
def fold(values, offsets, out, ident, s, combine):
    lo = offsets[s]
    hi = offsets[s + 1]
    acc = ident[0]
    if hi > lo:
        acc = values[lo]
        for j in range(lo + 1, hi):
            acc = combine(acc, values[j])
    out[s] = acc


@kernel
def fold_segments(values, offsets, out, ident, r, combine):
    """out[s] = `combine` over segment s, left to right (`fold`)."""
    for s in range(r):
        fold(values, offsets, out, ident, s, combine)


@kernel
def scan_segments(values, offsets, dst, r):
    for s in range(r):
        acc = in_dtype(dst, 0)
        for j in range(offsets[s], offsets[s + 1]):
            acc = select_start(j, offsets[s], in_dtype(dst, values[j]), acc)
            dst[j] = acc


@func
def select_start(j, lo, v, acc):
    """A segment's first prefix is its first value (so -0.0 stays -0.0), later ones add."""
    out = v
    if j != lo:
        out = acc + v
    return out


_COMBINE = {"sum": add, "min": nan_min, "max": nan_max}


def _starts(flags: Array, n: int) -> tuple[Array, int]:
    """Start offsets of the segments flagged in `flags` (n > 0), ending with n; their count."""
    idx = zeros(n, dt.i32, device=flags.device)
    r = exclusive_scan(flags, idx, n)  # the total: how many segments
    starts = zeros(r + 1, dt.i32, device=flags.device)
    scatter_starts(flags, idx, starts, n)
    return starts, r


def _runs(name: str, keys) -> tuple[Array, Array, int]:
    V.need_array(name, "keys", keys)
    if keys.dtype not in KEYS or keys.ndim != 1:
        raise V.TackTypeError(f"{name}: keys must be a 1-D array of i32, u32, i64 or u64, got "
                              f"{keys!r}")
    V.same_device(name, keys)
    n = keys.shape[0]
    if n >= 2 ** 31:
        raise V.TackValueError(f"{name}: {n} keys do not fit i32 offsets")
    flags = zeros(n, dt.i32, device=keys.device)
    if n == 0:
        return flags, zeros(1, dt.i32, device=keys.device), 0
    key_flags(keys, flags, n)
    starts, r = _starts(flags, n)
    return flags, starts, r


def unique(keys: Array) -> tuple[Array, Array]:
    """(the first key of each run of equal neighbouring keys, the run lengths as i32); on sorted
    keys, the distinct keys and their counts."""
    _, starts, r = _runs("unique", keys)
    heads = zeros(r, keys.dtype, device=keys.device)
    counts = zeros(r, dt.i32, device=keys.device)
    if r:
        run_heads(keys, starts, heads, counts, r)
    return heads, counts


def _identity(op: str, t) -> np.ndarray:
    if op == "sum":
        return np.zeros(1, t.np)
    big = np.inf if t in V.FLOATS else np.iinfo(t.np).max
    small = -np.inf if t in V.FLOATS else np.iinfo(t.np).min
    return np.array([big if op == "min" else small], t.np)


def _check_op(name: str, op: str) -> None:
    if op not in OPS:
        raise V.TackValueError(f"{name}: op must be one of {', '.join(OPS)}, got {op!r}")


def _values(name: str, values, n: int) -> Array:
    V.need_array(name, "values", values)
    if values.dtype not in V.INTEGERS + V.FLOATS or values.ndim != 1:
        raise V.TackTypeError(f"{name}: values must be a 1-D array of numbers, got {values!r}")
    if values.shape[0] != n:
        raise V.TackValueError(f"{name}: values hold {values.shape[0]} elements, expected {n}")
    V.same_device(name, values)
    return values


def _fold(op: str, values: Array, offsets: Array, r: int) -> Array:
    out = zeros(r, values.dtype, device=values.device)
    if r:  # `fold`'s accumulator has ident's dtype: f32 for half values, each result rounded once
        t = dt.f32 if values.dtype in V.HALVES else values.dtype
        ident = Array._from_host(_identity(op, t), values.device)
        fold_segments(values, offsets, out, ident, r, _COMBINE[op])
    return out


def reduce_by_key(keys: Array, values: Array, op: str = "sum") -> tuple[Array, Array]:
    """(the first key of each run of equal neighbouring keys, op over the run's values), folded
    left to right in the values' dtype."""
    _check_op("reduce_by_key", op)
    _, starts, r = _runs("reduce_by_key", keys)
    v = _values("reduce_by_key", values, keys.shape[0])
    heads = zeros(r, keys.dtype, device=keys.device)
    counts = zeros(r, dt.i32, device=keys.device)
    if r:
        run_heads(keys, starts, heads, counts, r)
    return heads, _fold(op, v, starts, r)


def segmented_reduce(values: Array, offsets: Array, op: str = "sum") -> Array:
    """out[s] = op over values[offsets[s]:offsets[s+1]], folded left to right in the values'
    dtype; an empty segment gives op's identity (0, the largest or the smallest value)."""
    _check_op("segmented_reduce", op)
    V.need_array("segmented_reduce", "offsets", offsets)
    if offsets.dtype not in V.INTEGERS or offsets.ndim != 1 or offsets.shape[0] < 1:
        raise V.TackTypeError("segmented_reduce: offsets must be a 1-D integer array of at "
                              "least one element")
    n = values.shape[0] if isinstance(values, Array) and values.ndim == 1 else -1
    v = _values("segmented_reduce", values, n)
    off = offsets.numpy().astype(np.int64)
    if off[0] < 0 or off[-1] > n or np.any(np.diff(off) < 0):
        raise V.TackValueError(f"segmented_reduce: offsets must rise from >= 0 to <= {n}")
    return _fold(op, v, offsets, offsets.shape[0] - 1)


def segmented_inclusive_scan(values: Array, flags: Array, dst: Array) -> None:
    """Inclusive scans restarting wherever flags[i] is not zero (and at 0), into dst's dtype;
    in place allowed (values overlapping dst otherwise: a copy of them is scanned). Each
    segment is scanned left to right."""
    name = "segmented_inclusive_scan"
    V.need_array(name, "flags", flags)
    V.need_writable(name, "dst", V.need_array(name, "dst", dst))
    if flags.dtype not in V.INTEGERS + V.FLOATS:
        raise V.TackTypeError(f"{name}: flags must hold numbers, got {flags.dtype!r}")
    n = flags.shape[0] if flags.ndim == 1 else -1
    v = _values("segmented_inclusive_scan", values, n)
    if dst.ndim != 1 or dst.shape[0] != n or dst.dtype not in V.INTEGERS + V.FLOATS:
        raise V.TackValueError(f"segmented_inclusive_scan: dst must be 1-D of {n} numbers")
    V.same_device("segmented_inclusive_scan", flags, dst)
    if n == 0:
        return
    marks = zeros(n, dt.i32, device=flags.device)
    mark_flags(flags, marks, n)  # flags are read here, before dst is written
    starts, r = _starts(marks, n)
    if dst.dtype in V.HALVES:  # running sums in f32, each prefix rounded once
        wide = unfilled(dst.device, dt.f32, n)
        scan_segments(v, starts, wide, r)
        copy_elements(wide, dst, n)
        return
    scan_segments(detached(v, n, dst), starts, dst, r)
