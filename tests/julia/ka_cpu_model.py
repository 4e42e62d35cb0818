"""A model of how KernelAbstractions 0.9's CPU backend runs the IR the Julia renderer prints, to
check the barrier rewrites (render/julia/rewrites.py) end to end without Julia.

`run(kir, args, n)` takes the IR *after* `ka.REWRITES` and executes it the way KA's
`split`/`emit_cpu` (https://github.com/JuliaGPU/KernelAbstractions.jl/blob/main/src/macros.jl;
explained in docs/design/003-julia-rendering.md, "Barriers") execute the rendered kernel, group
by group (256 lanes, the kernel's static workgroup size):

* the statements between two statements holding an `@synchronize` form a segment, run as one loop
  over the active lanes of the group (lane t < n); each segment starts with fresh plain locals,
  zeroed, exactly like the `local v::T = zero(T)` the printer puts at its top — so a value that
  a rewrite failed to keep in a cell is lost, as it would be in Julia;
* `local` scratch arrays (`@private`, the cells among them) are per lane and survive segments;
  `shared` ones (`@localmem`) are per group; both start as garbage (NaN / a large integer), since
  KA does not initialize them;
* an `if`/`while` holding a barrier runs once per group: its condition may read only parameters
  and shared arrays, anything else raises (in Julia: an undefined variable or a view).

Op values come from `ir.semantics.evaluate` (the folder's table) plus the few ops it leaves out.
"""
from __future__ import annotations

import math

import numpy as np
from tack.dtypes import convert
from tack.ir import nodes as N
from tack.ir.ops import ATOMIC, Op
from tack.ir.semantics import evaluate
from tack.render.julia.ka import REWRITES
from tack.render.julia.rewrites import has_barrier

LANES = 256


class GroupLevelRead(Exception):
    """A condition evaluated once per group read a per-lane value."""


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


def _garbage(t, size):
    return np.full(size, np.nan if t.is_float else 0x5A5A5A5A, t.np if t.is_float else np.int64)


def _fmin(a, b, lo):
    better = a < b if lo else a > b
    return a if better or math.isnan(b) else b


class Model:
    def __init__(self, kir: N.KernelIR, args, n: int):
        self.kir, self.n = kir, n
        self.arrays = {p.name: a for p, a in zip(kir.params, args) if p.kind == "array"}
        # constant tables (read-only, flat): Julia's module-level constants
        self.arrays.update({t.name: np.array(t.values, t.dtype.np).reshape(-1)
                            for t in kir.tables.values()})
        self.scalars = {p.name: a for p, a in zip(kir.params, args) if p.kind == "scalar"}

    def run(self):
        for g in range((self.n + LANES - 1) // LANES):
            self.shared = {s.name: _garbage(s.dtype, s.size) for s in self.kir.scratch.values()
                           if s.space == "shared"}
            self.private = [{s.name: _garbage(s.dtype, s.size) for s in self.kir.scratch.values()
                             if s.space == "local"} for _ in range(LANES)]
            self.group = g
            self.block(self.kir.body)

    # group level: KA's `split`
    def block(self, body):
        current = []
        for s in body + [None]:
            if s is not None and not has_barrier(s):
                current.append(s)
                continue
            if current:
                self.segment(current)
            current = []
            if isinstance(s, N.If):
                self.block(s.then if self.uniform(s.cond) else s.orelse)
            elif isinstance(s, N.While):
                while self.uniform(s.cond):
                    self.block(s.body)
            elif s is not None and not isinstance(s, N.Barrier):
                raise TypeError(f"{type(s).__name__} holding a barrier")

    def uniform(self, cond) -> bool:
        self.lane = None
        return bool(self.expr(cond))

    def segment(self, stmts):
        for lane in range(LANES):
            t = self.group * LANES + lane
            if t >= self.n:
                break
            self.lane, self.t = lane, t
            self.locals = {}
            self.stmts(stmts)

    # one lane
    def stmts(self, body):
        for s in body:
            if isinstance(s, N.Assign):
                self.locals[s.name] = self.expr(s.value)
            elif isinstance(s, N.Store):
                self.array(s.array)[self.expr(s.indices[0])] = self.expr(s.value)
            elif isinstance(s, N.ExprStmt):
                self.expr(s.value)
            elif isinstance(s, N.If):
                self.stmts(s.then if self.expr(s.cond) else s.orelse)
            elif isinstance(s, N.While):
                self.loop(lambda c=s.cond: self.expr(c), s.body)
            elif isinstance(s, N.For):
                lo, hi = self.expr(s.start), self.expr(s.stop)
                it = iter(range(lo, hi))

                def more(it=it, var=s.var):
                    v = next(it, None)
                    if v is not None:
                        self.locals[var] = v
                    return v is not None
                self.loop(more, s.body)
            elif isinstance(s, N.Break):
                raise _Break
            elif isinstance(s, N.Continue):
                raise _Continue
            else:
                raise TypeError(f"{type(s).__name__} in a segment")

    def loop(self, more, body):
        while more():
            try:
                self.stmts(body)
            except _Break:
                break
            except _Continue:
                continue

    def array(self, name):
        if name in self.arrays:
            return self.arrays[name]
        if name in self.shared:
            return self.shared[name]
        if self.lane is None:
            raise GroupLevelRead(f"the @private {name}")
        return self.private[self.lane][name]

    def expr(self, e: N.Expr):
        op = e.op
        if op is Op.CONST:
            return e.arg
        if op is Op.PARAM:
            return self.scalars[e.arg]
        if op in (Op.VAR, Op.LAUNCH, Op.THREAD_ID) and self.lane is None:
            raise GroupLevelRead(f"{op.name} {e.arg or ''}")
        if op is Op.VAR:
            return self.locals.get(e.arg, 0)  # the zeroed `local` declaration
        if op is Op.LAUNCH:
            return self.t
        if op is Op.THREAD_ID:
            return self.lane
        if op is Op.IFEXP:
            return self.expr(e.args[1] if self.expr(e.args[0]) else e.args[2])
        if op in (Op.LAND, Op.LOR):
            a = bool(self.expr(e.args[0]))
            return int(a if a == (op is Op.LOR) else bool(self.expr(e.args[1])))
        args = [self.expr(a) for a in e.args]
        if op is Op.ASYNC_COPY:  # synchronous, as the printer renders it (docs/julia.md)
            (dst, src, count), (j, i) = e.arg, args
            for k in range(count):
                self.array(dst)[j + k] = self.array(src)[i + k]
            return 0
        if op in (Op.ASYNC_COMMIT, Op.ASYNC_WAIT):  # `nothing`: the copies are done
            return 0
        if op is Op.LOAD:
            return convert(self.array(e.arg)[args[0]].item(), e.dtype)
        if op in ATOMIC:
            arr, k, v = self.array(e.arg), args[0], args[1]  # global or shared
            old = convert(arr[k].item(), e.dtype)
            if op is Op.ATOMIC_ADD:
                new = convert(old + v, e.dtype) if e.dtype.is_float else old + v
            elif e.dtype.is_float:
                new = _fmin(old, v, op is Op.ATOMIC_MIN)
            else:
                new = (min if op is Op.ATOMIC_MIN else max)(old, v)
            arr[k] = convert(new, e.dtype)
            return old
        if op is Op.SELECT:
            return args[1] if args[0] else args[2]
        if op in (Op.MIN, Op.MAX) and e.dtype.is_float:  # a NaN loses (TackRuntime.tk_minnum)
            return _fmin(args[0], args[1], op is Op.MIN)
        if op is Op.FDIV:
            return convert(args[0] / args[1] if args[1] else math.copysign(math.inf, args[0]),
                           e.dtype)
        v = evaluate(op, e.dtype, args, e.args[0].dtype if e.args else None)
        if v is None:
            raise NotImplementedError(f"the model has no {op.name} on {e.dtype.name}")
        return v


def rewritten(kir: N.KernelIR, rewrites=REWRITES) -> N.KernelIR:
    """`kir` after the Julia renderer's rewrites (all of them by default): what `run` takes."""
    for r in rewrites:
        kir = r(kir)
    return kir


def run(kir: N.KernelIR, args, n: int) -> None:
    """Run the rewritten `kir` on NumPy arrays (flat, updated in place) and scalars."""
    Model(kir, [np.ascontiguousarray(a).reshape(-1) if isinstance(a, np.ndarray) else a
                for a in args], n).run()

