"""How many consecutive launch indices one GPU thread runs (the PTX renderer's `per_thread`).

A GPU thread that touches one 4-byte element keeps too few bytes in flight to cover the memory
latency; K indices per thread turn K 4-byte accesses into one 16-byte access. That pays only
for cheap elementwise kernels, which `coarsening` recognizes on the final IR
(docs/design/004-cuda-engine.md, "Elementwise coarsening").
"""
from __future__ import annotations

from collections.abc import Collection

from .. import dtypes as dt
from ..capabilities import workgroup_features
from ..ir.nodes import Assign, ExprStmt, KernelIR, Store
from ..ir.ops import ATOMIC, LAZY, Op
from ..ir.walk import iter_exprs, iter_stmts

_HEAVY = frozenset({Op.IPOW, Op.IDIV, Op.IREM})  # long instruction sequences


def coarsening(kir: KernelIR, library_ops: Collection[Op]) -> int:
    """Launch indices per GPU thread: K > 1 only for cheap elementwise kernels: no workgroup
    features, scratch, atomics, hidden parameters (start 0, step 1), control flow or
    `library_ops` (the target's library math, whose code K copies would bloat), and every array
    index is the launch index itself: an i64 local assigned only from it, or the i64 widening of
    the loop variable of a narrower range (`launch_locals`).
    K = 16 bytes / the smallest element, at most 8."""
    if kir.hidden or kir.scratch or workgroup_features(kir):
        return 1
    arrays = [p for p in kir.params if p.kind == "array"]
    if not arrays or any(not isinstance(s, (Assign, Store, ExprStmt)) for s in kir.body):
        return 1
    t_vars, narrow = launch_locals(kir)

    def is_t(e) -> bool:
        return e.op is Op.LAUNCH or (e.op is Op.VAR and e.arg in t_vars) or (
            e.op is Op.CAST and e.dtype is dt.i64 and e.args[0].op is Op.VAR
            and e.args[0].arg in narrow)

    roots = [s.value for s in kir.body] + [i for s in kir.body if isinstance(s, Store)
                                           for i in s.indices]
    for s in kir.body:
        if isinstance(s, Store) and not (len(s.indices) == 1 and is_t(s.indices[0])):
            return 1
    for root in roots:
        for e in iter_exprs(root):
            if e.op in ATOMIC or e.op in LAZY or e.op in library_ops or e.op in _HEAVY or (
                    e.op is Op.LOAD and not (len(e.args) == 1 and is_t(e.args[0]))):
                return 1
    return max(1, min(8, 16 // min(p.dtype.itemsize for p in arrays)))


def launch_locals(kir: KernelIR) -> tuple[set[str], set[str]]:
    """(i64 locals whose every value is the launch index, narrower integer locals whose i64
    widening is). The second set holds the loop variable of a range over a narrower integer
    (`range(n)` of an i32 `n`): the frontend's first statement `i = i32(launch_index)`
    (frontend/typecheck.py, `_prefix`), whose dtype holds every index of the range, so
    widening `i` back gives the launch index exactly (docs/language.md, "Parallel loop": a call
    whose indices would leave that type is refused before launch)."""
    assigned: dict[str, list] = {}
    for s in iter_stmts(kir.body):
        if isinstance(s, Assign):
            assigned.setdefault(s.name, []).append(s.value)
    only = {name for name, values in assigned.items() if len(values) == 1}
    wide = {s.name for s in kir.body if isinstance(s, Assign) and s.name in only
            and s.value.op is Op.LAUNCH and s.value.dtype is dt.i64}
    first = kir.body[0] if kir.body else None
    narrow = set()
    if isinstance(first, Assign) and first.name in only and first.value.op is Op.CAST and (
            first.value.args[0].op is Op.LAUNCH and first.value.dtype.is_int
            and first.value.dtype.bits < 64 and first.value.dtype.kind == "i"):
        narrow.add(first.name)
    return wide, narrow
