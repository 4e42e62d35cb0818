"""Debug mode: every array index checked, one dimension at a time, before the access.

An out-of-bounds access is skipped (a load gives 0, a store or atomic does nothing) and recorded in
a hidden i64 array `__dbg`: slot 0 counts skipped accesses; for each check site s (one access, one
dimension, in source order) slot 1+2s keeps the smallest index past the end and slot 2+2s the
negative index closest to zero (atomic min/max, so the report does not depend on thread order).
Runs after `flatten`, so every expression is evaluated eagerly where it stands.
"""
from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass

import numpy as np

from .. import dtypes as dt
from ..ir import nodes as N
from ..ir.nodes import Expr, KernelIR, Param
from ..ir.ops import ATOMIC, BARRIER_COPIES, MBARRIER_OPS, Op
from ..ir.walk import NodeMemo, map_blocks, map_stmts
from .build import B
from .flatten import flatten
from .names import hidden

DBG = hidden("dbg")
I64_MAX = (1 << 63) - 1
I64_MIN = -(1 << 63)


@dataclass(frozen=True)
class Site:
    text: str  # source text of the access
    loc: N.Loc
    dim: int
    extent: int
    kind: str  # 'load' | 'store' | 'atomic'


class Bounds:
    def __init__(self, k: KernelIR):
        self.k = k
        self.sites: list[Site] = []
        self.params = {p.name: p for p in k.params}
        self.guarded = NodeMemo()  # an expression's guarded form, per statement (`pre`)

    def extents(self, array: str, nidx: int) -> list[int]:
        sc = self.k.scratch.get(array)
        if sc is not None:
            return [sc.size]
        tb = self.k.tables.get(array)
        if tb is not None:
            return list(tb.shape)
        shape = self.params[array].shape
        if nidx == 1 and len(shape) != 1:
            total = 1
            for d in shape:
                total *= d
            return [total]
        return list(shape)

    def checks(self, array, indices, text, loc, kind, pre) -> Expr | None:
        """Append the recording `If`s for one access to `pre`; return its in-bounds condition."""
        k = B(loc)
        inb = None
        for d, (idx, ext) in enumerate(zip(indices, self.extents(array, len(indices)))):
            i = k.cast(idx, dt.i64)
            ok = k.both(k.cmp(Op.GE, i, k.const(0, dt.i64)), k.cmp(Op.LT, i, k.const(ext, dt.i64)))
            s = len(self.sites)
            self.sites.append(Site(text, loc, d, ext, kind))
            record = [N.ExprStmt(loc, self.atomic(Op.ATOMIC_ADD, 0, k.const(1, dt.i64), loc)),
                      N.If(loc, k.cmp(Op.LT, i, k.const(0, dt.i64)),
                           [N.ExprStmt(loc, self.atomic(Op.ATOMIC_MAX, 2 + 2 * s, i, loc))],
                           [N.ExprStmt(loc, self.atomic(Op.ATOMIC_MIN, 1 + 2 * s, i, loc))])]
            pre.append(N.If(loc, k.op(Op.NOT, dt.bool_, ok), record, []))
            inb = ok if inb is None else k.both(inb, ok)
        return inb

    def async_copy(self, s: N.ExprStmt, pre: list) -> list[N.Stmt]:
        """`tack.async_copy`: the first and the last element it copies, at both ends, are
        checked; a copy with one of them outside its array is skipped whole."""
        e, k = s.value, B(s.loc)
        (dst, src, count), args = e.arg, tuple(self.guard(a, pre) for a in e.args)
        text = e.loc.text()
        ok = None
        for array, idx, kind in ((src, args[1:], "load"), (dst, args[:1], "store")):
            ends = [idx]
            if count > 1:
                last = idx[-1]
                ends.append(idx[:-1] + (k.bin(Op.ADD, last, k.const(count - 1, last.dtype)),))
            for at in ends:
                inb = self.checks(array, at, text, e.loc, kind, pre)
                ok = inb if ok is None else k.both(ok, inb)
        return pre + [N.If(s.loc, ok, [N.ExprStmt(s.loc, e.replace(args=args))], [])]

    def mbarrier(self, s: N.ExprStmt, pre: list) -> list[N.Stmt]:
        """A transaction-barrier statement: its barrier index is checked, and for a bulk copy
        the first and the last element it copies at both ends (for a tensor copy, whose source
        may lie outside its array, the first and last shared element of its box); one outside
        skips the statement (a debug run then raises, naming it)."""
        e, k = s.value, B(s.loc)
        args = tuple(self.guard(a, pre) for a in e.args)
        text = e.loc.text()
        copy = e.op in BARRIER_COPIES
        bar = e.arg[3] if copy else e.arg
        bar_at = args[-1] if copy else args[0]
        ok = self.checks(bar, (bar_at,), text, e.loc, "load", pre)
        if e.op is Op.ASYNC_TENSOR_COPY:  # the source may lie outside: its elements are zeros
            dst, _, (rows, cols, _), _ = e.arg
            j = args[0]
            for at in (j, k.bin(Op.ADD, j, k.const(rows * cols - 1, j.dtype))):
                ok = k.both(ok, self.checks(dst, (at,), text, e.loc, "store", pre))
        if e.op is Op.ASYNC_BULK_COPY:
            dst, src, count, _ = e.arg
            for array, idx, kind in ((src, args[1:-1], "load"), (dst, args[:1], "store")):
                last = idx[-1]
                for at in (idx, idx[:-1] + (k.bin(Op.ADD, last, k.const(count - 1, last.dtype)),)):
                    ok = k.both(ok, self.checks(array, at, text, e.loc, kind, pre))
        return pre + [N.If(s.loc, ok, [N.ExprStmt(s.loc, e.replace(args=args))], [])]

    def atomic(self, op, slot: int, value: Expr, loc) -> Expr:
        return Expr(op, dt.i64, (B(loc).const(slot, dt.i64), value), DBG, loc)

    def guard(self, e: Expr, pre) -> Expr:
        """Post-order: inner accesses (in indices) are guarded first. An expression is a DAG
        (inlined library code shares subexpressions): a node met again for the same `pre` (the
        same statement) is guarded once, so the walk is linear and the access one site."""
        got = self.guarded.get(e, pre)
        return self.guarded.put(e, self._guard(e, pre), pre) if got is NodeMemo.MISSING else got

    def _guard(self, e: Expr, pre) -> Expr:
        if e.args:
            args = tuple(self.guard(a, pre) for a in e.args)
            e = e.replace(args=args) if args != e.args else e
        if e.op is Op.LOAD or (e.op in ATOMIC and e.arg != DBG):
            idx = e.args if e.op is Op.LOAD else e.args[:-1]
            kind = "load" if e.op is Op.LOAD else "atomic"
            ok = self.checks(e.arg, idx, e.loc.text(), e.loc, kind, pre)
            zero = B(e.loc).const(0, e.dtype)
            return Expr(Op.IFEXP, e.dtype, (ok, e, zero), None, e.loc)
        return e

    def stmt(self, s: N.Stmt, walk) -> list[N.Stmt]:
        """The checks of `s`'s own accesses, then `s` guarded; its blocks are rebuilt after them,
        so sites are numbered in source order."""
        pre: list[N.Stmt] = []
        if isinstance(s, N.Store):
            idx = tuple(self.guard(i, pre) for i in s.indices)
            value = self.guard(s.value, pre)
            ok = self.checks(s.array, idx, s.text, s.loc, "store", pre)
            return pre + [N.If(s.loc, ok, [N.Store(s.loc, s.array, idx, value, s.text)], [])]
        if isinstance(s, N.ExprStmt) and s.value.op is Op.ASYNC_COPY:
            return self.async_copy(s, pre)
        if isinstance(s, N.ExprStmt) and s.value.op in MBARRIER_OPS:
            return self.mbarrier(s, pre)
        # A While's condition is left alone: flatten left no memory access in it. A For's
        # `step` stays as is, as flatten leaves it.
        if isinstance(s, (N.Assign, N.ExprStmt, N.If, N.For)):
            s = dataclasses.replace(s, **{f: self.guard(getattr(s, f), pre) for f in
                                          ("value", "cond", "start", "stop") if hasattr(s, f)})
        return pre + [map_blocks(s, walk)]


def add_bounds_checks(k: KernelIR) -> KernelIR:
    k.body = flatten(k.body, k.locals)
    b = Bounds(k)
    k.body = map_stmts(k.body, b.stmt, top_down=True)
    k.params.append(Param(DBG, "array", dt.i64, 1, (1 + 2 * len(b.sites),), True))
    k.notes["debug_sites"] = b.sites
    return k


def initial_buffer(nsites: int):
    buf = np.zeros(1 + 2 * nsites, np.int64)
    buf[1::2] = I64_MAX
    buf[2::2] = I64_MIN
    return buf


def report(kernel_name: str, sites: list[Site], buf) -> str | None:
    """The IndexError message for a launch's `__dbg` contents, or None when nothing was skipped."""
    total = int(buf[0])
    if total == 0:
        return None
    for s, site in enumerate(sites):
        over, under = int(buf[1 + 2 * s]), int(buf[2 + 2 * s])
        if over != I64_MAX or under != I64_MIN:
            index = over if over != I64_MAX else under
            break
    else:  # pragma: no cover - a count without a site would be a bug in this pass
        return f"Kernel '{kernel_name}': {total} out-of-bounds accesses were skipped."
    path = site.loc.file
    rel = os.path.relpath(path) if os.path.isabs(path) else path
    where = rel if not rel.startswith("..") else path
    effect = "a load gives 0" if site.kind == "load" else f"the {site.kind} was not done"
    scope = getattr(site.loc, "scope", "")  # a Loc from an older disk-cache entry has none
    inside = f" in device function '{scope}'" if scope else ""
    msg = (f"Kernel '{kernel_name}': {site.text}{inside} at {where}:{site.loc.line}, column "
           f"{site.loc.col}: index {index} of dimension {site.dim} is outside [0, "
           f"{site.extent}). The access was skipped ({effect}).")
    if total > 1:
        msg += f"\n{total - 1} more out-of-bounds accesses in the launch were skipped too."
    return msg
