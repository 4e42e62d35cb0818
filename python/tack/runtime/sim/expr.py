"""Expressions of the final IR over the active lanes: one NumPy operation per IR op.

A value is an array with one element per active lane, or a NumPy scalar when it is the same for
every lane (constants, scalar parameters and what is computed from them only). The op table is
`ir.semantics.NUMPY`, shared with constant folding's scalar table; this module adds what needs
the lanes: variables, memory, atomics, print, and the lazy ops (LAND, LOR, IFEXP evaluate their
second operand only on the lanes that need it, so a guarded load never runs out of bounds).
"""
from __future__ import annotations

import numpy as np

from ...ir.nodes import Expr
from ...ir.ops import ARITH_BINARY, COMPARISON, UNARY, WARP, WORKGROUP, Op
from ...ir.semantics import np_bitcast, np_cast, np_evaluate
from . import atomics
from .fma import fma32, fma64
from .lanes import Lanes, npdtype, spread
from .printing import format_lines
from .trace import Site

_TABLE = (ARITH_BINARY | COMPARISON | UNARY) - {Op.NOT}


class Evaluator:
    """Evaluates expressions; the chunk state (locals, memory, epochs) is set by the executor."""

    def __init__(self, params: dict, memory):
        self.params = params  # scalar parameter -> NumPy scalar of its dtype
        self.memory = memory
        self.locals: dict[str, np.ndarray] = {}
        self.epoch: np.ndarray | None = None  # barriers completed, per workgroup of the chunk
        self.prints: list = []  # (launch indices, lines) per executed print
        self._sites: dict[int, Site] = {}
        self.handlers = {Op.CONST: Evaluator.const, Op.VAR: Evaluator.var,
                         Op.PARAM: Evaluator.param, Op.LAUNCH: Evaluator.launch,
                         Op.THREAD_ID: Evaluator.thread_id, Op.LANE_ID: Evaluator.lane_id,
                         Op.WARP_ID: Evaluator.warp_id, Op.CAST: Evaluator.cast,
                         Op.BITCAST: Evaluator.bitcast,
                         Op.SELECT: Evaluator.select, Op.IFEXP: Evaluator.ifexp,
                         Op.LAND: Evaluator.land, Op.LOR: Evaluator.lor, Op.NOT: Evaluator.not_,
                         Op.LOAD: Evaluator.load, Op.PRINT: Evaluator.print_}
        for op in _TABLE:
            self.handlers[op] = Evaluator.table
        for op in (Op.ATOMIC_ADD, Op.ATOMIC_MIN, Op.ATOMIC_MAX):
            self.handlers[op] = Evaluator.atomic
        self.handlers[Op.ADD] = self.handlers[Op.SUB] = Evaluator.add_sub
        self.handlers[Op.MULADD] = Evaluator.muladd

    def site(self, node) -> Site:
        s = self._sites.get(id(node))
        if s is None:
            s = self._sites[id(node)] = Site.of(node.loc)
        return s

    def ev(self, e: Expr, act: Lanes):
        return self.handlers[e.op](self, e, act)

    # ---- leaves ----------------------------------------------------------------------------------
    def const(self, e, act):
        return npdtype(e.dtype).type(e.arg)

    def var(self, e, act):
        return self.locals[e.arg][act.sel]

    def param(self, e, act):
        return self.params[e.arg]

    def launch(self, e, act):
        return act.t

    def thread_id(self, e, act):
        return (act.t % WORKGROUP).astype(np.int32)

    def lane_id(self, e, act):
        return (act.t % WARP).astype(np.int32)

    def warp_id(self, e, act):
        return (act.t % WORKGROUP // WARP).astype(np.int32)

    # ---- arithmetic ------------------------------------------------------------------------------
    def table(self, e, act):
        return np_evaluate(e.op, e.dtype, [self.ev(a, act) for a in e.args])

    def add_sub(self, e, act):
        """f32 `a * b ± c` fused into one rounding, as `muladd` below, for IR that did not go
        through passes/muladd.py."""
        a, b = e.args
        if e.dtype.bits != 32 or not e.dtype.is_float or Op.MUL not in (a.op, b.op):
            return self.table(e, act)
        mul, other, sign = (a, b, 1.0) if a.op is Op.MUL else (b, a, -1.0)
        x, y = (self.ev(m, act) for m in mul.args)
        c = self.ev(other, act)
        if e.op is Op.ADD:
            return fma32(x, y, c)
        return fma32(x, y, -c) if sign > 0 else fma32(-x, y, c)

    def muladd(self, e, act):
        """`MULADD` (passes/muladd.py): rounded once, as the CPU's and the GPU's FMA
        (runtime/sim/fma.py)."""
        x, y, z = (self.ev(a, act) for a in e.args)
        fused = {32: fma32, 64: fma64}.get(e.dtype.bits)
        return x * y + z if fused is None else fused(x, y, z)

    def not_(self, e, act):
        return np.logical_not(self.ev(e.args[0], act))

    def cast(self, e, act):
        return np_cast(self.ev(e.args[0], act), e.dtype, e.args[0].dtype)

    def bitcast(self, e, act):
        return np_bitcast(self.ev(e.args[0], act), e.dtype, e.args[0].dtype)

    def select(self, e, act):
        c, a, b = (self.ev(x, act) for x in e.args)
        return np.where(c, a, b) if np.ndim(c) or np.ndim(a) or np.ndim(b) else (a if c else b)

    def ifexp(self, e, act):
        c = self.ev(e.args[0], act)
        if np.ndim(c) == 0:
            return self.ev(e.args[1] if c else e.args[2], act)
        out = np.empty(act.count, npdtype(e.dtype))
        for mask, arm in ((c, e.args[1]), (~c, e.args[2])):
            sub = act.where(mask)
            if sub.count:
                out[mask] = self.ev(arm, sub)
        return out

    def land(self, e, act):
        return self._lazy(e, act, True)

    def lor(self, e, act):
        return self._lazy(e, act, False)

    def _lazy(self, e, act, need: bool):
        """LAND (need=True: the second operand matters where the first holds) and LOR."""
        a = self.ev(e.args[0], act)
        if np.ndim(a) == 0:
            return self.ev(e.args[1], act) if bool(a) == need else np.bool_(not need)
        out = np.array(a, bool)
        mask = out.copy() if need else ~out
        sub = act.where(mask)
        if sub.count:
            out[mask] = self.ev(e.args[1], sub)
        return out

    # ---- memory ----------------------------------------------------------------------------------
    def load(self, e, act):
        return self.memory.load(e.arg, self.ev(e.args[0], act), act, self.epoch, self.site(e),
                                npdtype(e.dtype))

    def atomic(self, e, act):
        mem, site = self.memory, self.site(e)
        b = mem.buffers[e.arg]
        idx, val = self.ev(e.args[0], act), self.ev(e.args[1], act)
        ok, a, i = mem.address(b, idx, act, site)
        vals = spread(val, act.count, b.data.dtype)
        if ok is not None:
            vals = vals[ok]
        flat = b.flat(i, a)
        old = atomics.update(e.op, b.data, flat, vals)
        if b.written is not None:
            b.written[flat] = True
        mem.record("atomic", b, a, i, self.epoch, site)
        if ok is None:
            return old
        out = np.zeros(act.count, b.data.dtype)
        out[ok] = old
        return out

    def print_(self, e, act):
        if act.count:
            values = [spread(self.ev(a, act), act.count, npdtype(a.dtype)) for a in e.args]
            self.prints.append((act.t, format_lines(e.arg, e.args, values)))
        return np.int32(0)
