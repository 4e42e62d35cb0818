"""Typing of array and scratch access: loads, `a.shape[k]`, atomics, stores and component writes.

An index is an integer; an array takes one index per dimension or one flat row-major index; an
array of vectors is a scalar array with trailing component dimensions, so a vector element is
loaded, stored or updated one component at a time. See docs/language.md, "Array access" and
"Vectors and matrices".
"""
from __future__ import annotations

from ... import dtypes as dt
from ...dtypes import VecType
from ...ir import nodes as N
from ...ir.nodes import Expr
from ...ir.ops import Op
from ...ir.walk import iter_exprs
from ...passes.names import numbered
from ..argspec import ArgSpec
from ..untyped import SetComponent
from ..vectors import VecVal, comp_name, typed


class ArrayAccess:
    """Mixed into the TypeChecker (`frontend/typecheck.py`); `frontend/typing/rules.py` maps ops here."""

    # -- reads ----------------------------------------------------------------------------------
    def shape(self, e: Expr) -> Expr:
        """`a.shape[k]`: the extent, baked into this specialization. `h, w = a.shape` gives
        one per target, each with the target count, which must be the array's rank."""
        name, k = e.arg[:2]
        spec = self._array(name, e)
        if len(e.arg) == 3 and e.arg[2] != spec.ndim:
            raise self.type_error(e, f"unpacking the shape of the {spec.ndim}-dimensional array "
                                     f"'{name}' into {e.arg[2]} names",
                                  f"write one name per dimension, or {name}.shape[k]")
        if not 0 <= k < spec.ndim:
            raise self.type_error(e, f"{name}.shape[{k}] of a {spec.ndim}-dimensional array")
        self.baked.setdefault(name, set()).add(k)
        return Expr(Op.CONST, dt.i64, (), int(spec.shape[k]), e.loc)

    def load(self, e: Expr):
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

    # -- scratch arrays -------------------------------------------------------------------------
    def scratch_array(self, name: str, e) -> N.Scratch:
        sc = self.scratch.get(name)
        if sc is None:
            raise self.type_error(e, f"scratch array '{name}' is used before its declaration")
        return sc

    def scratch_index(self, name: str, idx, e) -> tuple:
        if getattr(self.scratch.get(name), "barriers", False):
            raise self.type_error(e, f"'{name}' holds transaction barriers (tack.mbarriers), "
                                     "which are not data: they are read and written only by "
                                     "the tack.mbarrier_* calls",
                                  f"name one barrier in a call: tack.mbarrier_wait({name}[s], "
                                  "phase)")
        if len(idx) != 1:
            raise self.type_error(e, f"{len(idx)} indices for the one-dimensional scratch array "
                                     f"'{name}'")
        return (self.integer(self.expr(idx[0]), "index"),)

    def scratch_load(self, e: Expr) -> Expr:
        sc = self.scratch_array(e.arg, e)
        return Expr(Op.LOAD, sc.dtype, self.scratch_index(e.arg, e.args, e), e.arg, e.loc)

    # -- atomics --------------------------------------------------------------------------------
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
                raise self.type_error(e, f"atomic update of {t!r} elements with shape "
                                         f"{value.shape}")
            comps = value.comps
        else:
            comps = [self.bind(self.coerce(value, t.elem))] * t.size
        olds = [self.atomic_scalar(e, t.elem, self.element_index(spec, idx, k, e),
                                   self.coerce(c, t.elem)) for k, c in enumerate(comps)]
        return VecVal(t.shape, olds, e.loc)

    def atomic_scalar(self, e, t, idx: tuple, value: Expr) -> Expr:
        if t.is_half:  # no engine updates 16-bit floats atomically (docs/language.md)
            raise self.type_error(e, f"an atomic update of a {t.name} element",
                                  "atomics take i32, u32, i64, u64, f32 or f64 elements; "
                                  "accumulate in an f32 array")
        out = Expr(e.op, t, idx + (value,), e.arg, e.loc)
        if not self._eager:
            return out
        # Bound to a temporary before its statement, so that lowering may duplicate operands
        # without running the update twice.
        self._ntmp += 1
        name = numbered("old", self._ntmp)
        while name in self.pk.assigned:
            name += "_"
        self.types[name] = t
        self._pre.append(N.Assign(e.loc, name, out))
        return Expr(Op.VAR, t, (), name, e.loc)

    # -- writes ---------------------------------------------------------------------------------
    def store(self, s: N.Store) -> list[N.Stmt]:
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
                raise self.type_error(s, f"storing a value of shape {value.shape} into an array "
                                         f"of {t!r}")
            comps = value.comps
            # Arrays may alias: components that load are computed before any is stored.
            if any(x.op is Op.LOAD for c in comps for x in iter_exprs(c)):
                comps = [self.bind(self.coerce(c, t.elem)) for c in comps]
        else:
            comps = [self.bind(self.coerce(value, t.elem))] * t.size  # a scalar: every component
        return [N.Store(s.loc, s.array, self.element_index(spec, idx, k, s),
                        self.coerce(c, t.elem), s.text) for k, c in enumerate(comps)]

    def set_component(self, s: SetComponent) -> list[N.Stmt]:
        """`v.y = e`, `v[k] = e`, `vf[i][c] = e`, `m[i, j] = e`."""
        c = s.container
        value = self.scalar(self.expr(s.value), s, "one component")
        idx = [self.scalar(self.expr(i), s, "an index") for i in s.index]
        if c.op is Op.VAR:
            cur = self.expr(c)
            if not isinstance(cur, VecVal):
                raise self.type_error(s, "component assignment to a scalar")
            name = self.rename.get(c.arg, c.arg)
            t = self.types[name]
            out = []
            for k, hit in self._slots(cur.shape, idx, s):
                st = N.Assign(s.loc, comp_name(name, k), self.coerce(value, t.elem))
                out.append(st if hit is None else N.If(s.loc, hit, [st], []))
            return out
        if c.op is Op.LOAD and c.arg not in self.scratch:
            spec = self._array(c.arg, s)
            if not isinstance(spec.dtype, VecType):
                raise self.type_error(s, f"component assignment into the scalar array '{c.arg}'")
            base = self.indices(c.arg, spec, c.args, s)
            out = []
            for k, hit in self._slots(spec.dtype.shape, idx, s):
                st = N.Store(s.loc, c.arg, self.element_index(spec, base, k, s),
                             self.coerce(value, spec.dtype.elem), s.loc.text())
                out.append(st if hit is None else N.If(s.loc, hit, [st], []))
            return out
        raise self.type_error(s, "assignment to a component of something that is neither a "
                                 "local vector nor an array element")

    def _slots(self, shape: tuple, idx: list, s) -> list:
        """[(flat component, condition or None)] a component write addresses; a runtime index
        writes under a condition, and outside [0, n) writes nothing."""
        if len(idx) == 1 and len(shape) == 2:
            raise self.type_error(s, "assignment to a whole matrix row; write m[i, j]")
        if len(idx) != len(shape):
            raise self.type_error(s, f"{len(idx)} indices for a value of shape {shape}")
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
                cond = eq if cond is None else self.op_typed(Op.LAND, s.loc, cond, eq)
            out.append((flat, cond))
        return out
