"""Warp operations written with shared memory and barriers, for an engine without warp
instructions that runs workgroups (the Julia engine: KernelAbstractions' `@localmem` and
`@synchronize`, render/julia/ka.py). The result is ordinary IR with the meaning ir/ops.py gives
the warp ops, so the simulator runs it to the same bits (tests/exec/test_warps.py).

Each warp collective becomes statements before the statement holding it, its value a local:
the lanes store their operand at their slot `thread_id()` of a shared array, a barrier, each lane
reads what it needs from its warp's 32 slots, a barrier (before the slots are written again).
Shuffles read one slot; votes store `p << lane` and OR the warp's 32 slots (any: != 0, all: all
bits); reductions are the xor butterfly, five such exchanges. A fragment element is its lane's own
load. An MMA stores the lane's A and B elements at slots `thread_id() * count + i`, a barrier,
then each of the lane's four D elements is the f32 fused multiply-add chain of ir/ops.py over k
(a loop), reading A[row, k] and B[k, col] from the slots of the lanes that hold them (a constant
table maps an element's position in the tile to its holder's slot), a barrier; the four MMA
expressions of one `tack.mma` (consecutive, over the same operands) share that exchange. A
warpgroup MMA needs no exchange (its tiles are in shared memory): passes/wgmma_loops.py writes it
as each lane's own loops. The workgroup contract has proved
every lane reaches each collective (capabilities.check_uniform_participation), so every lane
reaches these barriers. A collective in a `while` condition or in the arm of a conditional
expression (evaluated there only sometimes) cannot be moved before its statement: RenderError.
A renderer that spells some collectives itself (the Julia renderer's KernelAbstractions sub-group
form, render/julia/subgroups.py) names them with `keep`; they are left where they are.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable

from .. import dtypes as dt
from ..errors import RenderError
from ..ir import nodes as N
from ..ir.mma import ACC, VARIANTS
from ..ir.nodes import Expr, KernelIR
from ..ir.ops import LAZY, SHUFFLES, VOTES, WARP, WARP_COLLECTIVES, WGMMA_OPS, WORKGROUP, Op
from ..ir.printer import expr_str
from ..ir.walk import iter_exprs, map_body, map_stmt_exprs, map_stmts, stmt_exprs
from .wgmma_loops import lower_wgmma

_COMBINE = {Op.WARP_SUM: Op.ADD, Op.WARP_MIN: Op.MIN, Op.WARP_MAX: Op.MAX}


def _never(e: Expr) -> bool:
    return False


class _Lowering:
    def __init__(self, kir: KernelIR, prefix: str, keep: Callable[[Expr], bool] = _never):
        self.kir, self.prefix, self.keep = kir, prefix, keep
        self.locals = dict(kir.locals)
        self.scratch = dict(kir.scratch)
        self.tables = dict(kir.tables)
        self.count = 0
        # The last MMA: (its shape and operand texts, its four D locals, the locals it reads)
        self.mma_done: tuple | None = None

    def lowered(self, x: Expr) -> bool:
        """A collective this pass writes with shared memory (not one the renderer keeps)."""
        return x.op in WARP_COLLECTIVES and not self.keep(x)

    def has(self, e: Expr) -> bool:
        return any(self.lowered(x) for x in iter_exprs(e))

    # ---- small builders ------------------------------------------------------------------------
    def c(self, v, t, loc) -> Expr:
        return Expr(Op.CONST, t, (), v, loc)

    def op(self, op, t, loc, *args) -> Expr:
        return Expr(op, t, tuple(args), None, loc)

    def tid(self, loc) -> Expr:
        return Expr(Op.THREAD_ID, dt.i32, (), None, loc)

    def lane(self, loc) -> Expr:
        return self.op(Op.AND_, dt.i32, loc, self.tid(loc), self.c(WARP - 1, dt.i32, loc))

    def local(self, t, loc, value, out) -> Expr:
        self.count += 1
        name = f"{self.prefix}{self.count}"
        self.locals[name] = t
        out.append(N.Assign(loc, name, value))
        return Expr(Op.VAR, t, (), name, loc)

    def buffer(self, t, slots: int = 1, what: str = "") -> str:
        name = f"{self.prefix}{what}{t.name}"
        self.scratch.setdefault(name, N.Scratch(name, t, WORKGROUP * slots, "shared"))
        return name

    def exchange(self, value: Expr, out: list) -> str:
        """Store each lane's `value` at its slot, then a barrier; the buffer's name."""
        buf, loc = self.buffer(value.dtype), value.loc
        slot = self.op(Op.CAST, dt.i64, loc, self.tid(loc))
        out += [N.Store(loc, buf, (slot,), value), N.Barrier(loc)]
        return buf

    def read(self, buf: str, t, lane: Expr, loc) -> Expr:
        """Slot `lane` (i32, in [0, WARP)) of the reading lane's warp."""
        base = self.op(Op.SUB, dt.i32, loc, self.tid(loc), self.lane(loc))
        idx = self.op(Op.CAST, dt.i64, loc, self.op(Op.ADD, dt.i32, loc, base, lane))
        return Expr(Op.LOAD, t, (idx,), buf, loc)

    # ---- the collectives ---------------------------------------------------------------------
    def collective(self, e: Expr, out: list) -> Expr:
        loc = e.loc
        if e.op is Op.FRAGMENT:
            return e.args[0]
        if e.op is Op.MMA:
            return self.mma(e, out)
        if e.op in SHUFFLES:
            x, s = e.args
            s = self.local(dt.i32, loc, self.op(Op.AND_, dt.i32, loc, s, self.c(WARP - 1, dt.i32,
                                                                              loc)), out)
            buf = self.exchange(x, out)
            value = self.read(buf, x.dtype, self.source(e.op, s, loc), loc)
        elif e.op in VOTES:
            p = self.op(Op.CAST, dt.u32, loc, e.args[0])
            buf = self.exchange(self.op(Op.SHL, dt.u32, loc, p, self.op(
                Op.CAST, dt.u32, loc, self.lane(loc))), out)
            bits = self.read(buf, dt.u32, self.c(0, dt.i32, loc), loc)
            for k in range(1, WARP):
                bits = self.op(Op.OR_, dt.u32, loc, bits,
                               self.read(buf, dt.u32, self.c(k, dt.i32, loc), loc))
            if e.op is Op.WARP_ANY:
                value = self.op(Op.NE, dt.bool_, loc, bits, self.c(0, dt.u32, loc))
            elif e.op is Op.WARP_ALL:
                value = self.op(Op.EQ, dt.bool_, loc, bits, self.c(2**WARP - 1, dt.u32, loc))
            else:
                value = bits
        else:
            x = self.local(e.dtype, loc, e.args[0], out)
            step = WARP // 2
            while step:
                buf = self.exchange(x, out)
                partner = self.op(Op.XOR, dt.i32, loc, self.lane(loc), self.c(step, dt.i32, loc))
                x = self.local(e.dtype, loc, self.op(_COMBINE[e.op], e.dtype, loc, x,
                                                     self.read(buf, e.dtype, partner, loc)), out)
                out.append(N.Barrier(loc))  # every lane has read before the next exchange
                step //= 2
            return x
        result = self.local(e.dtype, loc, value, out)
        out.append(N.Barrier(loc))
        return result

    def source(self, op: Op, s: Expr, loc) -> Expr:
        lane = self.lane(loc)
        if op is Op.SHFL:
            return s
        if op is Op.SHFL_XOR:
            return self.op(Op.XOR, dt.i32, loc, lane, s)
        j = self.op(Op.SUB if op is Op.SHFL_UP else Op.ADD, dt.i32, loc, lane, s)
        inside = (self.op(Op.GE, dt.bool_, loc, j, self.c(0, dt.i32, loc)) if op is Op.SHFL_UP
                  else self.op(Op.LE, dt.bool_, loc, j, self.c(WARP - 1, dt.i32, loc)))
        return self.op(Op.SELECT, dt.i32, loc, inside, j, lane)

    # ---- matrix multiply-accumulate ---------------------------------------------------------------
    def mma(self, e: Expr, out: list) -> Expr:
        """Element e.arg[1] of the lane's D fragment (the module docstring)."""
        key = (e.arg[0],) + tuple(expr_str(a) for a in e.args)
        if self.mma_done is None or self.mma_done[0] != key:
            reads = {x.arg for a in e.args for x in iter_exprs(a) if x.op is Op.VAR}
            self.mma_done = (key, self.mma_exchange(e, out), reads)
        return self.mma_done[1][e.arg[1]]

    def mma_exchange(self, e: Expr, out: list) -> list[Expr]:
        loc, i32, i64 = e.loc, dt.i32, dt.i64
        v = VARIANTS[e.arg[0]]
        na, nb = v.a.size, v.b.size
        bufs = []
        for role, part, n in (("a", e.args[:na], na), ("b", e.args[na:na + nb], nb)):
            buf = self.buffer(part[0].dtype, n, f"mma{role}_")
            for i, x in enumerate(part):
                slot = self.op(Op.ADD, i32, loc, self.op(Op.MUL, i32, loc, self.tid(loc),
                                                         self.c(n, i32, loc)), self.c(i, i32, loc))
                out.append(N.Store(loc, buf, (self.op(Op.CAST, i64, loc, slot),), x))
            bufs.append((buf, part[0].dtype, self.holders(v, role, n, loc)))
        out.append(N.Barrier(loc))
        lane = self.lane(loc)
        base = self.op(Op.SUB, i32, loc, self.tid(loc), lane)
        group = self.local(i32, loc, self.op(Op.SHR, i32, loc, lane, self.c(2, i32, loc)), out)
        quad = self.local(i32, loc, self.op(Op.AND_, i32, loc, lane, self.c(3, i32, loc)), out)
        results = []
        for j, c in enumerate(e.args[na + nb:]):
            r, col = ACC.offsets[j]
            row = self.op(Op.ADD, i32, loc, group, self.c(r, i32, loc))
            col = self.op(Op.ADD, i32, loc, self.op(Op.MUL, i32, loc, quad, self.c(2, i32, loc)),
                          self.c(col, i32, loc))
            d = self.local(dt.f32, loc, c, out)
            k = self.fresh_local(i32)
            kv = Expr(Op.VAR, i32, (), k, loc)
            pos = ((self.op(Op.ADD, i32, loc, self.op(Op.MUL, i32, loc, row, self.c(v.k, i32, loc)),
                            kv)),
                   self.op(Op.ADD, i32, loc, self.op(Op.MUL, i32, loc, kv, self.c(v.n, i32, loc)),
                           col))
            ab = [self.held(buf, t, table, p, base, loc)
                  for (buf, t, table), p in zip(bufs, pos)]
            step = N.Assign(loc, d.arg, Expr(Op.MULADD, dt.f32, (*ab, d), None, loc))
            out.append(N.For(loc, k, self.c(0, i32, loc), self.c(v.k, i32, loc), None, [step]))
            results.append(d)
        out.append(N.Barrier(loc))  # every lane has read before the slots are written again
        return results

    def holders(self, v, role: str, n: int, loc) -> str:
        """A constant table: for each element of the warp's tile (row-major), the slot `lane * n
        + i` of the lane and element that hold it."""
        lay = getattr(v, role)
        rows, cols = (v.m, v.k) if role == "a" else (v.k, v.n)
        slots = [0] * (rows * cols)
        for lane in range(WARP):
            for i in range(n):
                r, c = lay.coords(lane, i)
                slots[r * cols + c] = lane * n + i
        name = f"{self.prefix}mma{role}_{v.name.replace('.', '_')}"
        if name not in self.tables:
            self.tables[name] = N.Table(name, dt.i32, (len(slots),), tuple(slots), loc)
        return name

    def held(self, buf: str, t, table: str, pos: Expr, base: Expr, loc) -> Expr:
        """The f32 value of the tile element at `pos`, from its holder's slot of the warp."""
        i32, i64 = dt.i32, dt.i64
        slot = Expr(Op.LOAD, i32, (self.op(Op.CAST, i64, loc, pos),), table, loc)
        n = self.scratch[buf].size // WORKGROUP
        at = self.op(Op.ADD, i32, loc, self.op(Op.MUL, i32, loc, base, self.c(n, i32, loc)), slot)
        x = Expr(Op.LOAD, t, (self.op(Op.CAST, i64, loc, at),), buf, loc)
        return x if t is dt.f32 else self.op(Op.CAST, dt.f32, loc, x)

    def fresh_local(self, t) -> str:
        self.count += 1
        name = f"{self.prefix}{self.count}"
        self.locals[name] = t
        return name

    # ---- statements --------------------------------------------------------------------------
    def hoist(self, e: Expr, out: list) -> Expr:
        if not self.has(e):
            return e
        if e.op in LAZY:
            inner = next(x for a in e.args[1:] for x in iter_exprs(a) if self.lowered(x))
            raise RenderError.at(inner.loc, "a warp collective in an arm of a conditional "
                                 "expression or and/or cannot be written with barriers: assign "
                                 "it to a local first")
        e = e.replace(args=tuple(self.hoist(a, out) for a in e.args))
        return self.collective(e, out) if self.lowered(e) else e

    def stmt(self, s: N.Stmt):
        if isinstance(s, N.ExprStmt) and s.value.op in WGMMA_OPS:  # loops (passes/wgmma_loops.py)
            self.mma_done = None
            return lower_wgmma(s.value, s.loc, self.local, self.fresh_local)
        if not any(x.op is Op.MMA for x in stmt_exprs(s)):
            self.mma_done = None  # only consecutive MMA statements share an exchange
        if not any(self.lowered(x) for x in stmt_exprs(s)):
            return s
        if isinstance(s, N.While):
            x = next(x for x in stmt_exprs(s) if self.lowered(x))
            raise RenderError.at(x.loc, "a warp collective in a while condition cannot be "
                                 "written with barriers: compute it into a local before the "
                                 "loop and at the end of its body")
        out: list = []
        s = map_stmt_exprs(s, lambda e: self.hoist(e, out))
        if isinstance(s, N.Assign) and self.mma_done is not None and s.name in self.mma_done[2]:
            self.mma_done = None  # an operand changes: the next MMA exchanges again
        return out + [s]


def _ids(e: Expr) -> Expr:
    """LANE_ID and WARP_ID from THREAD_ID."""
    if e.op not in (Op.LANE_ID, Op.WARP_ID):
        return e
    tid = Expr(Op.THREAD_ID, dt.i32, (), None, e.loc)
    if e.op is Op.LANE_ID:
        return Expr(Op.AND_, dt.i32, (tid, Expr(Op.CONST, dt.i32, (), WARP - 1, e.loc)), None,
                    e.loc)
    return Expr(Op.SHR, dt.i32, (tid, Expr(Op.CONST, dt.i32, (), WARP.bit_length() - 1, e.loc)),
                None, e.loc)


def warps_through_shared(kir: KernelIR, prefix: str = "tk_w",
                         keep: Callable[[Expr], bool] = _never) -> KernelIR:
    """`kir` with its warp operations written with shared arrays and barriers, except those
    `keep` accepts; names it adds start with `prefix`."""
    body = map_body(kir.body, _ids)
    low = _Lowering(kir, prefix, keep)
    body = map_stmts(body, low.stmt)
    if body == kir.body:
        return kir
    return dataclasses.replace(kir, body=body, locals=low.locals, scratch=low.scratch,
                               tables=low.tables)
