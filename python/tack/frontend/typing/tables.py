"""Typing of constant-table reads: `T[i]`, `T[i, j]`, `T[i][j]` of a `tack.constant` with more
than 4 entries or rows (docs/language.md, "Constants").

A read becomes a LOAD of a `KernelIR.tables` entry, so every later stage treats a table as a
read-only array: one flat index (`passes.linearize`), bounds checks in debug mode
(`passes.bounds`), the last entry for an index outside the table (`passes.tables`). The element
type is the constant's dtype; an untyped table of integers takes the promotion of its literals'
types; an untyped table with a float is weak, like a float literal: each read is loaded from a
copy of the table at the precision it meets (f32 alone), converted once from the exact values.
"""
from __future__ import annotations

import re

from ... import dtypes as dt
from ...dtypes import DType, convert
from ...ir import nodes as N
from ...ir.nodes import Expr
from ...ir.ops import Op
from ..vectors import VecVal

WEAK = dt.weak_float


class TableRules:
    """Mixed into the TypeChecker (`frontend/typecheck.py`); `frontend/typing/rules.py` maps Op.TABLE
    here and `Promotion.retype` calls `retype_table_load`."""

    def table(self, e: Expr):
        shown, const = e.arg
        shape = const.shape
        idx = []
        for i in e.args:  # a vector supplies one index per component, as for arrays
            x = self.expr(i)
            idx += x.comps if isinstance(x, VecVal) else [x]
        idx = [self.integer(x, "index") for x in idx]
        if len(idx) > len(shape):
            raise self.type_error(e, f"{len(idx)} indices for the {len(shape)}-dimensional "
                                     f"constant table '{shown}'")
        if len(idx) < len(shape):  # T[i] of a table of rows: row i, a vector
            if shape[1] > 4:
                raise self.type_error(e, f"a row of the constant table '{shown}' has "
                                         f"{shape[1]} entries, more than a vector holds",
                                      f"index the entry: {shown}[i][j] or {shown}[i, j]")
            row = self.bind(idx[0])
            return VecVal((shape[1],), [self._table_load(e, (row, _i64(k, e)))
                                        for k in range(shape[1])], e.loc)
        return self._table_load(e, tuple(idx))

    def _table_load(self, e: Expr, idx: tuple) -> Expr:
        shown, const = e.arg
        t = table_dtype(const)
        if t is None:
            raise self.type_error(e, f"the constant table '{shown}' mixes integers of no "
                                     "common type", "give it a dtype: tack.constant(..., "
                                                    "tack.i64)")
        if t is WEAK:  # retyped where it meets a precision (retype_table_load)
            self._weak_tables[_weak_name(shown, const)] = (shown, const)
            return Expr(Op.LOAD, WEAK, idx, _weak_name(shown, const), e.loc)
        return Expr(Op.LOAD, t, idx, self.table_name(shown, const, t, e.loc), e.loc)

    def retype_table_load(self, e: Expr, t: DType) -> Expr:
        """A weak table read at precision `t`: a load from the table's copy at `t`."""
        shown, const = self._weak_tables[e.arg]
        return e.replace(dtype=t, arg=self.table_name(shown, const, t, e.loc))

    def table_name(self, shown: str, const, t: DType, loc) -> str:
        """The `KernelIR.tables` entry of `const` at dtype `t` (declared on first use)."""
        key = (id(const), t)
        name = self._table_names.get(key)
        if name is None:
            name = re.sub(r"\W", "_", shown) + ("" if table_dtype(const) is not WEAK
                                                else f"_{t.name}")
            while name in self.tables or name in self.specs or name in self.types \
                    or name in self.scratch:
                name += "_"
            flat = [v for row in const for v in row] if len(const.shape) == 2 else list(const)
            values = tuple(convert(v, t) for v in flat)
            self.tables[name] = N.Table(name, t, const.shape, values, loc)
            self._table_names[key] = name
        return name


def table_dtype(const) -> DType | None:
    """The element type of a table constant: its dtype; untyped, weak when it holds a float,
    else the promotion of its integer literals' types (None when they have none)."""
    if const.dtype is not None:
        return const.dtype
    flat = [v for row in const for v in row] if len(const.shape) == 2 else list(const)
    if any(isinstance(v, float) for v in flat):
        return WEAK
    t = dt.i32
    for v in (min(flat), max(flat)):
        t = dt.promote(t, dt.int_literal_dtype(int(v)))
        if t is None:
            return None
    return t


def _weak_name(shown: str, const) -> str:
    return f"weak table {shown} {id(const)}"


def _i64(k: int, e: Expr) -> Expr:
    return Expr(Op.CONST, dt.i64, (), k, e.loc)
