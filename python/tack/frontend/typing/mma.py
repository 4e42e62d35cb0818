"""Typing of the matrix multiply-accumulate builtins (docs/language.md, "Matrix
multiply-accumulate"): fragments are values of the kernel language, one scalar per element this
lane holds (a `FragVal`, a fragment local one scalar local per element, as a vector's
components), so everything after the typechecker sees scalars.

`tack.mma_load_a/_b/_acc(x, row, col[, ld])` is one LOAD per element at the row and column the
layout of ir/mma.py gives this lane (`tack.lane_id()` arithmetic), each wrapped in a FRAGMENT
collective (an f16/bf16 A or B fragment of a shared tile also carries the row this lane would
give `ldmatrix`, for the PTX renderer: render/llvm/ptx_ldmatrix.py); `tack.mma_zeros()` four zeros; `tack.mma_store(acc, x, row, col[, ld])` one Store per
element; `tack.mma(a, b, acc)` four MMA expressions, element j of the warp's A @ B + C over the
same operands. A 2-D array takes (row, col); a 1-D one (a `tack.shared` tile) the row stride `ld`
too, so element (r, c) is x[r * ld + c]. f32 inputs are multiplied as TF32 only when the call
says "tf32": each is rounded to TF32 here by `tack.tf32`'s own typed IR (passes/libmath.py
applies the library's one definition: nearest, ties away from zero, as PTX's
`cvt.rna.tf32.f32`; a NaN quieted), so every engine multiplies the same values.
"""
from __future__ import annotations

from ... import dtypes as dt
from ...builtins.registry import REGISTRY
from ...ir import nodes as N
from ...ir.mma import ACC, BY_DTYPE, LDMATRIX, VARIANTS, layout
from ...ir.nodes import Expr
from ...ir.ops import Op
from ...passes import libmath
from ..vectors import FragType, FragVal, typed

# The fragment each load makes (its entry's role)
_ROLE = {b.name: b.role for b in REGISTRY.values() if b.role is not None}
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
        if name in ("mma_rows", "mma_cols"):
            return self._coordinates(e, name)
        if name in ("mma_row_max", "mma_row_sum"):
            return self._row_reduction(e, name)
        if name == "mma_to_a":
            return self._to_a(e)
        if name == "mma_store":
            raise self.type_error(e, "tack.mma_store() used as a value",
                                  "it is a statement: tack.mma_store(acc, x, row, col[, ld])")
        role = _ROLE[name]
        t, _ = self._tile_array(e, name, array, e.args)
        if name == "mma_load_bt" and t is dt.f32:
            raise self.type_error(e, "tack.mma_load_bt() of an f32 array: the transposed load "
                                     "serves f16 and bf16 tiles",
                                  "load an f32 B tile with tack.mma_load_b")
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
        frame = self._frame(e, e.args)
        # ldmatrix's row addresses are those of a tile read as stored, not transposed
        row = None if name == "mma_load_bt" else self._ldmatrix_row(e, ftype, array, frame)
        comps = []
        for i, idx in enumerate(self._indices(e, ftype, frame, name == "mma_load_bt")):
            load = self.expr(Expr(Op.LOAD, None, idx, array, e.loc))
            extra = () if row is None else (row, self._c(i, dt.i32, e.loc))
            comps.append(self.bind(Expr(Op.FRAGMENT, load.dtype, (load, *extra), name, e.loc)))
        return FragVal(ftype, comps, e.loc)

    def _ldmatrix_row(self, e, ftype: FragType, array: str, frame):
        """For an f16/bf16 A or B fragment of a `tack.shared` tile: the flat index of the tile
        row whose address this lane gives `ldmatrix` (ir/mma.py, `LDMATRIX`), which the
        FRAGMENT elements carry so that a renderer may load the warp's tile with it; else
        None. Whether it does is the renderer's choice (docs/language.md, "Matrix
        multiply-accumulate": the row addresses must be provably 16-byte aligned)."""
        sc = self.scratch.get(array)
        how = LDMATRIX.get(ftype.role)
        if sc is None or sc.space != "shared" or how is None or not ftype.elem.is_half:
            return None
        origin, ld, lane, _, _ = frame
        loc = e.loc
        r = self.op_typed(Op.ADD, loc, origin[0], Expr(Op.AND_, dt.i32, (
            lane, self._c(15, dt.i32, loc)), None, loc))
        c = origin[1]
        if how.col_step:
            step = Expr(Op.MUL, dt.i32, (Expr(Op.SHR, dt.i32, (lane, self._c(4, dt.i32, loc)),
                                                   None, loc), self._c(how.col_step, dt.i32, loc)),
                        None, loc)
            c = self.op_typed(Op.ADD, loc, c, step)
        flat = self.op_typed(Op.ADD, loc, self.op_typed(Op.MUL, loc, r, ld), c)
        return self.bind(self.coerce(flat, dt.i64))

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

    def _frame(self, e, args: tuple) -> tuple:
        """(origin, ld, lane, group, quad) of a tile access, each computed once: the tile
        origin (row, col), the row stride (None for a 2-D array), the lane and its group and
        quad (ir/mma.py)."""
        loc = e.loc
        origin = [self.bind(self.integer(self.expr(a), "a tile origin")) for a in args[:2]]
        ld = (self.bind(self.integer(self.expr(args[2]), "the row stride ld"))
              if len(args) == 3 else None)
        lane = Expr(Op.LANE_ID, dt.i32, (), None, loc)
        group = self.bind(Expr(Op.SHR, dt.i32, (lane, self._c(2, dt.i32, loc)), None, loc))
        quad = self.bind(Expr(Op.AND_, dt.i32, (lane, self._c(3, dt.i32, loc)), None, loc))
        return origin, ld, lane, group, quad

    def _indices(self, e, ftype: FragType, frame: tuple,
                 transposed: bool = False) -> list[tuple]:
        """The untyped index of each element this lane holds: the tile origin (row, col) plus
        the layout's offsets (ir/mma.py); both for a 2-D array, row * ld + col for a 1-D one.
        `transposed` (`tack.mma_load_bt`): element (r, c) of the tile is x at (col + c,
        row + r) from the origin, the tile's transpose being what x holds."""
        loc = e.loc
        origin, ld, _, group, quad = frame

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
            if transposed:
                row, col = along(origin[0], lay.col, c), along(origin[1], lay.row, r)
            else:
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
        for idx, c in zip(self._indices(e, acc.ftype, self._frame(e, e.args[1:])), comps):
            out += self.store(N.Store(s.loc, array, idx, typed(c), s.loc.text()))
        return out

    def mma(self, e: Expr) -> FragVal:
        """`tack.mma(a, b, acc[, "tf32"])`: the four elements of this lane's D fragment."""
        a, b, acc = (self.expr(x) for x in e.args)
        for v, role, what in ((a, "a", "tack.mma_load_a or tack.mma_to_a"),
                              (b, "b", "tack.mma_load_b or tack.mma_load_bt"),
                              (acc, "acc", "tack.mma_zeros, tack.mma_load_acc or tack.mma")):
            if not (isinstance(v, FragVal) and v.ftype.role == role):
                raise self.type_error(e, f"tack.mma() takes an {role.upper()} fragment there "
                                         f"({what}), got {self._kind(v)}")
        if acc.ftype.elem is not dt.f32:
            raise self.type_error(e, f"tack.mma() accumulates into f32: the accumulator is "
                                     f"{acc.ftype!r}", "convert it: tack.f32(acc)")
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

    # -- accumulator-shaped fragments: coordinates, row reductions, the A fragment of two ------
    def _no_args(self, e, name: str, n: int, what: str) -> list:
        if len(e.args) != n:
            raise self.type_error(e, f"tack.{name}() takes {what}")
        return [self.expr(a) for a in e.args]

    def _coordinates(self, e: Expr, name: str) -> FragVal:
        """`tack.mma_rows()` / `tack.mma_cols()`: the i32 accumulator-shaped fragment whose every
        element is its own row (0..15) / column (0..7) in the 16×8 tile."""
        self._no_args(e, name, 0, "no arguments")
        loc = e.loc
        lane = Expr(Op.LANE_ID, dt.i32, (), None, loc)
        group = self.bind(Expr(Op.SHR, dt.i32, (lane, self._c(2, dt.i32, loc)), None, loc))
        quad = self.bind(Expr(Op.AND_, dt.i32, (lane, self._c(3, dt.i32, loc)), None, loc))
        side = 0 if name == "mma_rows" else 1
        coef = ACC.row if side == 0 else ACC.col
        base = group if coef == (1, 0) else self.bind(
            Expr(Op.MUL, dt.i32, (quad, self._c(coef[1], dt.i32, loc)), None, loc))
        comps = []
        for off in ACC.offsets:
            k = off[side]
            comps.append(base if k == 0 else Expr(Op.ADD, dt.i32, (base, self._c(k, dt.i32, loc)),
                                                 None, loc))
        return FragVal(FragType("acc", None, dt.i32, 4), comps, loc)

    def _acc_arg(self, e: Expr, name: str, v) -> FragVal:
        if not (isinstance(v, FragVal) and v.ftype.role == "acc"):
            raise self.type_error(e, f"tack.{name}() takes an accumulator-shaped fragment "
                                     f"(tack.mma, tack.mma_zeros, tack.mma_load_acc, or "
                                     f"arithmetic on them), got {self._kind(v)}")
        return v

    def _row_reduction(self, e: Expr, name: str) -> FragVal:
        """`tack.mma_row_max(acc)` / `tack.mma_row_sum(acc)`: the f32 accumulator whose every
        element is the maximum / sum of its row of the 16×8 tile. A row's 8 elements sit on
        the 4 lanes of one quad, two each (ir/mma.py, ACC): each lane combines its two, then the
        quad combines by the xor butterfly over lane bits 0 and 1, the order fixed so that every
        engine gives the same bits (as tack.warp_sum's)."""
        (v,) = self._no_args(e, name, 1, "one accumulator fragment")
        v = self._acc_arg(e, name, v)
        if v.ftype.elem is not dt.f32:
            raise self.type_error(e, f"tack.{name}() of {v.ftype!r}: it reduces f32 tiles",
                                  f"convert it first: tack.{name}(tack.f32(acc))")
        loc = e.loc
        op = Op.MAX if name == "mma_row_max" else Op.ADD
        c = [self.bind(x) for x in v.comps]
        halves = []
        for lo, hi in ((c[0], c[1]), (c[2], c[3])):  # rows group and group + 8
            x = self.bind(Expr(op, dt.f32, (lo, hi), None, loc))
            for mask in (1, 2):
                other = Expr(Op.SHFL_XOR, dt.f32, (x, self._c(mask, dt.i32, loc)), None, loc)
                x = self.bind(Expr(op, dt.f32, (x, self.bind(other)), None, loc))
            halves.append(x)
        return FragVal(_ACC, [halves[0], halves[0], halves[1], halves[1]], loc)

    def _to_a(self, e: Expr) -> FragVal:
        """`tack.mma_to_a(lo, hi)`: the A fragment of the 16×16 tile whose columns 0..7 are the
        accumulator-shaped f16 (or bf16) fragment lo and columns 8..15 hi. The m16n8k16 A layout
        holds, on each lane, the elements its accumulator layout holds of both halves (ir/mma.py:
        _A16's offsets are ACC's, then ACC's 8 columns on), so the A fragment is lo's elements
        followed by hi's: no data moves between lanes."""
        lo, hi = self._no_args(e, "mma_to_a", 2, "two accumulator-shaped fragments (lo, hi)")
        lo, hi = self._acc_arg(e, "mma_to_a", lo), self._acc_arg(e, "mma_to_a", hi)
        t = lo.ftype.elem
        v = BY_DTYPE.get(t)
        if hi.ftype.elem is not t or v is None or v.k != 16:
            raise self.type_error(e, f"tack.mma_to_a() of {lo.ftype!r} and {hi.ftype!r}: it "
                                     "makes an f16 or bf16 A fragment of two fragments of that "
                                     "dtype", "round them first: tack.mma_to_a(tack.f16(lo), "
                                     "tack.f16(hi)) (or tack.bf16)")
        lay = layout(v.name, "a")
        assert (lay.row, lay.col, lay.offsets) == (
            ACC.row, ACC.col, ACC.offsets + tuple((r, c + 8) for r, c in ACC.offsets))
        return FragVal(FragType("a", v.name, t, lay.size), list(lo.comps) + list(hi.comps), e.loc)
