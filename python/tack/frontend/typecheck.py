"""Untyped IR + argument types → typed IR (`KernelIR`), specialized on dtypes, ranks and baked shapes.

Rules (TACK_API.md §1.7): integer literals are the narrowest of i32/i64/u64; float literals are weak
(they take the floating type they meet, f32 alone or beside integers); promotion keeps both full
ranges and rejects signed with u64; `/` of integers is f32; comparisons give bool; each local has
one type joined over all its assignments.
"""
from __future__ import annotations

from dataclasses import dataclass

from .. import dtypes as dt
from ..dtypes import DType
from ..dtypes import VecType
from ..errors import TackNameError, TackTypeError, UnsupportedSyntaxError, format_at
from ..ir import nodes as N
from ..dtypes import convert
from ..ir.nodes import Expr, KernelIR, Param
from ..ir.ops import ATOMIC, COMPARISON, MATH_BINARY, MATH_UNARY, Op
from .untyped import DeclScratch, SetComponent, TupleTemp
from .vectors import ELEMENTWISE, VecVal, VectorRules, comp_name, typed

WEAK = dt.weak_float
_ARITH = {Op.ADD, Op.SUB, Op.MUL, Op.FLOORDIV, Op.MOD, Op.MIN, Op.MAX}
_BITWISE = {Op.AND_, Op.OR_, Op.XOR}


@dataclass(frozen=True)
class ArgSpec:
    kind: str  # 'array' | 'scalar'
    dtype: DType
    ndim: int = 0
    shape: tuple = ()


class _Pending(Exception):
    """A local's type is not known yet in this inference round."""


class TypeChecker(VectorRules):
    def __init__(self, pk, specs: dict[str, ArgSpec], kind: str = "Kernel", debug: bool = False):
        self.pk = pk
        self.debug = debug  # debug variants bake every extent, for the bounds checks
        self.specs = specs
        self.kind = kind
        self.types: dict[str, DType] = {}
        self.final = False
        self.dead: set[str] = set()
        self.baked: dict[str, set[int]] = {}
        self.rename = self._param_locals()
        self.scratch: dict[str, N.Scratch] = {}
        self._pre: list[N.Stmt] = []  # atomics bound to temporaries before their statement
        self._eager = True  # False inside lazy arms and while conditions: nothing is hoisted
        self._ntmp = 0
        self.weak_locals = self._weak_locals()
        self._literals: dict[int, Expr] = {}

    # -- errors ---------------------------------------------------------------------------------
    def type_error(self, e, msg: str, hint: str | None = None):
        loc = e.loc
        return TackTypeError(format_at(loc, f"{self.kind} '{self.pk.name}': {msg} at line "
                                            f"{loc.line}, column {loc.col}", hint))

    # -- driver ---------------------------------------------------------------------------------
    def _weak_locals(self) -> dict[str, Expr]:
        """Locals assigned exactly once, to float literals: their reads are those weak literals
        (so `h = 0.1` then `x64 * h` computes with the exact double, as `x64 * 0.1` would)."""
        from ..ir.walk import iter_stmts

        counts: dict[str, int] = {}
        values: dict[str, Expr] = {}
        # A tuple assignment's target is assigned its value, not the hidden temporary holding it.
        temps = {st.name: st.value for st in iter_stmts(self.pk.body) if isinstance(st, TupleTemp)}
        for st in iter_stmts(self.pk.body):
            name = st.name if isinstance(st, N.Assign) else getattr(st, "var", None)
            if name is None:
                continue
            counts[name] = counts.get(name, 0) + 1
            v = getattr(st, "value", None)
            if isinstance(v, Expr) and v.op is Op.VAR and v.arg in temps:
                v = temps[v.arg]
            if isinstance(st, N.Assign) and _literal_float_expr(v):
                values[name] = v
        return {n: v for n, v in values.items()
                if counts[n] == 1 and n not in self.pk.params and n != self.pk.loop_var}

    def _param_locals(self) -> dict[str, str]:
        """Scalar parameters assigned in the body become per-iteration locals with fresh names."""
        taken = set(self.pk.params) | self.pk.assigned
        out = {}
        for p in self.pk.params:
            if p in self.pk.assigned and self.specs[p].kind == "scalar":
                name = f"{p}_"
                while name in taken:
                    name += "_"
                taken.add(name)
                out[p] = name
        return out

    def run(self) -> KernelIR:
        for p, local in self.rename.items():
            self.types[local] = self.specs[p].dtype
        var_dt = self._loop_var_dtype()
        for v in self.pk.loop_vars or (self.pk.loop_var,):
            self.types[v] = var_dt
        for _ in range(32):
            before = dict(self.types)
            self.dead = set()
            self._ntmp = 0
            self.block(self.pk.body)
            if before == self.types:
                break
        self.final = True
        self.dead = set()
        self._ntmp = 0
        prefix = self._prefix(var_dt)
        body = prefix + self.block(self.pk.body)
        params = []
        for p in self.pk.params:
            s = self.specs[p]
            if s.kind == "array":
                baked = set(range(s.ndim)) if self.debug else self.baked.get(p, set())
                shape = tuple(s.shape[k] if k in baked else None for k in range(s.ndim))
                t = s.dtype
                if isinstance(t, VecType):  # components are trailing dimensions
                    shape, t = shape + t.shape, t.elem
                params.append(Param(p, "array", t, len(shape), shape, _writes(body, p)))
            else:
                params.append(Param(p, "scalar", s.dtype))
        hidden = self.pk.host_range.hidden
        params += [Param(h, "scalar", dt.i64) for h in hidden]
        local_types = {n: dt.concrete(t) for n, t in self.types.items()
                       if not isinstance(t, VecType)}
        return KernelIR(self.pk.name, params, body, local_types, self.pk.loc,
                        self.pk.source.file, hidden, scratch=self.scratch)

    def _loop_var_dtype(self) -> DType:
        t = dt.i32
        for name in self.pk.host_range.uses:
            s = self.specs[name]
            u = dt.i64 if s.kind == "array" else s.dtype
            t = dt.promote(t, u) or dt.i64
        t = t if t.is_int else dt.i64
        for v in self.pk.host_range.literals:  # range(4999999990, 5000000000) needs an i64
            if not t.min() <= v <= t.max():
                u = dt.int_literal_dtype(v)
                t = (dt.promote(t, u) if u is not None else None) or dt.i64
        return t

    def _prefix_nd(self, var_dt: DType) -> list[N.Stmt]:
        """ndrange: t → (i, j[, k]), the last index fastest."""
        loc, dims = self.pk.loop_loc, self.pk.host_range.dims
        p = lambda name: Expr(Op.PARAM, dt.i64, (), name, loc)  # noqa: E731
        t = Expr(Op.LAUNCH, dt.i64, (), None, loc)
        out = []
        rest = t
        for d in range(dims - 1, -1, -1):
            if d == 0:
                local = rest
            else:
                ext = p(f"__ext{d}")
                local = Expr(Op.IREM, dt.i64, (rest, ext), None, loc)
                rest = Expr(Op.IDIV, dt.i64, (rest, ext), None, loc)
            idx = Expr(Op.ADD, dt.i64, (p(f"__start{d}"), local), None, loc)
            if var_dt is not dt.i64:
                idx = Expr(Op.CAST, var_dt, (idx,), None, loc)
            out.insert(0, N.Assign(loc, self.pk.loop_vars[d], idx))
        return out

    def _prefix(self, var_dt: DType) -> list[N.Stmt]:
        loc = self.pk.loop_loc
        hr = self.pk.host_range
        if hr.form == "nd":
            return self._prefix_nd(var_dt) + self._param_prefix(loc)
        idx: Expr = Expr(Op.LAUNCH, dt.i64, (), None, loc)
        if hr.form == "step":
            step = (Expr(Op.CONST, dt.i64, (), hr.literal_step, loc) if hr.literal_step is not None
                    else Expr(Op.PARAM, dt.i64, (), "__step", loc))
            idx = Expr(Op.MUL, dt.i64, (idx, step), None, loc)
        if hr.form in ("start", "step"):
            idx = Expr(Op.ADD, dt.i64, (Expr(Op.PARAM, dt.i64, (), "__start", loc), idx), None, loc)
        if var_dt is not dt.i64:
            idx = Expr(Op.CAST, var_dt, (idx,), None, loc)
        return [N.Assign(loc, self.pk.loop_var, idx)] + self._param_prefix(loc)

    def _param_prefix(self, loc) -> list[N.Stmt]:
        out = []
        for p, local in self.rename.items():  # an assigned scalar parameter starts from its value
            t = self.specs[p].dtype
            out.append(N.Assign(loc, local, self.coerce(Expr(Op.PARAM, t, (), p, loc),
                                                        dt.concrete(self.types[local]))))
        return out

    # -- statements -----------------------------------------------------------------------------
    def block(self, stmts) -> list[N.Stmt]:
        out = []
        for s in stmts:
            self._pre = []
            try:
                got = self.stmt(s)
                out += self._pre + got
            except _Pending:
                if self.final:  # pragma: no cover - final pass raises NameError instead
                    raise
        return out

    def stmt(self, s) -> list[N.Stmt]:
        if isinstance(s, TupleTemp):
            return self.tuple_temp(s)
        if isinstance(s, N.Assign):
            return self.assign(s)
        if isinstance(s, N.Store):
            return self.store(s)
        if isinstance(s, SetComponent):
            return self.set_component(s)
        if isinstance(s, N.If):
            cond = self.cond(s.cond)
            return [N.If(s.loc, cond, self.block(s.then), self.block(s.orelse))]
        if isinstance(s, N.While):
            self._eager = False  # the condition runs every iteration: nothing may be hoisted
            try:
                cond = self.cond(s.cond)
            finally:
                self._eager = True
            return [N.While(s.loc, cond, self.block(s.body))]
        if isinstance(s, N.For):
            return [self.for_(s)]
        if isinstance(s, (N.Break, N.Continue, N.Barrier)):
            return [s]
        if isinstance(s, N.ExprStmt):
            self._eager = False  # an atomic statement is itself the effect: no temporary
            try:
                v = self.expr(s.value)
                return [N.ExprStmt(s.loc, c) for c in (v.comps if isinstance(v, VecVal) else [v])]
            finally:
                self._eager = True
        if isinstance(s, DeclScratch):
            self.declare_scratch(s)
            return []
        raise TypeError(f"unknown statement {type(s).__name__}")  # pragma: no cover

    def assign(self, s: N.Assign) -> list[N.Stmt]:
        name = self.rename.get(s.name, s.name)
        value = self.expr(s.value)
        vt = value.vtype() if isinstance(value, VecVal) else value.dtype
        old = self.types.get(name)
        new = vt if old is None else self._join(old, vt, s)
        self.types[name] = new
        self.dead.discard(name)
        if isinstance(new, VecType):
            return self.assign_vector(s, name, new, value)
        return [N.Assign(s.loc, name, self.coerce(value, dt.concrete(new)))]

    def tuple_temp(self, s: TupleTemp) -> list[N.Stmt]:
        """A tuple assignment's hidden temporary takes the type its target gives the value: the
        value is converted once, exactly as storing it directly would convert it (a weak float
        meeting an f64 target is computed in f64, not rounded to f32 first)."""
        value = self.expr(s.value)
        t = self._target_type(s.target, value)
        if t is None:  # a target that rejects the value: its own statement raises the error
            t = value.vtype() if isinstance(value, VecVal) else value.dtype
        self.types[s.name] = t  # assigned once: no join (it follows its target's type)
        if isinstance(t, VecType):
            return self.assign_vector(s, s.name, t, value)
        return [N.Assign(s.loc, s.name, self.coerce(value, dt.concrete(t)))]

    def _target_type(self, target, value) -> DType | VecType | None:
        """The type `target` converts `value` to: a local's type joined with the value's, an
        array's or scratch array's element type, a vector's component type; None if it cannot
        take the value."""
        vec = isinstance(value, VecVal)
        if isinstance(target, N.Assign):
            name = self.rename.get(target.name, target.name)
            vt = value.vtype() if vec else value.dtype
            old = self.types.get(name)
            return vt if old is None else self._join(old, vt, target)
        t = None
        if isinstance(target, N.Store):
            if target.array in self.scratch:
                t = self.scratch[target.array].dtype
            elif target.array in self.types and target.array not in self.specs:
                t = self.types[target.array]  # a local vector: v[k] = e
                t = t.elem if isinstance(t, VecType) else None
            elif target.array in self.specs and self.specs[target.array].kind == "array":
                t = self.specs[target.array].dtype
                if isinstance(t, VecType) and not vec:
                    t = t.elem  # a scalar stored into every component
        elif isinstance(target, SetComponent):
            c = target.container
            if c.op is Op.VAR:
                t = self.types.get(self.rename.get(c.arg, c.arg))
            elif c.op is Op.LOAD and c.arg in self.specs and self.specs[c.arg].kind == "array":
                t = self.specs[c.arg].dtype
            t = t.elem if isinstance(t, VecType) else None
        if t is None or vec != isinstance(t, VecType) or (vec and value.shape != t.shape):
            return None
        return t

    def assign_vector(self, s, name: str, t: VecType, value: VecVal) -> list[N.Stmt]:
        targets = [comp_name(name, k) for k in range(t.size)]
        comps = [self.coerce(c, t.elem) for c in value.comps]
        # `v = [v[1], v[2], v[0]]`: components that read the target are computed first.
        reads = {x.arg for c in comps for x in _walk(c) if x.op is Op.VAR}
        out = []
        if reads & set(targets):
            tmps = []
            for c in comps:
                self._ntmp += 1
                tmp = f"_vt{self._ntmp}"
                self.types[tmp] = t.elem
                out.append(N.Assign(s.loc, tmp, c))
                tmps.append(Expr(Op.VAR, t.elem, (), tmp, s.loc))
            comps = tmps
        for tgt, c in zip(targets, comps):
            self.types[tgt] = t.elem
            out.append(N.Assign(s.loc, tgt, c))
        return out

    def set_component(self, s: SetComponent) -> list[N.Stmt]:
        """`v.y = e`, `v[k] = e`, `vf[i][c] = e`, `m[i, j] = e`."""
        c = s.container
        value = self.scalar(self.expr(s.value), s, "one component")
        idx = [self.scalar(self.expr(i), s, "an index") for i in s.index]
        if c.op is Op.VAR:
            cur = self.expr(c)
            if not isinstance(cur, VecVal):
                raise self.vec_error(s, "component assignment to a scalar")
            name = self.rename.get(c.arg, c.arg)
            t = self.types[name]
            slots = self._slots(cur.shape, idx, s)
            out = []
            for k, hit in slots:
                st = N.Assign(s.loc, comp_name(name, k), self.coerce(value, t.elem))
                out.append(st if hit is None else N.If(s.loc, hit, [st], []))
            return out
        if c.op is Op.LOAD and c.arg not in self.scratch:
            spec = self._array(c.arg, s)
            if not isinstance(spec.dtype, VecType):
                raise self.vec_error(s, f"component assignment into the scalar array '{c.arg}'")
            base = self.indices(c.arg, spec, c.args, s)
            out = []
            for k, hit in self._slots(spec.dtype.shape, idx, s):
                st = N.Store(s.loc, c.arg, self.element_index(spec, base, k, s),
                             self.coerce(value, spec.dtype.elem), s.loc.text())
                out.append(st if hit is None else N.If(s.loc, hit, [st], []))
            return out
        raise self.vec_error(s, "assignment to a component of something that is neither a "
                                "local vector nor an array element")

    def _slots(self, shape: tuple, idx: list, s) -> list:
        """[(flat component, condition or None)] a component write addresses; a runtime index
        writes under a condition, and outside [0, n) writes nothing."""
        if len(idx) == 1 and len(shape) == 2:
            raise self.vec_error(s, "assignment to a whole matrix row; write m[i, j]")
        if len(idx) != len(shape):
            raise self.vec_error(s, f"{len(idx)} indices for a value of shape {shape}")
        statics = [self._static_index(i, shape[d], s) for d, i in enumerate(idx)]
        if all(k is not None for k in statics):
            flat = 0
            for d, k in enumerate(statics):
                flat = flat * shape[d] + k
            return [(flat, None)]
        out = []
        size = 1
        for d in shape:
            size *= d
        for flat in range(size):
            parts, rem = [], flat
            for d in reversed(shape):
                parts.append(rem % d)
                rem //= d
            parts.reverse()
            cond = None
            for i, k in zip(idx, parts):
                eq = self.op_typed(Op.EQ, s.loc, self.integer(i, "index"),
                                   Expr(Op.CONST, dt.i32, (), k, s.loc))
                cond = eq if cond is None else self.op_typed(Op.AND_, s.loc, cond, eq)
            out.append((flat, cond))
        return out

    def element_index(self, spec: ArgSpec, base: tuple, k: int, e) -> tuple:
        """The physical index of component k of a vector array element."""
        t = spec.dtype
        if len(base) == spec.ndim:
            comp = []
            rem = k
            for d in reversed(t.shape):
                comp.append(Expr(Op.CONST, dt.i64, (), rem % d, e.loc))
                rem //= d
            return base + tuple(reversed(comp))
        flat = self.op_typed(Op.MUL, e.loc, self.coerce(base[0], dt.i64),
                             Expr(Op.CONST, dt.i64, (), t.size, e.loc))
        return (self.op_typed(Op.ADD, e.loc, flat, Expr(Op.CONST, dt.i64, (), k, e.loc)),)

    def _join(self, a: DType, b: DType, s) -> DType:
        if isinstance(a, VecType) or isinstance(b, VecType):
            if not (isinstance(a, VecType) and isinstance(b, VecType)) or a.shape != b.shape:
                raise self.type_error(s, f"'{s.name}' is assigned both {a!r} and {b!r}",
                                      "a local keeps one vector width (or stays a scalar)")
            j = dt.promote(a.elem, b.elem)
            if j is None:
                raise self.type_error(s, f"'{s.name}' mixes {a!r} and {b!r}")
            return VecType(dt.concrete(j), a.shape)
        if a is dt.bool_:
            a = dt.i32
        if b is dt.bool_:
            b = dt.i32
        j = dt.promote(a, b)
        if j is None:
            raise self.type_error(s, f"'{s.name}' is assigned both {a!r} and {b!r}",
                                  "a local has one type; cast one of the values explicitly")
        return j

    def lazy(self, e: Expr) -> Expr:
        """Type an operand that may not run: atomics inside it stay in place."""
        saved, self._eager = self._eager, False
        try:
            return self.expr(e)
        finally:
            self._eager = saved

    def scratch_array(self, name: str, e) -> N.Scratch:
        sc = self.scratch.get(name)
        if sc is None:
            raise self.type_error(e, f"scratch array '{name}' is used before its declaration")
        return sc

    def scratch_index(self, name: str, idx, e) -> tuple:
        if len(idx) != 1:
            raise self.type_error(e, f"{len(idx)} indices for the one-dimensional scratch array "
                                     f"'{name}'")
        return (self.integer(self.expr(idx[0]), "index"),)

    def scratch_load(self, e: Expr) -> Expr:
        sc = self.scratch_array(e.arg, e)
        return Expr(Op.LOAD, sc.dtype, self.scratch_index(e.arg, e.args, e), e.arg, e.loc)

    def atomic(self, e: Expr):
        sc = self.scratch.get(e.arg)
        if sc is not None:  # a shared array (the parser refuses local ones)
            idx = self.scratch_index(e.arg, e.args[:-1], e)
            value = self.scalar(self.expr(e.args[-1]), e, "one value")
            return self.atomic_scalar(e, sc.dtype, idx, self.coerce(self.numeric(value), sc.dtype))
        spec = self._array(e.arg, e)
        idx = self.indices(e.arg, spec, e.args[:-1], e)
        value = self.expr(e.args[-1])
        if isinstance(spec.dtype, VecType):
            return self.atomic_vector(e, spec, idx, value)
        value = self.coerce(self.numeric(self.scalar(value, e, "one value")), spec.dtype)
        return self.atomic_scalar(e, spec.dtype, idx, value)

    def atomic_vector(self, e, spec: ArgSpec, idx: tuple, value):
        """One atomic per component; a scalar with one flat index updates one component."""
        t = spec.dtype
        if not isinstance(value, VecVal) and len(idx) == 1:  # the flat index of one component
            return self.atomic_scalar(e, t.elem, idx, self.coerce(value, t.elem))
        if isinstance(value, VecVal):
            if value.shape != t.shape:
                raise self.vec_error(e, f"atomic update of {t!r} elements with shape "
                                        f"{value.shape}")
            comps = value.comps
        else:
            comps = [self.bind(self.coerce(value, t.elem))] * t.size
        olds = [self.atomic_scalar(e, t.elem, self.element_index(spec, idx, k, e),
                                   self.coerce(c, t.elem)) for k, c in enumerate(comps)]
        return VecVal(t.shape, olds, e.loc)

    def atomic_scalar(self, e, t, idx: tuple, value: Expr) -> Expr:
        out = Expr(e.op, t, idx + (value,), e.arg, e.loc)
        if not self._eager:
            return out
        # Bound to a temporary before its statement, so that lowering may duplicate operands
        # without running the update twice.
        self._ntmp += 1
        name = f"_old{self._ntmp}"
        while name in self.pk.assigned:
            name += "_"
        self.types[name] = t
        self._pre.append(N.Assign(e.loc, name, out))
        return Expr(Op.VAR, t, (), name, e.loc)

    def store(self, s: N.Store) -> N.Store:
        if s.array in self.scratch:
            sc = self.scratch[s.array]
            idx = self.scratch_index(s.array, s.indices, s)
            value = self.scalar(self.expr(s.value), s, "one value (scratch arrays hold scalars)")
            return [N.Store(s.loc, s.array, idx, self.coerce(value, sc.dtype), s.text)]
        if s.array in self.types and s.array not in self.specs:  # a local vector: v[k] = e
            var = Expr(Op.VAR, None, (), s.array, s.loc)
            return self.set_component(SetComponent(s.loc, var, s.indices, s.value))
        spec = self._array(s.array, s)
        idx = self.indices(s.array, spec, s.indices, s)
        value = self.expr(s.value)
        if isinstance(spec.dtype, VecType):
            return self.store_vector(s, spec, idx, value)
        value = self.scalar(value, s, "one value (the array holds scalars)")
        return [N.Store(s.loc, s.array, idx, self.coerce(value, spec.dtype), s.text)]

    def store_vector(self, s, spec: ArgSpec, idx: tuple, value) -> list[N.Stmt]:
        t = spec.dtype
        if isinstance(value, VecVal):
            if value.shape != t.shape:
                raise self.vec_error(s, f"storing a value of shape {value.shape} into an array "
                                        f"of {t!r}")
            comps = value.comps
            # Arrays may alias: components that load are computed before any is stored.
            if any(x.op is Op.LOAD for c in comps for x in _walk(c)):
                comps = [self.bind(self.coerce(c, t.elem)) for c in comps]
        else:
            comps = [self.bind(self.coerce(value, t.elem))] * t.size  # a scalar: every component
        return [N.Store(s.loc, s.array, self.element_index(spec, idx, k, s),
                        self.coerce(c, t.elem), s.text) for k, c in enumerate(comps)]

    def for_(self, s: N.For) -> N.For:
        start, stop = self.expr(s.start), self.expr(s.stop)
        step = self.expr(s.step) if s.step is not None else None
        parts = [start, stop] + ([step] if step is not None else [])
        t = None
        for p in parts:
            if not (p.dtype.is_int or p.dtype is dt.bool_):
                raise self.type_error(p, f"range() argument of type {dt.concrete(p.dtype)!r}",
                                      "range() takes integers; convert with int(...)")
            if id(p) in self._literals:
                continue  # a literal (range(n)'s implicit 0 too) takes the other bounds' type
            pt = dt.concrete(p.dtype)
            t = pt if t is None else self._promote(t, pt, p)
        if t is None or (t.bits < 32 and t.kind in "iu"):
            t = dt.i32 if t is None else (self._promote(t, dt.i32, s))
        for p in parts:  # the literals must fit the loop variable's type
            if id(p) in self._literals and not t.min() <= p.arg <= t.max():
                t = self._promote(t, dt.concrete(p.dtype), p)
        self.types[s.var] = self._join(self.types[s.var], t, s) if s.var in self.types else t
        vt = self.types[s.var]
        self.dead.discard(s.var)
        body = self.block(s.body)
        self.dead.add(s.var)
        return N.For(s.loc, s.var, self.coerce(start, vt), self.coerce(stop, vt),
                     None if step is None else self.coerce(step, vt), body, unroll=s.unroll)

    def declare_scratch(self, s: DeclScratch) -> None:
        t = s.dtype if isinstance(s.dtype, DType) else self._array(s.dtype, s).dtype
        t = getattr(t, "elem", t)  # *_like takes the scalar component dtype
        size = self.expr(s.size)
        if size.op is not Op.CONST:
            from ..passes.simplify import simplify_expr

            size = simplify_expr(size)
        if size.op is not Op.CONST or not size.dtype.is_int:
            raise self.type_error(s.size, f"{s.what}() size is not a compile-time constant",
                                  "use a literal, a tack.constant, a class constant or an "
                                  "expression of those and array dimensions (a.shape[k])")
        if size.arg < 1:
            raise self.type_error(s.size, f"{s.what}() size must be positive, got {size.arg}")
        new = N.Scratch(s.name, t, int(size.arg), s.space)
        old = self.scratch.get(s.name)
        if old is not None and old != new:
            raise self.type_error(s, f"'{s.name}' is declared twice with different types or "
                                     "sizes")
        if s.name in self.types:
            raise self.type_error(s, f"'{s.name}' is both a scratch array and a local")
        self.scratch[s.name] = new

    def cond(self, e) -> Expr:
        return self.to_bool(self.expr(e))

    # -- expressions ----------------------------------------------------------------------------
    def expr(self, e: Expr) -> Expr:
        op = e.op
        if op is Op.TYPED:
            if isinstance(e.arg, tuple):  # expect_dtype(x, dtype, what)
                _, want, what = e.arg
                x = self.expr(e.args[0])
                got = x.vtype() if isinstance(x, VecVal) else dt.concrete(x.dtype)
                if got is not want:
                    raise self.type_error(e, f"{what} requires {want.name} input, got "
                                             f"{got.name}; use an explicit {want.name} cast",
                                          f"write {what}(tack.{want.name}(x))")
                return self.settle(x) if not isinstance(x, VecVal) else x
            return e.arg
        if op in ELEMENTWISE:
            args = [self.expr(a) for a in e.args]
            if any(isinstance(a, VecVal) for a in args):
                return self.elementwise(e, args)
            e = e.replace(args=tuple(typed(a) for a in args))
        elif op is Op.VECTOR:
            return self.vector_literal(e)
        elif op is Op.COMPONENT:
            return self.component(e)
        elif op is Op.METHOD:
            return self.method(e)
        elif op is Op.MATMUL:
            return self.matmul(e)
        elif op in (Op.ANY, Op.ALL):
            return self.reduce_mask(e)
        elif op is Op.SELECT:
            return self.select_values(e)
        if op is Op.CONST:
            return self.const(e)
        if op is Op.VAR:
            return self.var(e)
        if op is Op.SHAPE:
            return self.shape(e)
        if op is Op.LOAD:
            if e.arg in self.scratch:
                return self.scratch_load(e)
            if e.arg in self.types and e.arg not in self.specs:  # v[k] on a local vector
                var = Expr(Op.VAR, None, (), e.arg, e.loc)
                return self.component(Expr(Op.COMPONENT, None, (var,) + e.args, None, e.loc))
            spec = self._array(e.arg, e)
            idx = self.indices(e.arg, spec, e.args, e)
            if isinstance(spec.dtype, VecType):
                t = spec.dtype
                return VecVal(t.shape, [Expr(Op.LOAD, t.elem, self.element_index(spec, idx, k, e),
                                             e.arg, e.loc) for k in range(t.size)], e.loc)
            return Expr(Op.LOAD, spec.dtype, idx, e.arg, e.loc)
        if op in ATOMIC:
            return self.atomic(e)
        if op is Op.THREAD_ID:
            return e
        if op is Op.PRINT:
            vals = [self.settle(self.bool_to_int(self.scalar(self.expr(a), e, "one printed value")))
                    for a in e.args]
            return e.replace(args=tuple(vals))
        if op is Op.CAST:
            a = self.expr(e.args[0])
            out = self.coerce(a, e.arg, explicit=True)
            return out.replace() if out is a else out  # a cast literal is no longer a literal
        if op in COMPARISON:
            return self.compare(e)
        if op in (Op.LAND, Op.LOR):
            a, b = self.to_bool(self.expr(e.args[0])), self.to_bool(self.lazy(e.args[1]))
            return Expr(op, dt.bool_, (a, b), None, e.loc)
        if op is Op.NOT:
            return Expr(Op.NOT, dt.bool_, (self.to_bool(self.expr(e.args[0])),), None, e.loc)
        if op is Op.IFEXP:
            c = self.to_bool(self.expr(e.args[0]))
            a, b = (self.lazy(x) for x in e.args[1:])
            if isinstance(a, VecVal) or isinstance(b, VecVal):
                return self.ifexp_values(e, c, a, b)
            a, b = self.bool_to_int(a), self.bool_to_int(b)
            t = self._promote_e(a, b, e)
            return Expr(Op.IFEXP, t, (c, self.coerce(a, t), self.coerce(b, t)), None, e.loc)
        if op is Op.NEG:
            a = self.numeric(self.expr(e.args[0]))
            return Expr(Op.NEG, a.dtype, (a,), None, e.loc)
        if op is Op.INVERT:
            a = self.integer(self.expr(e.args[0]), "~")
            return Expr(Op.INVERT, a.dtype, (a,), None, e.loc)
        if op is Op.ABS:
            a = self.numeric(self.expr(e.args[0]))
            return Expr(Op.ABS, a.dtype, (a,), None, e.loc)
        if op in MATH_UNARY:
            a = self.floating(self.expr(e.args[0]))
            return Expr(op, a.dtype, (a,), None, e.loc)
        if op is Op.POW:
            return self.power(e)
        if op in MATH_BINARY:
            # Integer arguments convert straight to the result's precision (f32 unless another
            # argument is f64), never through f32 first.
            a, b = (self.bool_to_int(self.expr(x)) for x in e.args)
            if a.dtype.is_float or b.dtype.is_float:
                t = self._promote_e(a, b, e)
            else:
                t = dt.f32
            return Expr(op, t, (self.coerce(a, t), self.coerce(b, t)), None, e.loc)
        if op is Op.TRUEDIV:
            return self.truediv(e)
        if op in _ARITH:
            return self.arith(e)
        if op in _BITWISE:
            a, b = (self.integer(self.expr(x), op.name.lower()) for x in e.args)
            t = self._promote(a.dtype, b.dtype, e)
            return Expr(op, t, (self.coerce(a, t), self.coerce(b, t)), None, e.loc)
        if op in (Op.SHL, Op.SHR):
            a = self.integer(self.expr(e.args[0]), "shift")
            b = self.integer(self.expr(e.args[1]), "shift")
            return Expr(op, a.dtype, (a, self.coerce(b, a.dtype, explicit=True)), None, e.loc)
        raise self.type_error(e, f"unsupported operation {op.name}")  # pragma: no cover

    def const(self, e: Expr) -> Expr:
        if e.dtype is not None:  # typed constant (tack.constant(..., dtype), True/False)
            return Expr(Op.CONST, e.dtype, (), convert(e.arg, e.dtype), e.loc)
        v = e.arg
        if isinstance(v, float):
            return Expr(Op.CONST, WEAK, (), v, e.loc)
        out = Expr(Op.CONST, dt.int_literal_dtype(v), (), v, e.loc)
        self._literals[id(out)] = out  # an integer literal: a weak float beside it stays weak
        return out

    def var(self, e: Expr) -> Expr:
        name = e.arg
        if name in self.rename:
            name = self.rename[name]
        elif name in self.specs and name not in self.pk.assigned:
            s = self.specs[name]
            if s.kind == "array":
                raise self.type_error(e, f"array '{name}' used as a value",
                                      f"index it, e.g. {name}[i]")
            return Expr(Op.PARAM, s.dtype, (), name, e.loc)
        if name in self.weak_locals:
            return self.expr(self.weak_locals[name])
        if name in self.scratch:
            raise self.type_error(e, f"scratch array '{name}' used as a value",
                                  "index it, or pass it to a @tack.func; it cannot be bound to "
                                  "another name")
        t = self.types.get(name)
        if t is None or name in self.dead:
            if not self.final:
                raise _Pending()
            what = ("a for loop's variable read after its loop" if name in self.dead
                    else "used before it is assigned")
            loc = e.loc
            raise TackNameError(format_at(
                loc, f"{self.kind} '{self.pk.name}': name '{name}' at line {loc.line}, column "
                     f"{loc.col} is {what}", "assign it first"))
        if isinstance(t, VecType):
            return VecVal(t.shape, [Expr(Op.VAR, t.elem, (), comp_name(name, k), e.loc)
                                    for k in range(t.size)], e.loc)
        return Expr(Op.VAR, dt.concrete(t), (), name, e.loc)

    def shape(self, e: Expr) -> Expr:
        name, k = e.arg
        spec = self._array(name, e)
        if not 0 <= k < spec.ndim:
            raise self.type_error(e, f"{name}.shape[{k}] of a {spec.ndim}-dimensional array")
        self.baked.setdefault(name, set()).add(k)
        return Expr(Op.CONST, dt.i64, (), int(spec.shape[k]), e.loc)

    def _array(self, name: str, e) -> ArgSpec:
        s = self.specs.get(name)
        if s is None or s.kind != "array" or name in self.pk.assigned:
            raise self.type_error(e, f"'{name}' is not an array parameter")
        return s

    def indices(self, name: str, spec: ArgSpec, idx, e) -> tuple:
        typed_idx = []
        for i in idx:  # a vector supplies one index per component
            x = self.expr(i)
            typed_idx += x.comps if isinstance(x, VecVal) else [x]
        idx = tuple(typed(x) for x in typed_idx)
        if not idx and spec.ndim == 0:  # a[None]
            return (Expr(Op.CONST, dt.i64, (), 0, e.loc),)
        if len(idx) not in (1, spec.ndim):
            raise self.type_error(e, f"{len(idx)} indices for the {spec.ndim}-dimensional "
                                     f"array '{name}'",
                                  "give one index per dimension, or one flat row-major index")
        out = tuple(self.integer(self.expr(i), "index") for i in idx)
        if len(out) > 1:
            self.baked.setdefault(name, set()).update(range(1, spec.ndim))
        return out

    def compare(self, e: Expr) -> Expr:
        a, b = (self.expr(x) for x in e.args)
        a, b = self.bool_to_int(a), self.bool_to_int(b)
        t = dt.concrete(self._promote_e(a, b, e))
        return Expr(e.op, dt.bool_, (self.coerce(a, t), self.coerce(b, t)), None, e.loc)

    def _promote_e(self, a: Expr, b: Expr, e) -> DType:
        """Promotion of two operands: a weak float beside a non-literal integer is f32."""
        t = self._promote(a.dtype, b.dtype, e)
        if t is WEAK and any(x.dtype.is_int and id(x) not in self._literals for x in (a, b)):
            return dt.f32
        return t

    def arith(self, e: Expr) -> Expr:
        a, b = (self.numeric(self.expr(x)) for x in e.args)
        t = self._promote_e(a, b, e)
        return Expr(e.op, t, (self.coerce(a, t), self.coerce(b, t)), None, e.loc)

    def truediv(self, e: Expr) -> Expr:
        a, b = (self.numeric(self.expr(x)) for x in e.args)
        if a.dtype.is_int and b.dtype.is_int:
            t = dt.f32
        else:
            t = self._promote_e(a, b, e)
        return Expr(Op.FDIV, t, (self.coerce(a, t), self.coerce(b, t)), None, e.loc)

    def power(self, e: Expr) -> Expr:
        a, b = (self.numeric(self.expr(x)) for x in e.args)
        if a.dtype.is_int and b.dtype.is_int:
            if b.op is Op.CONST and b.arg < 0:
                raise self.type_error(b, "negative integer exponent",
                                      "an integer power needs an exponent >= 0; use a float base")
            return Expr(Op.IPOW, a.dtype, (a, b), None, e.loc)
        t = self._promote_e(a, b, e)
        if b.op is Op.CONST and b.arg == 2 and b.dtype.is_int:
            a = self.coerce(a, t)
            return Expr(Op.MUL, t, (a, a), None, e.loc)  # x**2 is exactly x*x
        return Expr(Op.POW, t, (self.coerce(a, t), self.coerce(b, t)), None, e.loc)

    # -- type helpers ---------------------------------------------------------------------------
    def _promote(self, a: DType, b: DType, e) -> DType:
        a, b = (dt.i32 if x is dt.bool_ else x for x in (a, b))
        t = dt.promote(a, b)
        if t is None:
            raise self.type_error(e, f"operation mixes {a!r} and {b!r}",
                                  "a signed integer and u64 have no common type; cast one "
                                  "explicitly, e.g. v + tack.u64(1)")
        return t

    def numeric(self, e: Expr) -> Expr:
        return self.bool_to_int(e)

    def bool_to_int(self, e: Expr) -> Expr:
        return Expr(Op.CAST, dt.i32, (e,), None, e.loc) if e.dtype is dt.bool_ else e

    def integer(self, e: Expr, what: str) -> Expr:
        e = self.bool_to_int(e)
        if not e.dtype.is_int:
            raise self.type_error(e, f"{what} needs an integer, got {dt.concrete(e.dtype)!r}",
                                  "convert with int(...)")
        return e

    def floating(self, e: Expr) -> Expr:
        e = self.bool_to_int(e)
        if e.dtype.is_float:
            return e
        return self.coerce(e, dt.f32)  # integer arguments (literals too) are f32 (§1.7)

    def to_bool(self, e: Expr) -> Expr:
        if isinstance(e, VecVal):
            raise UnsupportedSyntaxError(format_at(
                e.loc, f"{self.kind} '{self.pk.name}': a vector mask used as a condition at line "
                       f"{e.loc.line}, column {e.loc.col}", "reduce it with any(mask) or all(mask)"))
        if e.dtype is dt.bool_:
            return e
        e = self.settle(e)
        zero = Expr(Op.CONST, e.dtype, (), convert(0, e.dtype), e.loc)
        return Expr(Op.NE, dt.bool_, (e, zero), None, e.loc)

    def settle(self, e: Expr) -> Expr:
        """A weak expression standing alone becomes f32."""
        return self.coerce(e, dt.f32) if e.dtype is WEAK else e

    def coerce(self, e: Expr, t: DType, explicit: bool = False) -> Expr:
        """`e` converted to `t`: weak literals retyped exactly, constants folded, else a CAST."""
        if e.dtype is t:
            return e
        if e.op is Op.CONST:
            return Expr(Op.CONST, t, (), convert(e.arg, t), e.loc)
        if e.dtype is WEAK:
            if t.is_float:
                return self.retype(e, t)
            e = self.retype(e, dt.f32)
        return Expr(Op.CAST, t, (e,), None, e.loc)

    def retype(self, e: Expr, t: DType) -> Expr:
        """Rebuild a weak float expression at precision `t`."""
        if e.dtype is not WEAK:
            return self.coerce(e, t)
        if e.op is Op.CONST:
            return Expr(Op.CONST, t, (), convert(e.arg, t), e.loc)
        if e.op in (Op.IFEXP, Op.SELECT):  # the condition keeps its type
            c, a, b = e.args
            return e.replace(dtype=t, args=(c, self.retype(a, t), self.retype(b, t)))
        return e.replace(dtype=t, args=tuple(self.retype(a, t) for a in e.args))


_LITERAL_OPS = frozenset({Op.ADD, Op.SUB, Op.MUL, Op.TRUEDIV, Op.NEG, Op.POW, Op.FLOORDIV,
                          Op.MOD, Op.ABS, Op.MIN, Op.MAX}) | MATH_UNARY | MATH_BINARY


def _literal_float_expr(e: Expr) -> bool:
    """An untyped expression of number literals, at least one of them a float."""
    has_float = False

    def ok(x: Expr) -> bool:
        nonlocal has_float
        if x.op is Op.CONST:
            has_float |= isinstance(x.arg, float)
            return x.dtype is None
        return x.op in _LITERAL_OPS and all(ok(a) for a in x.args)

    return ok(e) and has_float


def _walk(e: Expr):
    yield e
    for a in e.args:
        yield from _walk(a)


def _writes(body, name: str) -> bool:
    for s in body:
        if isinstance(s, N.Store) and s.array == name:
            return True
        for sub in ("then", "orelse", "body"):
            if _writes(getattr(s, sub, ()) or (), name):
                return True
    return False
