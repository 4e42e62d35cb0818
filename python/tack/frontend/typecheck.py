"""Untyped IR + argument specs → typed IR (`KernelIR`), specialized on dtypes, ranks and baked
shapes: the inference walk over statements, locals, scratch declarations and control flow.

Each local has one type, joined over all its assignments: the walk repeats until no local's type
changes, then types the body once more to build the IR. Expressions are typed by the rules that
`frontend/typing/rules.py` maps each op to; the integer and float rules (literals, weak floats,
promotion, `/` of integers) are in `frontend/promotion.py` and docs/language.md, "Integer and
float rules".
"""
from __future__ import annotations

from .. import dtypes as dt
from ..dtypes import DType, VecType
from ..errors import KindError, TackTypeError
from ..ir import nodes as N
from ..ir.nodes import Expr, KernelIR, Param
from ..ir.ops import ATOMIC, Op
from ..ir.walk import iter_exprs, iter_stmts, stmt_roots, unique_exprs
from ..passes.names import SEP, hidden, member, numbered
from ..passes.simplify import simplify_expr
from .argspec import ArgSpec
from .hostrange import START, STEP
from .promotion import Promotion
from .typing.arith import ArithRules
from .typing.async_copies import AsyncRules
from .typing.logic import LogicRules
from .typing.mbarriers import MbarrierRules
from .typing.memory import ArrayAccess
from .typing.mma import MmaRules
from .typing.rules import RULES
from .typing.tables import TableRules
from .typing.values import Pending, ValueRules
from .typing.warps import WarpRules
from .typing.wgmma import WgmmaRules
from .untyped import DeclScratch, SetComponent, TupleTemp
from .vectors import VectorRules, VecVal, comp_name
from .weak import WEAK_SIZE, expanded_size, literal_only, vector_valued, weak_expr

__all__ = ["ArgSpec", "TypeChecker"]


class TypeChecker(ArrayAccess, TableRules, ValueRules, ArithRules, LogicRules, VectorRules,
                  WarpRules, AsyncRules, MbarrierRules, MmaRules, WgmmaRules, Promotion):
    """One kernel's typing: `run()` gives its `KernelIR`. The walk (this class) owns the state:
    locals' types, scratch arrays, hoisted temporaries; the mixins hold the typing rules."""

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
        self.tables: dict[str, N.Table] = {}  # constant tables read (frontend/typing/tables.py)
        self._table_names: dict = {}
        self._weak_tables: dict = {}
        self._pre: list[N.Stmt] = []  # atomics bound to temporaries before their statement
        self._eager = True  # False inside lazy arms and while conditions: nothing is hoisted
        self._ntmp = 0
        self.weak_locals = self._weak_locals()
        self._literals: dict[int, Expr] = {}

    # -- errors ---------------------------------------------------------------------------------
    def message(self, loc, text: str) -> str:
        """`text` as every typing error words it: the kernel, then the line and column."""
        name = self.pk.shown or self.pk.name
        return f"{self.kind} '{name}': {text} at line {loc.line}, column {loc.col}"

    def type_error(self, e, msg: str, hint: str | None = None) -> TackTypeError:
        return TackTypeError.at(e.loc, self.message(e.loc, msg), hint)

    def kind_error(self, e, msg: str, hint: str | None = None) -> KindError:
        """A value of the wrong kind for its place (an array or scratch array used as a value):
        a TypeError that is also an UnsupportedSyntaxError, like the parser's."""
        return KindError.at(e.loc, self.message(e.loc, msg), hint)

    # -- expressions ----------------------------------------------------------------------------
    def expr(self, e: Expr):
        """`e` typed by its op's rule: a typed Expr, or a VecVal for a vector or matrix."""
        rule = RULES.get(e.op)
        if rule is None:  # pragma: no cover - an op only the passes produce
            raise self.type_error(e, f"unsupported operation {e.op.name}")
        return rule(self, e)

    # -- driver ---------------------------------------------------------------------------------
    def _weak_locals(self) -> dict[str, Expr]:
        """Locals assigned exactly once, to a weak float: an expression of number literals and
        other such locals (a copy `e = d`, an inlined function's return or parameter), or a
        conditional expression of those, or a vector or matrix of those. Their reads are that
        weak expression (so `h = 0.1` then `x64 * h` computes with the exact double, as
        `x64 * 0.1` would); a conditional one keeps its condition in a hidden local
        (`_weak_conds`), evaluated where it stood. Also sets `weak_shadowed` (below)."""
        counts: dict[str, int] = {}
        values: dict[str, list[Expr]] = {}
        mutated = set()  # vector locals changed in place (`v.x = e`, `v[k] = e`): not weak
        # A tuple assignment's target is assigned its value, not the hidden temporary holding it.
        temps = {st.name: st.value for st in iter_stmts(self.pk.body) if isinstance(st, TupleTemp)}
        for st in iter_stmts(self.pk.body):
            if isinstance(st, SetComponent) and st.container.op is Op.VAR:
                mutated.add(st.container.arg)
            elif isinstance(st, N.Store):
                mutated.add(st.array)
            name = st.name if isinstance(st, N.Assign) else getattr(st, "var", None)
            if name is None:
                continue
            counts[name] = counts.get(name, 0) + 1
            v = getattr(st, "value", None)
            if isinstance(v, Expr) and v.op is Op.VAR and v.arg in temps:
                v = temps[v.arg]
            if isinstance(st, N.Assign) and isinstance(v, Expr):
                values.setdefault(name, []).append(v)
        mine = {n: vs for n, vs in values.items() if n not in mutated and len(vs) == counts[n]
                and n not in self.pk.params and n != self.pk.loop_var}
        single = {n: vs[0] for n, vs in mine.items() if len(vs) == 1}
        # Hidden locals Tack assigns more than once (a device function's return value set by
        # several `return`s, the value of a conditional expression whose arms call functions):
        # when every value is weak, the value is kept at both precisions (`_weak_shadows`).
        multi = {n: vs for n, vs in mine.items() if len(vs) > 1 and n.startswith(SEP)}
        weak: dict[str, Expr] = {}
        shadowed: set[str] = set()
        sizes: dict[str, int] = {}  # each read repeats the expression: keep chains small
        while True:  # a copy of a weak local is weak: grow the set until it stops
            known = {**weak, **dict.fromkeys(shadowed)}
            new = {n: v for n, v in single.items() if n not in weak and weak_expr(v, known)
                   and (literal_only(v) or expanded_size(v, sizes) <= WEAK_SIZE)}
            more = {n for n, vs in multi.items()
                    if n not in shadowed and all(weak_expr(v, known) and not vector_valued(v, known)
                                                 for v in vs)}
            if not new and not more:
                break
            weak.update(new)
            shadowed |= more
            sizes.update({n: expanded_size(v, sizes) for n, v in new.items()})
        self.weak_shadowed = shadowed
        self._weak_conds = {}
        for n, v in weak.items():
            if v.op is Op.IFEXP:
                cond = member(hidden("wc"), n)
                self._weak_conds[n] = (cond, v.args[0])
                weak[n] = v.replace(args=(Expr(Op.VAR, None, (), cond, v.loc),) + v.args[1:])
        return weak

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

    def weak_shadows(self, s: N.Assign, name: str) -> list[N.Stmt]:
        """A weak local assigned more than once (`weak_shadowed`): the value is stored once per
        precision its reads meet, in `name.f32` / `name.f64`; a read is a weak VAR that `retype`
        turns into the shadow of the precision it meets (NEP 50: the literal takes the type of
        what it meets, whichever assignment ran)."""
        value = self.expr(s.value)
        self.dead.discard(name)
        return [N.Assign(s.loc, shadow, self.retype(value, t))
                for t in (dt.f16, dt.bf16, dt.f32, dt.f64)
                for shadow in [member(name, t.name)] if shadow in self.types]

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
        prefix = self._prefix(var_dt)
        for _ in range(4):  # again if a weak shadow (`weak_shadows`) was first read just now
            before = dict(self.types)
            self.dead = set()
            self._ntmp = 0
            body = prefix + self.block(self.pk.body)
            if before == self.types:
                break
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
        extra = self.pk.host_range.hidden
        params += [Param(h, "scalar", dt.i64) for h in extra]
        if self.pk.after is not None:  # locals after the loop: their errors, nothing to run
            TypeChecker(self.pk.after, self.specs, self.kind, self.debug).run()
        local_types = {n: dt.concrete(t) for n, t in self.types.items()
                       if not isinstance(t, VecType)}
        kir = KernelIR(self.pk.name, params, body, local_types, self.pk.loc,
                       self.pk.source.file, extra, scratch=self.scratch, tables=self.tables)
        self.tensor_copy_columns(kir)
        return kir

    def _loop_var_dtype(self) -> DType:
        t = dt.i32
        for name in self.pk.host_range.uses:
            s = self.specs[name]
            u = dt.i64 if s.kind == "array" else s.dtype
            t = dt.promote(t, u) or dt.i64
        t = t if t.is_int else dt.i64
        if self.pk.host_range.wide:  # range(tack.i64(n)): at least i64
            t = dt.promote(t, dt.i64) or dt.i64
        for v in self.pk.host_range.literals:  # range(4999999990, 5000000000) needs an i64
            if not t.min() <= v <= t.max():
                u = dt.int_literal_dtype(v)
                t = (dt.promote(t, u) if u is not None else None) or dt.i64
        return t

    def _prefix_nd(self, var_dt: DType) -> list[N.Stmt]:
        """ndrange: t → (i, j[, k]), the last index fastest."""
        loc, dims = self.pk.loop_loc, self.pk.host_range.dims
        p = lambda name: Expr(Op.PARAM, dt.i64, (), name, loc)
        t = Expr(Op.LAUNCH, dt.i64, (), None, loc)
        out = []
        rest = t
        for d in range(dims - 1, -1, -1):
            if d == 0:
                local = rest
            else:
                ext = p(hidden(f"ext{d}"))
                local = Expr(Op.IREM, dt.i64, (rest, ext), None, loc)
                rest = Expr(Op.IDIV, dt.i64, (rest, ext), None, loc)
            idx = Expr(Op.ADD, dt.i64, (p(hidden(f"start{d}")), local), None, loc)
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
                    else Expr(Op.PARAM, dt.i64, (), STEP, loc))
            idx = Expr(Op.MUL, dt.i64, (idx, step), None, loc)
        if hr.form in ("start", "step"):
            idx = Expr(Op.ADD, dt.i64, (Expr(Op.PARAM, dt.i64, (), START, loc), idx), None, loc)
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
        # A nested block (an if's arms, a loop body) runs while its enclosing statement's
        # temporaries (hoisted from the condition or range) are still pending: keep them.
        enclosing = self._pre
        out = []
        for s in stmts:
            self._pre = []
            try:
                got = self.stmt(s)
                out += self._pre + got
            except Pending:
                if self.final:  # pragma: no cover - final pass raises NameError instead
                    raise
        self._pre = enclosing
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
        if isinstance(s, N.ExprStmt) and s.value.op is Op.MMA_TILE:
            return self.mma_store(s)  # tack.mma_store(...): stores
        if isinstance(s, N.ExprStmt) and s.value.op is Op.WGMMA_CALL:
            return self.wgmma_statement(s)  # tack.wgmma(...), _commit, _wait, _store
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
        if name in self._weak_conds:
            return self._weak_cond(s, name)
        if name in self.weak_shadowed:
            return self.weak_shadows(s, name)
        value = self.expr(s.value)
        vt = value.vtype() if isinstance(value, VecVal) else value.dtype
        old = self.types.get(name)
        new = vt if old is None else self._join(old, vt, s)
        self.types[name] = new
        self.dead.discard(name)
        if isinstance(new, VecType):
            return self.assign_vector(s, name, new, value)
        return [N.Assign(s.loc, name, self.coerce(value, dt.concrete(new)))]

    def _weak_cond(self, s: N.Assign, name: str) -> list[N.Stmt]:
        """A weak conditional local (`c = 0.1 if p else 0.2`): only its condition is stored, where
        the assignment stands; each read is the conditional expression of weak arms."""
        cname, cond = self._weak_conds[name]
        self.types[cname] = dt.bool_
        return [N.Assign(s.loc, cname, self.coerce(self.cond(cond), dt.concrete(dt.bool_)))]

    def tuple_temp(self, s: TupleTemp) -> list[N.Stmt]:
        """A tuple assignment's hidden temporary takes the type its target gives the value: the
        value is converted once, exactly as storing it directly would convert it (a weak float
        meeting an f64 target is computed in f64, not rounded to f32 first)."""
        if s.name in self._weak_conds:
            return self._weak_cond(s, s.name)
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
        reads = {x.arg for c in comps for x in iter_exprs(c) if x.op is Op.VAR}
        out = []
        if reads & set(targets):
            tmps = []
            for c in comps:
                self._ntmp += 1
                tmp = numbered("vt", self._ntmp)
                self.types[tmp] = t.elem
                out.append(N.Assign(s.loc, tmp, c))
                tmps.append(Expr(Op.VAR, t.elem, (), tmp, s.loc))
            comps = tmps
        for tgt, c in zip(targets, comps):
            self.types[tgt] = t.elem
            out.append(N.Assign(s.loc, tgt, c))
        return out

    def for_(self, s: N.For) -> N.For:
        start, stop = (self.scalar(self.expr(x), x, "a range() argument")
                       for x in (s.start, s.stop))
        step = (self.scalar(self.expr(s.step), s.step, "a range() argument")
                if s.step is not None else None)
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
        size = self.scalar(self.expr(s.size), s.size, f"the size of {s.what}()")
        if size.op is not Op.CONST:
            size = simplify_expr(size)
        if size.op is not Op.CONST or not size.dtype.is_int:
            raise self.type_error(s.size, f"{s.what}() size is not a compile-time constant",
                                  "use a literal, a tack.constant, a class constant or an "
                                  "expression of those and array dimensions (a.shape[k])")
        if size.arg < 1:
            raise self.type_error(s.size, f"{s.what}() size must be positive, got {size.arg}")
        new = N.Scratch(s.name, t, int(size.arg), s.space, loc=s.loc,
                        barriers=s.what == "mbarriers")
        old = self.scratch.get(s.name)
        if old is not None and old != new:
            raise self.type_error(s, f"'{s.name}' is declared twice with different types or "
                                     "sizes")
        if s.name in self.types:
            raise self.type_error(s, f"'{s.name}' is both a scratch array and a local")
        self.scratch[s.name] = new

    def cond(self, e) -> Expr:
        return self.to_bool(self.expr(e))


def _writes(body, name: str) -> bool:
    """Whether the kernel may change array `name`: a store, or an atomic update (engines that copy
    arrays back from a device copy exactly the written ones)."""
    for s in iter_stmts(body):
        if isinstance(s, N.Store) and s.array == name:
            return True
        if any(x.op in ATOMIC and x.arg == name for x in unique_exprs(stmt_roots(s))):
            return True
    return False
