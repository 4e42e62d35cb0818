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

Op values come from `ir.semantics.evaluator` (the folder's table) plus the few ops it leaves out.
Each expression and statement list is compiled once per kernel into a Python closure over the
lane (`Lane`), its op's function, dtype and array chosen ahead, so the per-lane work is only the
calls; the closures run in the order above: `block` is KA's split, `segment` its loop over lanes.
"""
from __future__ import annotations

import math

import numpy as np
from tack.dtypes import converter
from tack.ir import nodes as N
from tack.ir.ops import ATOMIC, Op
from tack.ir.semantics import evaluator
from tack.render.julia.ka import REWRITES
from tack.render.julia.rewrites import has_barrier

LANES = 256


class GroupLevelRead(Exception):
    """A condition evaluated once per group read a per-lane value."""


class Unending(Exception):
    """A `while` ran past its limit of iterations: in Julia it would not end either (a value a
    rewrite failed to keep across a barrier reads as zero and keeps its condition true)."""


MAX_TRIPS = 1_000_000  # one lane's loop's iterations; the tests' kernels run far fewer
MAX_GROUP_TRIPS = 1_000  # a group-level loop's (each runs every lane): tile loops run tens


def _too_long(where: str, limit: int):
    raise Unending(f"a {where} `while` ran past {limit} iterations")


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


def _garbage(t, shape):
    return np.full(shape, np.nan if t.is_float else 0x5A5A5A5A, t.np if t.is_float else np.int64)


def _fmin(a, b, lo):
    better = a < b if lo else a > b
    return a if better or math.isnan(b) else b


def _raise(exc):
    """A closure that raises `exc` when run: the model fails where Julia would, not before."""
    def fail(*_):
        raise exc
    return fail


class _Constant:
    """A compiled CONST or PARAM: its value, also read directly by the ops that take it."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __call__(self, lane):
        return self.value


class Lane:
    """One lane in one segment. The compiled code takes it as its one argument, or None at group
    level (a barrier's `if`/`while` condition), where reading a per-lane value raises."""

    __slots__ = ("id", "t", "vars")

    def __init__(self, lane: int, t: int):
        self.id, self.t = lane, t
        self.vars = {}  # plain locals: fresh in every segment, read as zero until assigned


class Model:
    def __init__(self, kir: N.KernelIR, args, n: int):
        self.kir, self.n = kir, n
        self.arrays = {p.name: a for p, a in zip(kir.params, args) if p.kind == "array"}
        # constant tables (read-only, flat): Julia's module-level constants
        self.arrays.update({t.name: np.array(t.values, t.dtype.np).reshape(-1)
                            for t in kir.tables.values()})
        self.scalars = {p.name: a for p, a in zip(kir.params, args) if p.kind == "scalar"}
        # Scratch arrays, made once and set back to garbage at every group's start: @localmem
        # one per group, @private one row per lane.
        scratch = kir.scratch.values()
        self.shared = {s.name: _garbage(s.dtype, s.size) for s in scratch if s.space == "shared"}
        self.private = {s.name: _garbage(s.dtype, (LANES, s.size))
                        for s in scratch if s.space == "local"}
        self.fresh = [(a, a.copy()) for a in (*self.shared.values(), *self.private.values())]
        self.group = 0
        self.body = self.block(kir.body)

    def run(self):
        for g in range((self.n + LANES - 1) // LANES):
            for a, garbage in self.fresh:
                np.copyto(a, garbage)
            self.group = g
            self.body()

    # group level: KA's `split`
    def block(self, body):
        """`body` run once per group: the barrier-free runs of statements become segments; an
        `if` or `while` holding a barrier branches or loops the whole group."""
        steps, current = [], []
        for s in body + [None]:
            if s is not None and not has_barrier(s):
                current.append(s)
                continue
            if current:
                steps.append(self.segment(current))
            current = []
            if isinstance(s, N.If):
                steps.append(self.group_if(self.uniform(s.cond), self.block(s.then),
                                           self.block(s.orelse)))
            elif isinstance(s, N.While):
                steps.append(self.group_while(self.uniform(s.cond), self.block(s.body)))
            elif s is not None and not isinstance(s, N.Barrier):
                steps.append(_raise(TypeError(f"{type(s).__name__} holding a barrier")))

        def run_block():
            for step in steps:
                step()
        return run_block

    @staticmethod
    def group_if(cond, then, orelse):
        return lambda: (then if cond() else orelse)()

    @staticmethod
    def group_while(cond, body):
        def run_while():
            trips = 0
            while cond():
                trips += 1
                if trips > MAX_GROUP_TRIPS:
                    _too_long("group-level", MAX_GROUP_TRIPS)
                body()
        return run_while

    def uniform(self, cond):
        value = self.expr(cond)
        return lambda: bool(value(None))

    def segment(self, stmts):
        body = self.stmts(stmts)

        def run_segment():
            first = self.group * LANES
            for lane in range(min(LANES, self.n - first)):  # the active lanes, t < n
                body(Lane(lane, first + lane))
        return run_segment

    # one lane
    def stmts(self, body):
        run = [self.stmt(s) for s in body]
        if len(run) == 1:
            return run[0]

        def run_stmts(lane):
            for s in run:
                s(lane)
        return run_stmts

    def stmt(self, s):
        if isinstance(s, N.Assign):
            name, value = s.name, self.expr(s.value)

            def assign(lane):
                lane.vars[name] = value(lane)
            return assign
        if isinstance(s, N.Store):
            value, array, index = self.expr(s.value), self.array(s.array), self.expr(s.indices[0])

            def store(lane):
                v = value(lane)
                array(lane)[index(lane)] = v
            return store
        if isinstance(s, N.ExprStmt):
            return self.expr(s.value)
        if isinstance(s, N.If):
            cond, then, orelse = self.expr(s.cond), self.stmts(s.then), self.stmts(s.orelse)
            return lambda lane: (then if cond(lane) else orelse)(lane)
        if isinstance(s, N.While):
            return self.lane_while(self.expr(s.cond), self.stmts(s.body))
        if isinstance(s, N.For):
            return self.lane_for(s.var, self.expr(s.start), self.expr(s.stop), self.stmts(s.body))
        if isinstance(s, N.Break):
            return _raise(_Break)
        if isinstance(s, N.Continue):
            return _raise(_Continue)
        return _raise(TypeError(f"{type(s).__name__} in a segment"))

    @staticmethod
    def lane_while(cond, body):
        def run_while(lane):
            trips = 0
            while cond(lane):
                trips += 1
                if trips > MAX_TRIPS:
                    _too_long("lane's", MAX_TRIPS)
                try:
                    body(lane)
                except _Break:
                    break
                except _Continue:
                    continue
        return run_while

    @staticmethod
    def lane_for(var, start, stop, body):
        def run_for(lane):
            for v in range(start(lane), stop(lane)):
                lane.vars[var] = v
                try:
                    body(lane)
                except _Break:
                    break
                except _Continue:
                    continue
        return run_for

    def array(self, name):
        """The array `name` as a function of the lane: a parameter, a table or the group's
        @localmem, else the lane's own @private row."""
        fixed = self.arrays[name] if name in self.arrays else self.shared.get(name)
        if fixed is not None:
            return lambda lane: fixed
        rows = list(self.private[name])

        def private(lane):
            if lane is None:
                raise GroupLevelRead(f"the @private {name}")
            return rows[lane.id]
        return private

    def stored_as(self, name):
        """The NumPy dtype of the array `name`'s elements."""
        for arrays in (self.arrays, self.shared, self.private):
            if name in arrays:
                return getattr(arrays[name], "dtype", None)
        return None

    def expr(self, e: N.Expr):
        """`e` compiled: a function of the lane giving its value."""
        op, t = e.op, e.dtype
        if op is Op.CONST:
            return _Constant(e.arg)
        if op is Op.PARAM:
            return _Constant(self.scalars[e.arg])
        if op in (Op.VAR, Op.LAUNCH, Op.THREAD_ID):
            return self.lane_value(op, e.arg)
        if op is Op.IFEXP:
            c, a, b = (self.expr(x) for x in e.args)
            return lambda lane: a(lane) if c(lane) else b(lane)
        if op is Op.LAND:
            a, b = (self.expr(x) for x in e.args)
            return lambda lane: int(bool(a(lane)) and bool(b(lane)))
        if op is Op.LOR:
            a, b = (self.expr(x) for x in e.args)
            return lambda lane: int(bool(a(lane)) or bool(b(lane)))
        args = [self.expr(a) for a in e.args]
        if op is Op.ASYNC_COPY:  # synchronous, as the printer renders it (docs/julia.md)
            return self.async_copy(e.arg, *args)
        if op in (Op.ASYNC_COMMIT, Op.ASYNC_WAIT):  # `nothing`: the copies are done
            return _apply(lambda *_: 0, args)
        if op is Op.LOAD:
            array, (index,) = self.array(e.arg), args
            if self.stored_as(e.arg) == t.np and t.kind in "iuf":
                # `convert` would give the same value: `item` of a `t` element is one of `t`'s
                return lambda lane: array(lane)[index(lane)].item()
            to_t = converter(t)
            return lambda lane: to_t(array(lane)[index(lane)].item())
        if op in ATOMIC:
            return self.atomic(op, t, self.array(e.arg), *args)
        if op is Op.SELECT:
            return _apply(lambda c, a, b: a if c else b, args)
        if op in (Op.MIN, Op.MAX) and t.is_float:  # a NaN loses (TackRuntime.tk_minnum)
            lo = op is Op.MIN
            return _apply(lambda a, b: _fmin(a, b, lo), args)
        if op is Op.FDIV:
            to_t = converter(t)
            return _apply(lambda a, b: to_t(a / b if b else math.copysign(math.inf, a)), args)
        missing = NotImplementedError(f"the model has no {op.name} on {t.name}")
        f = evaluator(op, t, e.args[0].dtype if e.args else None)
        return _apply(_raise(missing) if f is None else f, args, missing)

    @staticmethod
    def lane_value(op, name):
        what = f"{op.name} {name or ''}"

        def var(lane):
            if lane is None:
                raise GroupLevelRead(what)
            return lane.vars.get(name, 0)  # the zeroed `local` declaration

        def launch_index(lane):
            if lane is None:
                raise GroupLevelRead(what)
            return lane.t

        def thread_id(lane):
            if lane is None:
                raise GroupLevelRead(what)
            return lane.id
        return {Op.VAR: var, Op.LAUNCH: launch_index, Op.THREAD_ID: thread_id}[op]

    def async_copy(self, arg, dst_index, src_index):
        dst_name, src_name, count = arg
        dst, src = self.array(dst_name), self.array(src_name)

        def copy(lane):
            j, i = dst_index(lane), src_index(lane)
            for k in range(count):
                dst(lane)[j + k] = src(lane)[i + k]
            return 0
        return copy

    @staticmethod
    def atomic(op, t, array, index, value):
        """Global or shared: the old value, converted, back; the new one stored."""
        to_t = converter(t)

        def update(lane):
            k, v = index(lane), value(lane)
            arr = array(lane)
            old = to_t(arr[k].item())
            if op is Op.ATOMIC_ADD:
                new = to_t(old + v) if t.is_float else old + v
            elif t.is_float:
                new = _fmin(old, v, op is Op.ATOMIC_MIN)
            else:
                new = (min if op is Op.ATOMIC_MIN else max)(old, v)
            arr[k] = to_t(new)
            return old
        return update


def _apply(f, args, missing=None):
    """`f` over the values of the compiled `args`, evaluated left to right; `missing` is raised
    where `f` gives None (an operand outside the op's domain: `evaluator`'s functions; the
    model's own never give None)."""
    if len(args) == 1:
        (a,) = args

        def unary(lane):
            v = f(a(lane))
            if v is None:
                raise missing
            return v
        return unary
    if len(args) == 2:
        a, b = args
        if isinstance(b, _Constant):  # `x + 1`, `i < n`: one call fewer
            b = b.value

            def with_constant(lane):
                v = f(a(lane), b)
                if v is None:
                    raise missing
                return v
            return with_constant

        def binary(lane):
            v = f(a(lane), b(lane))
            if v is None:
                raise missing
            return v
        return binary
    if len(args) == 3:
        a, b, c = args

        def ternary(lane):
            v = f(a(lane), b(lane), c(lane))
            if v is None:
                raise missing
            return v
        return ternary

    def nary(lane):
        v = f(*[a(lane) for a in args])
        if v is None:
            raise missing
        return v
    return nary


def rewritten(kir: N.KernelIR, rewrites=REWRITES) -> N.KernelIR:
    """`kir` after the Julia renderer's rewrites (all of them by default): what `run` takes."""
    for r in rewrites:
        kir = r(kir)
    return kir


def run(kir: N.KernelIR, args, n: int) -> None:
    """Run the rewritten `kir` on NumPy arrays (flat, updated in place) and scalars."""
    Model(kir, [np.ascontiguousarray(a).reshape(-1) if isinstance(a, np.ndarray) else a
                for a in args], n).run()
