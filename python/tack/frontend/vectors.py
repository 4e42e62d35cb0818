"""Vectors and matrices, lowered to scalars while type checking.

A vector or matrix value is a `VecVal`: its shape and one typed scalar expression per component
(row-major). Every vector operation is built from scalar operations typed by the scalar rules (so
literal typing and promotion are the same per component); a vector local `v` is one scalar local
per component (`v__0`, `v__1`, ...); a vector array is a scalar array with trailing component
dimensions. Nothing after the typechecker sees a vector. Up to 4 components, 4×4 for matrices;
arithmetic, comparisons and math apply per component, scalars broadcast. See docs/language.md,
"Vectors and matrices".
"""
from __future__ import annotations

from .. import dtypes as dt
from ..dtypes import VecType
from ..errors import KindError, UnsupportedSyntaxError
from ..ir import nodes as N
from ..ir.nodes import Expr
from ..ir.ops import ATOMIC, COMPARISON, MATH_BINARY, MATH_UNARY, Op
from ..ir.walk import iter_exprs
from ..passes.names import member, numbered

# Ops applied component by component (scalars broadcast).
ELEMENTWISE = (frozenset({Op.ADD, Op.SUB, Op.MUL, Op.TRUEDIV, Op.FLOORDIV, Op.MOD, Op.POW,
                          Op.MIN, Op.MAX, Op.AND_, Op.OR_, Op.XOR, Op.SHL, Op.SHR, Op.NEG,
                          Op.ABS, Op.INVERT, Op.NOT, Op.CAST})
               | COMPARISON | MATH_UNARY | MATH_BINARY)
_TRIVIAL = frozenset({Op.CONST, Op.VAR, Op.PARAM})


class VecVal:
    """A vector/matrix value during type checking: shape and typed scalar components."""

    __slots__ = ("comps", "loc", "shape")

    def __init__(self, shape: tuple, comps: list, loc):
        self.shape, self.comps, self.loc = tuple(shape), list(comps), loc

    @property
    def is_matrix(self) -> bool:
        return len(self.shape) == 2

    def elem(self) -> dt.DType:
        t = self.comps[0].dtype
        for c in self.comps[1:]:
            t = dt.promote(t, c.dtype) or t
        return t

    def vtype(self) -> VecType:
        return VecType(dt.concrete(self.elem()), self.shape)

    is_fragment = False


class FragType(VecType):
    """The type of an MMA fragment local (frontend/typing/mma.py): this lane's elements of a
    warp-held tile, one scalar local per element like a vector's components. `role` is "a",
    "b" or "acc"; `variant` the ir/mma.py shape of an A or B fragment (None for an
    accumulator, whose layout every shape shares)."""

    __slots__ = ("role", "variant")

    def __init__(self, role: str, variant: str | None, elem: dt.DType, size: int):
        super().__init__(elem, (size,))
        self.role, self.variant = role, variant

    @property
    def name(self) -> str:
        if self.role == "wgacc":  # a warpgroup accumulator (frontend/typing/wgmma.py)
            return f"wgmma_acc<{self.variant}>"
        return f"mma_{self.role}<{self.variant or self.elem.name}>"

    def __repr__(self) -> str:
        if self.role == "wgacc":
            return f"a warpgroup accumulator (64×{self.variant[1:]} f32)"
        if self.role == "acc":
            return ("an f32 accumulator fragment" if self.elem is dt.f32 else
                    f"an accumulator-shaped {self.elem.name} fragment")
        what = {"a": "an A", "b": "a B"}[self.role]
        return f"{what} fragment" + (f" ({self.variant})" if self.variant else "")

    def __eq__(self, other) -> bool:
        return (isinstance(other, FragType) and other.role == self.role
                and other.variant == self.variant and other.elem is self.elem)

    def __hash__(self) -> int:
        return hash((self.role, self.variant, self.elem.name))


class FragVal(VecVal):
    """An MMA fragment value during type checking: its FragType and this lane's elements."""

    __slots__ = ("ftype",)
    is_fragment = True

    def __init__(self, ftype: FragType, comps: list, loc):
        super().__init__(ftype.shape, comps, loc)
        self.ftype = ftype

    def vtype(self) -> VecType:
        return self.ftype


def typed(e: Expr) -> Expr:
    """Wrap a typed expression so the scalar rules take it as an operand unchanged."""
    return Expr(Op.TYPED, None, (), e, e.loc)


def comp_name(local: str, k: int) -> str:
    return member(local, k)


def lift(rule):
    """The rule of an elementwise op: its operands typed first; with a vector among them, the
    scalar rule applies per component (scalars broadcast), else to the typed operands."""
    def lifted(tc, e: Expr):
        args = [tc.expr(a) for a in e.args]
        if any(isinstance(a, VecVal) for a in args):
            return tc.elementwise(e, args)
        return rule(tc, e.replace(args=tuple(typed(a) for a in args)))

    lifted.__name__ = lifted.__qualname__ = f"lift({rule.__name__})"
    return lifted


class VectorRules:
    """Mixed into the TypeChecker (`frontend/typecheck.py`): the vector/matrix parts of the
    language; `frontend/typing/rules.py` maps the vector ops here."""

    # -- helpers --------------------------------------------------------------------------------
    def scalar(self, x, e, what: str = "a value"):
        """`x` if it is a scalar; a vector where one value is required is rejected."""
        if isinstance(x, VecVal):
            raise KindError.at(
                e.loc, self.message(e.loc, f"a vector or matrix where {what} is required"),
                "use a component (v.x, v[k]), or any()/all() for a mask")
        return x

    def op_typed(self, op: Op, loc, *args, arg=None):
        """Type a scalar operation over already typed operands, by the scalar rules."""
        return self.expr(Expr(op, None, tuple(typed(a) for a in args), arg, loc))

    def bind(self, x: Expr) -> Expr:
        """A non-trivial expression used several times: computed once into a temporary."""
        if x.op in _TRIVIAL or not self._eager:
            return x
        self._ntmp += 1
        name = numbered("v", self._ntmp)
        t = dt.concrete(x.dtype)
        self.types[name] = t
        self._pre.append(N.Assign(x.loc, name, self.coerce(x, t)))
        return Expr(Op.VAR, t, (), name, x.loc)

    def bind_all(self, v: VecVal) -> VecVal:
        return VecVal(v.shape, [self.bind(c) for c in v.comps], v.loc)

    # -- construction and components ------------------------------------------------------------
    def vector_literal(self, e: Expr):
        items = [self.expr(a) for a in e.args]
        target = e.arg if isinstance(e.arg, VecType) else None
        if all(isinstance(x, VecVal) for x in items):  # rows of a matrix
            widths = {x.shape for x in items}
            if len(widths) != 1 or len(next(iter(widths))) != 1:
                raise self.type_error(e, "matrix rows must be vectors of one width")
            out = VecVal((len(items), items[0].shape[0]), [c for x in items for c in x.comps],
                         e.loc)
        elif any(isinstance(x, VecVal) for x in items):
            raise self.type_error(e, "a vector mixes vectors and scalars",
                                  "nested lists make matrices: [[a, b], [c, d]]")
        else:
            out = VecVal((len(items),), [self.numeric(x) for x in items], e.loc)
        if target is not None:
            if len(out.comps) == 1 and target.size > 1:  # tack.vec3(0.0): every component
                out = VecVal(target.shape, out.comps * target.size, e.loc)
            if out.shape != target.shape:
                raise self.type_error(e, f"{target!r} built from {len(out.comps)} values")
            out = VecVal(out.shape, [self.coerce(c, target.elem, explicit=True)
                                     for c in out.comps], e.loc)
        if len(out.comps) > 16 or any(d > 4 for d in out.shape):
            raise self.type_error(e, "vectors have at most 4 components, matrices at most 4×4")
        return out

    def component(self, e: Expr):
        v = self.expr(e.args[0])
        idx = [self.scalar(self.expr(i), e, "an index") for i in e.args[1:]]
        if not isinstance(v, VecVal):
            raise self.type_error(e, "indexing a scalar", "only arrays, vectors and matrices "
                                                          "are indexed")
        self.no_fragment(e, v)
        if e.arg is not None and v.is_matrix:  # `.x` names a vector's component, not a row
            raise self.type_error(e, f".{e.arg} of a {v.vtype()!r}: .x .y .z .w are a vector's "
                                     "components",
                                  "index a matrix: m[i, j] is an entry, m[i] a row")
        if v.is_matrix and len(idx) == 1:  # m[i]: row i
            n, m = v.shape
            rows = [VecVal((m,), v.comps[r * m:(r + 1) * m], e.loc) for r in range(n)]
            k = self._static_index(idx[0], n, e)
            if k is None:
                return VecVal((m,), [self._pick([r.comps[c] for r in rows], idx[0], e)
                                     for c in range(m)], e.loc)
            return rows[k]
        if len(idx) != len(v.shape):
            raise self.type_error(e, f"{len(idx)} indices for a value of shape {v.shape}")
        flat, static = Expr(Op.CONST, dt.i32, (), 0, e.loc), 0
        for d, i in enumerate(idx):
            k = self._static_index(i, v.shape[d], e)
            if k is None:
                static = None
            elif static is not None:
                static = static * v.shape[d] + k
            scale = Expr(Op.CONST, dt.i64, (), v.shape[d], e.loc)
            flat = self.op_typed(Op.ADD, e.loc, self.op_typed(Op.MUL, e.loc, flat, scale),
                                 self.integer(i, "index"))
        if static is not None:
            return v.comps[static]
        return self._pick(v.comps, flat, e)

    def _static_index(self, i: Expr, n: int, e) -> int | None:
        if i.op is not Op.CONST:
            return None
        k = i.arg + n if i.arg < 0 else i.arg  # literals count from the end, like Python
        if not 0 <= k < n:
            raise self.type_error(e, f"component index {i.arg} out of range for {n} components")
        return k

    def _pick(self, comps: list, idx: Expr, e) -> Expr:
        """A runtime component index: a select chain; outside [0, n) gives the last one."""
        idx = self.bind(self.integer(idx, "index"))
        out = comps[-1]
        for k in range(len(comps) - 2, -1, -1):
            hit = self.op_typed(Op.EQ, e.loc, idx, Expr(Op.CONST, idx.dtype, (), k, e.loc))
            out = self.scalar_select(hit, comps[k], out, e)
        return out

    def scalar_select(self, c: Expr, a: Expr, b: Expr, e) -> Expr:
        """Eager per-scalar select, arms promoted like a conditional expression's."""
        a, b = self.bool_to_int(a), self.bool_to_int(b)
        t = self._promote_e(a, b, e)
        return Expr(Op.SELECT, t, (self.to_bool(c), self.coerce(a, t), self.coerce(b, t)), None,
                    e.loc)

    # -- arithmetic -----------------------------------------------------------------------------
    def no_fragment(self, e: Expr, *values) -> None:
        """An MMA fragment is no vector: its elements sit in a layout of the warp's lanes, so
        only the MMA builtins take it (docs/language.md, "Matrix multiply-accumulate")."""
        for v in values:
            if getattr(v, "is_fragment", False):
                raise self.type_error(e, f"{v.vtype()!r} used as a vector: its elements are "
                                         "spread over the warp's lanes",
                                      "fragments go to tack.mma and tack.mma_store; "
                                      "accumulator-shaped fragments also take elementwise "
                                      "arithmetic and tack.select; or store the tile with "
                                      "tack.mma_store and compute on the array")

    def tile_elementwise(self, e: Expr, args: list) -> bool:
        """Whether `args` hold an MMA fragment: then every vector among them must be an
        accumulator-shaped fragment (the 16×8 tile, each lane its four elements), and the
        operation applies element by element to the tile, scalars broadcast, giving another
        accumulator-shaped fragment (docs/language.md, "Arithmetic on accumulators"). A and B
        fragments, and vectors beside fragments, are refused."""
        frags = [a for a in args if getattr(a, "is_fragment", False)]
        if not frags:
            return False
        for a in args:
            if isinstance(a, VecVal) and not (getattr(a, "is_fragment", False)
                                              and a.ftype.role == "acc"):
                if getattr(a, "is_fragment", False):
                    self.no_fragment(e, a)
                raise self.type_error(e, "an operation mixes an MMA fragment and a vector",
                                      "accumulator-shaped fragments combine with each other "
                                      "and with scalars")
        return True

    def tile_value(self, comps: list, loc) -> VecVal:
        """The accumulator-shaped fragment of four typed elements."""
        return FragVal(FragType("acc", None, dt.concrete(comps[0].dtype), 4), comps, loc)

    def elementwise(self, e: Expr, args: list):
        tile = self.tile_elementwise(e, args)
        vecs = [a for a in args if isinstance(a, VecVal)]
        shape = vecs[0].shape
        for v in vecs[1:]:
            if v.shape != shape:
                raise self.type_error(e, f"operation mixes shapes {shape} and {v.shape}",
                                      "vectors combine with vectors of their width, or scalars")
        n = len(vecs[0].comps)
        args = [self.bind(a) if not isinstance(a, VecVal) and n > 1 else a for a in args]
        comps = []
        for k in range(n):
            parts = [a.comps[k] if isinstance(a, VecVal) else a for a in args]
            comps.append(self.op_typed(e.op, e.loc, *parts, arg=e.arg))
        return self.tile_value(comps, e.loc) if tile else VecVal(shape, comps, e.loc)

    def select_values(self, e: Expr):
        mask, a, b = (self.expr(x) for x in e.args)
        tile = self.tile_elementwise(e, [mask, a, b])
        vecs = [x for x in (mask, a, b) if isinstance(x, VecVal)]
        if not vecs:
            return self.scalar_select(mask, a, b, e)
        shape = vecs[0].shape
        if any(v.shape != shape for v in vecs):
            raise self.type_error(e, "select() mixes shapes")
        out = []
        for k in range(len(vecs[0].comps)):
            m, x, y = (v.comps[k] if isinstance(v, VecVal) else v for v in (mask, a, b))
            out.append(self.scalar_select(m, x, y, e))
        return self.tile_value(out, e.loc) if tile else VecVal(shape, out, e.loc)

    def ifexp_values(self, e: Expr, c: Expr, a, b):
        """`v if c else w` per component; a scalar arm is repeated, as a scalar operand is
        broadcast (`v if c else 0.0`). Each component stays lazy: the arm not chosen is not
        evaluated, so a repeated scalar arm must not update memory (it would once per
        component)."""
        vec = a if isinstance(a, VecVal) else b
        for arm in (a, b):
            if isinstance(arm, VecVal):
                if arm.shape != vec.shape:
                    raise self.type_error(e, f"a conditional expression mixes shapes {a.shape} "
                                             f"and {b.shape}",
                                          "both arms are vectors of one width, or one a scalar")
            elif any(x.op in ATOMIC for x in iter_exprs(arm)):
                raise self.type_error(e, "an atomic update in the scalar arm of a conditional "
                                         "expression whose other arm is a vector",
                                      "the arm would run once per component: assign the "
                                      "atomic's result to a local first")
        ca = a.comps if isinstance(a, VecVal) else [a] * len(vec.comps)
        cb = b.comps if isinstance(b, VecVal) else [b] * len(vec.comps)
        frags = [x for x in (a, b) if getattr(x, "is_fragment", False)]
        if frags and not (len(frags) == 2 and a.ftype == b.ftype):
            self.tile_elementwise(e, [a, b])  # A or B with another kind: refused there
        comps = [self.op_typed(Op.IFEXP, e.loc, c, x, y) for x, y in zip(ca, cb)]
        if len(frags) == 2 and a.ftype == b.ftype and a.ftype.role != "acc":
            return FragVal(a.ftype, comps, e.loc)  # one of two A (or B) fragments
        return self.tile_value(comps, e.loc) if frags else VecVal(vec.shape, comps, e.loc)

    def reduce_mask(self, e: Expr):
        v = self.expr(e.args[0])
        if not isinstance(v, VecVal):
            word = "any" if e.op is Op.ANY else "all"
            raise self.type_error(e, f"{word}() of a scalar of type {dt.concrete(v.dtype)!r}: "
                                     f"{word}() reduces a mask", "a mask is a vector comparison "
                                  f"({word}(v > 0.0)); a scalar condition is used as it is")
        out = self.to_bool(v.comps[0])
        for c in v.comps[1:]:
            out = self.op_typed(Op.OR_ if e.op is Op.ANY else Op.AND_, e.loc, out,
                                self.to_bool(c))
        return out

    # -- methods and products -------------------------------------------------------------------
    def method(self, e: Expr):
        name, recv = e.arg, self.expr(e.args[0])
        args = [self.expr(a) for a in e.args[1:]]
        if not isinstance(recv, VecVal):
            raise self.type_error(e, f"method .{name}() on a scalar")
        fn = getattr(self, f"m_{_METHOD_ALIASES.get(name, name)}", None)
        if fn is None:
            raise UnsupportedSyntaxError.at(
                e.loc, self.message(e.loc, f"unknown vector method .{name}()"),
                "vectors offer dot, cross, norm/length, norm_sqr, normalized/normalize, sum, "
                "min, max, outer_product/outer; matrices transpose, trace, determinant, inverse")
        return fn(e, self.bind_all(recv), *args)

    def _sum(self, e, terms: list) -> Expr:
        out = terms[0]
        for t in terms[1:]:
            out = self.op_typed(Op.ADD, e.loc, out, t)
        return out

    def m_dot(self, e, v: VecVal, w) -> Expr:
        if not isinstance(w, VecVal) or w.shape != v.shape:
            raise self.type_error(e, "dot() of vectors of different widths")
        w = self.bind_all(w)
        return self._sum(e, [self.op_typed(Op.MUL, e.loc, a, b)
                             for a, b in zip(v.comps, w.comps)])

    def m_norm_sqr(self, e, v: VecVal) -> Expr:
        return self.m_dot(e, v, v)

    def m_norm(self, e, v: VecVal, eps=None) -> Expr:
        s = self.m_norm_sqr(e, v)
        if eps is not None:
            s = self.op_typed(Op.ADD, e.loc, s, eps)
        return self.op_typed(Op.SQRT, e.loc, s)

    def m_normalized(self, e, v: VecVal, eps=None) -> VecVal:
        n = self.bind(self.m_norm(e, v))
        if eps is not None:
            n = self.op_typed(Op.ADD, e.loc, n, eps)
        return VecVal(v.shape, [self.op_typed(Op.TRUEDIV, e.loc, c, n) for c in v.comps], e.loc)

    def m_cross(self, e, a: VecVal, b) -> VecVal:
        if a.shape != (3,) or not isinstance(b, VecVal) or b.shape != (3,):
            raise self.type_error(e, "cross() needs two 3-vectors")
        b = self.bind_all(b)
        (a0, a1, a2), (b0, b1, b2) = a.comps, b.comps
        m = lambda x, y: self.op_typed(Op.MUL, e.loc, x, y)
        s = lambda x, y: self.op_typed(Op.SUB, e.loc, x, y)
        return VecVal((3,), [s(m(a1, b2), m(a2, b1)), s(m(a2, b0), m(a0, b2)),
                             s(m(a0, b1), m(a1, b0))], e.loc)

    def m_sum(self, e, v: VecVal) -> Expr:
        return self._sum(e, v.comps)

    def m_min(self, e, v: VecVal) -> Expr:
        out = v.comps[0]
        for c in v.comps[1:]:
            out = self.op_typed(Op.MIN, e.loc, out, c)
        return out

    def m_max(self, e, v: VecVal) -> Expr:
        out = v.comps[0]
        for c in v.comps[1:]:
            out = self.op_typed(Op.MAX, e.loc, out, c)
        return out

    def m_outer_product(self, e, u: VecVal, w) -> VecVal:
        if not isinstance(w, VecVal) or u.is_matrix or w.is_matrix:
            raise self.type_error(e, "outer_product() of two vectors")
        w = self.bind_all(w)
        return VecVal((u.shape[0], w.shape[0]), [self.op_typed(Op.MUL, e.loc, a, b)
                                                 for a in u.comps for b in w.comps], e.loc)

    def _square(self, e, m: VecVal, what: str) -> int:
        if not m.is_matrix or m.shape[0] != m.shape[1]:
            raise self.type_error(e, f"{what}() needs a square matrix")
        return m.shape[0]

    def m_transpose(self, e, m: VecVal) -> VecVal:
        if not m.is_matrix:
            raise self.type_error(e, "transpose() of a vector")
        n, k = m.shape
        return VecVal((k, n), [m.comps[r * k + c] for c in range(k) for r in range(n)], e.loc)

    def m_trace(self, e, m: VecVal) -> Expr:
        n = self._square(e, m, "trace")
        return self._sum(e, [m.comps[i * n + i] for i in range(n)])

    def m_determinant(self, e, m: VecVal) -> Expr:
        n = self._square(e, m, "determinant")
        c = m.comps
        mul = lambda x, y: self.op_typed(Op.MUL, e.loc, x, y)
        sub = lambda x, y: self.op_typed(Op.SUB, e.loc, x, y)
        if n == 1:
            return c[0]
        if n == 2:
            return sub(mul(c[0], c[3]), mul(c[1], c[2]))
        if n == 3:
            minors = [sub(mul(c[4], c[8]), mul(c[5], c[7])), sub(mul(c[3], c[8]), mul(c[5], c[6])),
                      sub(mul(c[3], c[7]), mul(c[4], c[6]))]
            return self.op_typed(Op.ADD, e.loc, sub(mul(c[0], minors[0]), mul(c[1], minors[1])),
                                 mul(c[2], minors[2]))
        raise self.type_error(e, "determinant() is provided for 2×2 and 3×3 matrices")

    def m_inverse(self, e, m: VecVal) -> VecVal:
        n = self._square(e, m, "inverse")
        c = m.comps
        inv = self.bind(self.op_typed(Op.TRUEDIV, e.loc, Expr(Op.CONST, dt.weak_float, (), 1.0,
                                                             e.loc),
                                      self.m_determinant(e, m)))
        mul = lambda x, y: self.op_typed(Op.MUL, e.loc, x, y)
        sub = lambda x, y: self.op_typed(Op.SUB, e.loc, x, y)
        neg = lambda x: self.op_typed(Op.NEG, e.loc, x)
        if n == 2:
            adj = [c[3], neg(c[1]), neg(c[2]), c[0]]
        elif n == 3:
            def cof(r, k):
                rows = [i for i in range(3) if i != r]
                cols = [j for j in range(3) if j != k]
                (a, b), (d, f) = ([c[i * 3 + j] for j in cols] for i in rows)
                v = sub(mul(a, f), mul(b, d))
                return v if (r + k) % 2 == 0 else neg(v)

            adj = [cof(k, r) for r in range(3) for k in range(3)]  # the transposed cofactors
        else:
            raise self.type_error(e, "inverse() is provided for 2×2 and 3×3 matrices")
        return VecVal(m.shape, [mul(a, inv) for a in adj], e.loc)

    def matmul(self, e: Expr):
        a, b = (self.expr(x) for x in e.args)
        if not (isinstance(a, VecVal) and isinstance(b, VecVal)):
            raise self.type_error(e, "@ needs two vectors or matrices")
        a, b = self.bind_all(a), self.bind_all(b)
        if not a.is_matrix and not b.is_matrix:
            return self.m_dot(e, a, b)
        ra, ca = a.shape if a.is_matrix else (1, a.shape[0])  # a vector on the left is a row
        rb, cb = b.shape if b.is_matrix else (b.shape[0], 1)  # on the right, a column
        if ca != rb:
            raise self.type_error(e, f"@ of shapes {a.shape} and {b.shape}")
        comps = [self._sum(e, [self.op_typed(Op.MUL, e.loc, a.comps[i * ca + k],
                                             b.comps[k * cb + j]) for k in range(ca)])
                 for i in range(ra) for j in range(cb)]
        if not a.is_matrix:
            return VecVal((cb,), comps, e.loc)
        if not b.is_matrix:
            return VecVal((ra,), comps, e.loc)
        return VecVal((ra, cb), comps, e.loc)


_METHOD_ALIASES = {"length": "norm", "normalize": "normalized", "outer": "outer_product",
                   "T": "transpose", "det": "determinant"}
