"""Typing of the matrix multiply-accumulate builtins (docs/language.md, "Matrix
multiply-accumulate"): fragments are values of the kernel language, one scalar per element this
lane holds (a `FragVal`, a fragment local one scalar local per element, as a vector's
components), so everything after the typechecker sees scalars.

`tack.mma_load_a/_b/_acc(x, row, col[, ld])` is one LOAD per element at the row and column the
layout of ir/mma.py gives this lane (`tack.lane_id()` arithmetic), each wrapped in a FRAGMENT
collective; `tack.mma_zeros()` four zeros; `tack.mma_store(acc, x, row, col[, ld])` one Store per
element; `tack.mma(a, b, acc)` four MMA expressions, element j of the warp's A @ B + C over the
same operands. A 2-D array takes (row, col); a 1-D one (a `tack.shared` tile) the row stride `ld`
too, so element (r, c) is x[r * ld + c]. f32 inputs are multiplied as TF32 only when the call
says "tf32": each is rounded to TF32 here by `tack.tf32`'s own typed IR (passes/libmath.py
applies the library's one definition: nearest, ties away from zero, as PTX's
`cvt.rna.tf32.f32`; a NaN quieted), so every engine multiplies the same values.
"""
from __future__ import annotations

from ... import dtypes as dt
from ...ir import nodes as N
from ...ir.mma import BY_DTYPE, VARIANTS, layout
from ...ir.nodes import Expr
from ...ir.ops import Op
from ...passes import libmath
from ..vectors import FragType, FragVal, typed

_ROLE = {"mma_load_a": "a", "mma_load_b": "b", "mma_load_acc": "acc"}
_ACC = FragType("acc", None, dt.f32, 4)


class MmaRules:
    """Mixed into the TypeChecker (`frontend/typecheck.py`); `frontend/typing/rules.py` maps the
    MMA ops here."""

    def _c(self, v, t, loc) -> Expr:
        return Expr(Op.CONST, t, (), v, loc)

    def mma_tile(self, e: Expr):
        """`tack.mma_zeros()` and the fragment loads (a store is a statement: `mma_store`)."""
        name, array = e.arg
        if name == "mma_zeros":
            return FragVal(_ACC, [self._c(0.0, dt.f32, e.loc)] * 4, e.loc)
        if name == "mma_store":
            raise self.type_error(e, "tack.mma_store() used as a value",
                                  "it is a statement: tack.mma_store(acc, x, row, col[, ld])")
        role = _ROLE[name]
        t, _ = self._tile_array(e, name, array, e.args)
        if role == "acc":
            if t is not dt.f32:
                raise self.type_error(e, f"tack.{name}() of a {t.name} array: an accumulator "
                                         "holds f32")
            ftype = _ACC
        else:
            v = BY_DTYPE.get(t)
            if v is None:
                raise self.type_error(e, f"tack.{name}() of a {t.name} array: tensor cores "
                                         "multiply f16, bf16 or f32 (as TF32)",
                                      "convert the tile to one of those first")
            ftype = FragType(role, v.name, t, layout(v.name, role).size)
        comps = []
        for idx in self._indices(e, ftype, e.args):
            load = self.expr(Expr(Op.LOAD, None, idx, array, e.loc))
            comps.append(self.bind(Expr(Op.FRAGMENT, load.dtype, (load,), name, e.loc)))
        return FragVal(ftype, comps, e.loc)

    def _tile_array(self, e, name: str, array: str, args: tuple):
        """The element dtype and rank of the tile's array, with the arguments that rank needs."""
        if array in self.scratch:
            t, ndim = self.scratch[array].dtype, 1
        else:
            spec = self._array(array, e)
            t, ndim = spec.dtype, spec.ndim
            if not isinstance(t, dt.DType):
                raise self.type_error(e, f"tack.{name}() of an array of {t!r}: tiles are "
                                         "arrays of numbers")
        if ndim not in (1, 2) or len(args) != 4 - ndim:
            want = "x, row, col" if ndim == 2 else "x, row, col, ld"
            raise self.type_error(e, f"tack.{name}() of the {ndim}-dimensional array "
                                     f"'{array}' with {len(args)} index arguments",
                                  f"a 2-D array takes (x, row, col); a 1-D one (a tack.shared "
                                  f"tile) the row stride too: (x, row, col, ld); here: ({want})")
        return t, ndim

    def _indices(self, e, ftype: FragType, args: tuple) -> list[tuple]:
        """The untyped index of each element this lane holds: the tile origin (row, col) plus
        the layout's offsets (ir/mma.py); both for a 2-D array, row * ld + col for a 1-D one.
        The origin, the stride and the lane's group and quad are computed once."""
        loc = e.loc
        origin = [self.bind(self.integer(self.expr(a), "a tile origin")) for a in args[:2]]
        ld = (self.bind(self.integer(self.expr(args[2]), "the row stride ld"))
              if len(args) == 3 else None)
        lane = Expr(Op.LANE_ID, dt.i32, (), None, loc)
        group = self.bind(Expr(Op.SHR, dt.i32, (lane, self._c(2, dt.i32, loc)), None, loc))
        quad = self.bind(Expr(Op.AND_, dt.i32, (lane, self._c(3, dt.i32, loc)), None, loc))

        def along(base: Expr, coef: tuple[int, int], const: int) -> Expr:
            out = self._c(const, dt.i32, loc)
            for k, part in zip(coef, (group, quad)):
                if k:
                    term = part if k == 1 else Expr(Op.MUL, dt.i32, (part, self._c(k, dt.i32, loc)),
                                                    None, loc)
                    out = term if out.op is Op.CONST and out.arg == 0 else Expr(
                        Op.ADD, dt.i32, (out, term), None, loc)
            return self.op_typed(Op.ADD, loc, base, out)

        lay = layout(ftype.variant, ftype.role)
        out = []
        for r, c in lay.offsets:
            row, col = along(origin[0], lay.row, r), along(origin[1], lay.col, c)
            if ld is None:
                out.append((typed(row), typed(col)))
            else:
                flat = self.op_typed(Op.ADD, loc, self.op_typed(Op.MUL, loc, row, ld), col)
                out.append((typed(flat),))
        return out

    def mma_store(self, s: N.ExprStmt) -> list[N.Stmt]:
        """`tack.mma_store(acc, x, row, col[, ld])`: one store per element this lane holds, each
        converted to x's dtype as an assignment to it would be."""
        e = s.value
        name, array = e.arg
        acc = self.expr(e.args[0])
        if not (isinstance(acc, FragVal) and acc.ftype.role == "acc"):
            raise self.type_error(e, "tack.mma_store() stores an accumulator fragment "
                                     "(tack.mma_zeros, tack.mma_load_acc or tack.mma)")
        self._tile_array(e, name, array, e.args[1:])
        comps = [self.bind(c) for c in acc.comps]
        out = []
        for idx, c in zip(self._indices(e, acc.ftype, e.args[1:]), comps):
            out += self.store(N.Store(s.loc, array, idx, typed(c), s.loc.text()))
        return out

    def mma(self, e: Expr) -> FragVal:
        """`tack.mma(a, b, acc[, "tf32"])`: the four elements of this lane's D fragment."""
        a, b, acc = (self.expr(x) for x in e.args)
        for v, role, what in ((a, "a", "tack.mma_load_a"), (b, "b", "tack.mma_load_b"),
                              (acc, "acc", "tack.mma_zeros, tack.mma_load_acc or tack.mma")):
            if not (isinstance(v, FragVal) and v.ftype.role == role):
                raise self.type_error(e, f"tack.mma() takes an {role.upper()} fragment there "
                                         f"({what}), got {self._kind(v)}")
        if a.ftype.variant != b.ftype.variant:
            raise self.type_error(e, f"tack.mma() of {a.ftype!r} and {b.ftype!r}: A and B "
                                     "have one dtype")
        variant = VARIANTS[a.ftype.variant]
        if variant.ptx == "tf32" and e.arg != "tf32":
            raise self.type_error(e, "tack.mma() of f32 fragments without a precision: tensor "
                                     "cores multiply f32 as TF32 (10 significand bits)",
                                  'say so: tack.mma(a, b, acc, "tf32"); for IEEE f32 products '
                                  "multiply with CUDA cores (a loop)")
        if e.arg is not None and (e.arg != "tf32" or variant.ptx != "tf32"):
            raise self.type_error(e, f"tack.mma() precision {e.arg!r} for "
                                     f"{variant.dtype.name} fragments",
                                  'only f32 fragments take a precision, and it is "tf32"')
        ins = [self.bind(c) for c in a.comps + b.comps]
        if variant.ptx == "tf32":
            ins = [self.bind(self._tf32(x)) for x in ins]
        ops = tuple(ins + [self.bind(c) for c in acc.comps])
        return FragVal(_ACC, [Expr(Op.MMA, dt.f32, ops, (variant.name, j), e.loc)
                              for j in range(4)], e.loc)

    def _kind(self, v) -> str:
        return repr(v.vtype()) if isinstance(v, FragVal) else (
            "a vector" if hasattr(v, "comps") else f"a {dt.concrete(v.dtype).name} scalar")

    def _tf32(self, x: Expr) -> Expr:
        """f32 `x` rounded to TF32: `tack.tf32`'s own typed IR (python/tack/lib/tf32.py, the one
        definition: nearest, ties away from zero; a NaN quieted)."""
        return libmath.apply("tf32", x, x.loc)
