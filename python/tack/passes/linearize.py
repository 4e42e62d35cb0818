"""Multi-dimensional indices → one flat, 64-bit, row-major element index.

Index arithmetic is 64-bit on every backend; extents of dimensions 1.. are baked into the
specialization (the typechecker records them in `Param.shape`).
"""
from __future__ import annotations

from .. import dtypes as dt
from ..ir import nodes as N
from ..ir.nodes import Expr, KernelIR
from ..ir.ops import ATOMIC, Op
from ..ir.walk import map_body, map_stmts
from .build import B


def linearize(k: KernelIR) -> list[N.Stmt]:
    shapes = {p.name: p.shape for p in k.params if p.kind == "array"}
    shapes.update({t.name: t.shape for t in k.tables.values()})

    def flat(idx, array: str, loc) -> tuple[Expr]:
        b = B(loc)
        out = b.cast(idx[0], dt.i64)
        for d, i in enumerate(idx[1:], start=1):
            out = b.bin(Op.ADD, b.bin(Op.MUL, out, b.const(shapes[array][d], dt.i64)),
                        b.cast(i, dt.i64))
        return (out,)

    def on_expr(e: Expr) -> Expr:
        if e.op is Op.LOAD:
            return e.replace(args=flat(e.args, e.arg, e.loc))
        if e.op in ATOMIC:
            return e.replace(args=flat(e.args[:-1], e.arg, e.loc) + (e.args[-1],))
        if e.op is Op.ASYNC_COPY:  # (shared index, *source indices)
            return e.replace(args=flat(e.args[:1], e.arg[0], e.loc)
                             + flat(e.args[1:], e.arg[1], e.loc))
        if e.op is Op.ASYNC_BULK_COPY:  # (shared index, *source indices, barrier index)
            return e.replace(args=flat(e.args[:1], e.arg[0], e.loc)
                             + flat(e.args[1:-1], e.arg[1], e.loc) + e.args[-1:])
        return e

    def on_store(s: N.Stmt) -> N.Stmt:
        if isinstance(s, N.Store):
            return N.Store(s.loc, s.array, flat(s.indices, s.array, s.loc), s.value, s.text)
        return s

    return map_stmts(map_body(k.body, on_expr), on_store)
