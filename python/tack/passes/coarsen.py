"""How many consecutive launch indices one GPU thread runs (the PTX renderer's `per_thread`).

A GPU thread that touches one 4-byte element keeps too few bytes in flight to cover the memory
latency; K indices per thread turn K 4-byte accesses into one 16-byte access. That pays only
for cheap elementwise kernels, which `coarsening` recognizes on the final IR
(docs/design/004-cuda-engine.md, "Elementwise coarsening").
"""
from __future__ import annotations

from collections.abc import Collection

from ..capabilities import workgroup_features
from ..ir.nodes import Assign, ExprStmt, KernelIR, Store
from ..ir.ops import ATOMIC, LAZY, Op
from ..ir.walk import iter_exprs

_HEAVY = frozenset({Op.IPOW, Op.IDIV, Op.IREM})  # long instruction sequences


def coarsening(kir: KernelIR, library_ops: Collection[Op]) -> int:
    """Launch indices per GPU thread: K > 1 only for cheap elementwise kernels: no workgroup
    features, scratch, atomics, hidden parameters (start 0, step 1), control flow or
    `library_ops` (the target's library math, whose code K copies would bloat), and every array
    index is the launch index itself (or an i64 local assigned only from it).
    K = 16 bytes / the smallest element, at most 8."""
    if kir.hidden or kir.scratch or workgroup_features(kir):
        return 1
    arrays = [p for p in kir.params if p.kind == "array"]
    if not arrays or any(not isinstance(s, (Assign, Store, ExprStmt)) for s in kir.body):
        return 1
    t_vars = {s.name for s in kir.body if isinstance(s, Assign) and s.value.op is Op.LAUNCH}
    t_vars -= {s.name for s in kir.body if isinstance(s, Assign) and s.value.op is not Op.LAUNCH}

    def is_t(e) -> bool:
        return e.op is Op.LAUNCH or (e.op is Op.VAR and e.arg in t_vars and e.dtype.bits == 64)

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
