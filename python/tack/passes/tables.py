"""Constant tables in the final IR: an index outside a table reads its last entry, and a table
that no read uses any more is dropped.

The typechecker makes every constant-table read a LOAD of a `KernelIR.tables` entry
(`frontend/typing/tables.py`); after `passes.linearize` its index is one flat i64. Mapping an
index outside [0, size) to size - 1 (one unsigned compare and a select) keeps every engine inside
the table's memory and gives what a vector constant gives for a runtime index out of range: the
last entry (docs/language.md, "Constants"). Debug mode's checks (`passes.bounds`) run before this
and see the index as written; `tack.check` lowers without it, so the simulator reports the index.
"""
from __future__ import annotations

from .. import dtypes as dt
from ..ir import nodes as N
from ..ir.nodes import Expr, KernelIR
from ..ir.ops import Op
from ..ir.walk import iter_exprs, iter_stmts, map_body, stmt_exprs
from .build import B


def clamp_table_indices(k: KernelIR) -> list[N.Stmt]:
    """Every table read's flat index, outside the table, replaced by the last entry's."""
    if not k.tables:
        return k.body

    def on_expr(e: Expr) -> Expr:
        if e.op is not Op.LOAD or e.arg not in k.tables:
            return e
        b, i, n = B(e.loc), e.args[0], k.tables[e.arg].size
        inside = b.cmp(Op.LT, b.cast(i, dt.u64), b.const(n, dt.u64))  # also catches i < 0
        return e.replace(args=(b.sel(inside, i, b.const(n - 1, dt.i64)),))

    return map_body(k.body, on_expr)


def drop_unread_tables(k: KernelIR) -> None:
    """Keep only the tables a LOAD still reads (simplification may have removed the others)."""
    read = {x.arg for s in iter_stmts(k.body) for e in stmt_exprs(s) for x in iter_exprs(e)
            if x.op is Op.LOAD}
    k.tables = {n: t for n, t in k.tables.items() if n in read}
