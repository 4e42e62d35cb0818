"""Typing of the warpgroup MMA builtins (docs/language.md, "Warpgroup MMA"; ir/wgmma.py holds
the shapes, layouts and descriptors).

A warpgroup accumulator is a fragment value like the warp MMA's (frontend/typing/mma.py): one f32
local per element this lane holds, N/2 of them for a 64×N tile, so everything after the
typechecker sees scalars. `tack.wgmma(acc, As, a, Bs, b, layout[, "tf32"])` is one WGMMA
statement over the two operand starts and the accumulator's element locals, which it updates in
place; `tack.wgmma_commit()` and `tack.wgmma_wait(n)` are WGMMA_COMMIT and WGMMA_WAIT;
`tack.wgmma_store(acc, x, row, col[, ld])` one Store per element at the row and column
`ir.wgmma.acc_coords` gives this lane; `tack.wgmma_index(x, r, k, layout)` plain integer
arithmetic (`ir.wgmma.index`), so a kernel stages its tiles with it on every engine.
"""
from __future__ import annotations

from ... import dtypes as dt
from ...builtins.registry import REGISTRY
from ...errors import TackValueError
from ...ir import nodes as N
from ...ir.nodes import Expr
from ...ir.ops import WARP, Op
from ...ir.wgmma import ATOM_BYTES, BY_DTYPE, LAYOUTS, N_CHOICES, ROW_BYTES, acc_offsets
from ..vectors import FragType, FragVal, typed

_LAYOUT_HINT = 'write "swizzle128" (128-byte swizzle) or "interleave" (no swizzle)'


def acc_type(n: int) -> FragType:
    """The type of a warpgroup accumulator of the 64×n tile."""
    return FragType("wgacc", f"n{n}", dt.f32, n // 2)


class WgmmaRules:
    """Mixed into the TypeChecker; `frontend/typing/rules.py` maps WGMMA_CALL values here and
    the typechecker's `stmt` the statements."""

    def _i(self, v: int, loc) -> Expr:
        return Expr(Op.CONST, dt.i32, (), v, loc)

    def _const_int(self, e: Expr, x, what: str, hint: str) -> int:
        v = self.expr(x)
        if not (isinstance(v, Expr) and v.op is Op.CONST and type(v.arg) is int):
            raise self.type_error(e, f"{what} must be an integer known when the kernel "
                                     "compiles", hint)
        return v.arg

    def wgmma_value(self, e: Expr):
        """`tack.wgmma_zeros(n)` and `tack.wgmma_index(x, r, k, layout)`."""
        name, arrays, strings = e.arg
        if name == "wgmma_zeros":
            n = self._const_int(e, e.args[0], "tack.wgmma_zeros(n)'s n",
                                "write a literal or a tack.constant: tack.wgmma_zeros(128)")
            if n not in N_CHOICES:
                raise TackValueError.at(
                    e.loc, self.message(e.loc, f"tack.wgmma_zeros({n}): a warpgroup MMA's N is "
                                               "a multiple of 8 from 8 to 256"),
                    "use 64, 128 or 256 (n/2 f32 registers per lane)")
            return FragVal(acc_type(n), [Expr(Op.CONST, dt.f32, (), 0.0, e.loc)] * (n // 2),
                           e.loc)
        if name == "wgmma_index":
            return self._wgmma_index(e, arrays[0], strings[0])
        raise self.type_error(e, f"tack.{name}() used as a value",  # pragma: no cover
                              "it is a statement")

    def _layout(self, e: Expr, layout: str) -> str:
        if layout not in LAYOUTS:
            raise TackValueError.at(e.loc, self.message(e.loc, f"wgmma layout {layout!r}"),
                                    _LAYOUT_HINT)
        return layout

    def _element_dtype(self, e: Expr, array: str):
        if array in self.scratch:
            return self.scratch[array].dtype
        t = self._array(array, e).dtype
        if not isinstance(t, dt.DType):
            raise self.type_error(e, f"'{array}' holds {t!r}: tiles are arrays of numbers")
        return t

    def _wgmma_index(self, e: Expr, array: str, layout: str) -> Expr:
        """ir.wgmma.index as i32 arithmetic: shifts and masks (the divisors are powers of 2)."""
        self._layout(e, layout)
        size = self._element_dtype(e, array).itemsize
        if size not in (2, 4):
            raise self.type_error(e, f"tack.wgmma_index() of '{array}' ({size}-byte elements): "
                                     "warpgroup MMA tiles hold f16, bf16 or f32")
        loc = e.loc
        r, k = (self.bind(self.coerce(self.integer(self.expr(a), "a tile row or column"),
                                      dt.i32)) for a in e.args)
        lc = (16 // size).bit_length() - 1  # log2 of the elements per 16-byte chunk

        def op(o, a, b):
            return self.op_typed(o, loc, a, b if isinstance(b, Expr) else self._i(b, loc))

        chunk, within = op(Op.SHR, k, lc), op(Op.AND_, k, (1 << lc) - 1)
        row8 = op(Op.AND_, r, 7)
        if layout == "interleave":
            out = op(Op.ADD, op(Op.ADD, op(Op.MUL, op(Op.SHR, r, 3), ATOM_BYTES // size),
                                op(Op.MUL, chunk, 128 // size)),
                     op(Op.ADD, op(Op.SHL, row8, lc), within))
        else:
            out = op(Op.ADD, op(Op.ADD, op(Op.MUL, r, ROW_BYTES // size),
                                op(Op.SHL, op(Op.XOR, chunk, row8), lc)), within)
        return out

    # ---- statements ------------------------------------------------------------------------
    def wgmma_statement(self, s: N.ExprStmt) -> list[N.Stmt]:
        e = s.value
        name = e.arg[0]
        if not REGISTRY["tack." + name].statement:  # wgmma_zeros, wgmma_index: values
            raise self.type_error(e, f"tack.{name}() as a statement has no effect",
                                  "assign its value")
        if name == "wgmma_commit":
            return [N.ExprStmt(s.loc, Expr(Op.WGMMA_COMMIT, dt.i32, (), None, e.loc))]
        if name == "wgmma_wait":
            n = self._const_int(e, e.args[0], "tack.wgmma_wait(n)'s n",
                                "write a literal: tack.wgmma_wait(0) waits for every group")
            if n < 0:
                raise TackValueError.at(
                    e.loc, self.message(e.loc, f"tack.wgmma_wait({n}): n counts the groups "
                                               "left pending, 0 or more"),
                    "tack.wgmma_wait(0) waits for every committed group")
            return [N.ExprStmt(s.loc, Expr(Op.WGMMA_WAIT, dt.i32, (), n, e.loc))]
        if name == "wgmma_store":
            return self._wgmma_store(s)
        return [N.ExprStmt(s.loc, self._wgmma(e))]

    def _accumulator(self, e: Expr, x) -> FragVal:
        acc = self.expr(x)
        if not (isinstance(acc, FragVal) and acc.ftype.role == "wgacc"):
            raise self.type_error(e, f"tack.{e.arg[0]}() takes a warpgroup accumulator "
                                     "(tack.wgmma_zeros(n)) there, got "
                                     + self._kind(acc))
        return acc

    def _wgmma(self, e: Expr) -> Expr:
        _, (a_arr, b_arr), strings = e.arg
        acc = self._accumulator(e, e.args[0])
        n = int(acc.ftype.variant[1:])
        layout = self._layout(e, strings[0])
        precision = strings[1] if len(strings) > 1 else None
        tiles = []
        for arr in (a_arr, b_arr):
            sc = self.scratch.get(arr)
            if sc is None or sc.space != "shared":
                raise self.type_error(e, f"tack.wgmma() reads its tiles from tack.shared "
                                         f"arrays; '{arr}' is not one",
                                      "stage the tile into a tack.shared array (placing "
                                      "elements with tack.wgmma_index)")
            tiles.append(sc.dtype)
        if tiles[0] is not tiles[1]:
            raise self.type_error(e, f"tack.wgmma() of {tiles[0].name} A and {tiles[1].name} B: "
                                     "A and B have one dtype")
        v = BY_DTYPE.get(tiles[0])
        if v is None:
            raise self.type_error(e, f"tack.wgmma() of {tiles[0].name} tiles: the warpgroup "
                                     "MMA multiplies f16, bf16 or f32 (as TF32)",
                                  "convert the tile while staging it")
        if v.ptx == "tf32" and precision != "tf32":
            raise self.type_error(e, "tack.wgmma() of f32 tiles without a precision: tensor "
                                     "cores multiply f32 as TF32 (the hardware drops each "
                                     "input's low 13 significand bits)",
                                  'say so: tack.wgmma(acc, As, a, Bs, b, layout, "tf32"); for '
                                  "IEEE f32 products multiply with CUDA cores (a loop)")
        if precision is not None and v.ptx != "tf32":
            raise self.type_error(e, f"tack.wgmma() precision {precision!r} for {v.name} tiles",
                                  'only f32 tiles take a precision, and it is "tf32"')
        if precision is not None and precision != "tf32":
            raise self.type_error(e, f"tack.wgmma() precision {precision!r}",
                                  'f32 tiles are multiplied as "tf32"')
        if not all(c.op is Op.VAR for c in acc.comps):  # pragma: no cover - the parser's rule
            raise self.type_error(e, "tack.wgmma() on an accumulator that is not a local")
        starts = [self.coerce(self.integer(self.expr(x), "a tile start"), dt.i32)
                  for x in e.args[1:3]]
        return Expr(Op.WGMMA, dt.i32, (*starts, *acc.comps), (v.name, n, layout, a_arr, b_arr),
                    e.loc)

    def _wgmma_store(self, s: N.ExprStmt) -> list[N.Stmt]:
        """One store per element this lane holds (ir.wgmma.acc_coords), each converted to x's
        dtype as an assignment to it would be."""
        e = s.value
        _, (array,), _ = e.arg
        acc = self._accumulator(e, e.args[0])
        args = e.args[1:]
        ndim = 1 if array in self.scratch else self._array(array, e).ndim
        if ndim not in (1, 2) or len(args) != 4 - ndim:
            want = "acc, x, row, col" if ndim == 2 else "acc, x, row, col, ld"
            raise self.type_error(e, f"tack.wgmma_store() into the {ndim}-dimensional array "
                                     f"'{array}' with {len(args)} index arguments",
                                  f"a 2-D array takes (acc, x, row, col); a 1-D one the row "
                                  f"stride too; here: ({want})")
        self._element_dtype(e, array)
        loc, i32 = e.loc, dt.i32
        origin = [self.coerce(self.integer(self.expr(a), "a tile origin"), i32) for a in args[:2]]
        ld = (self.bind(self.coerce(self.integer(self.expr(args[2]), "the row stride ld"),
                                    i32)) if ndim == 1 else None)
        tid = Expr(Op.THREAD_ID, i32, (), None, loc)
        lane = self.op_typed(Op.AND_, loc, tid, self._i(WARP - 1, loc))
        warp = self.op_typed(Op.AND_, loc, self.op_typed(Op.SHR, loc, tid, self._i(5, loc)),
                             self._i(3, loc))
        row0 = self.bind(self.op_typed(Op.ADD, loc, origin[0], self.op_typed(
            Op.ADD, loc, self.op_typed(Op.MUL, loc, warp, self._i(16, loc)),
            self.op_typed(Op.SHR, loc, lane, self._i(2, loc)))))
        col0 = self.bind(self.op_typed(Op.ADD, loc, origin[1], self.op_typed(
            Op.MUL, loc, self.op_typed(Op.AND_, loc, lane, self._i(3, loc)), self._i(2, loc))))
        out: list[N.Stmt] = []
        for i, c in enumerate(acc.comps):
            dr, dc = acc_offsets(i)
            row = self.op_typed(Op.ADD, loc, row0, self._i(dr, loc))
            col = self.op_typed(Op.ADD, loc, col0, self._i(dc, loc))
            if ld is None:
                idx = (typed(row), typed(col))
            else:
                idx = (typed(self.op_typed(Op.ADD, loc, self.op_typed(Op.MUL, loc, row, ld),
                                           col)),)
            out += self.store(N.Store(s.loc, array, idx, typed(c), s.loc.text()))
        return out
