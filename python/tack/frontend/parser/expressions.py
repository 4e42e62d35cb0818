"""Expressions: literals, operators, comparisons, conditional expressions and subscripts.

Each `expr_X` turns one `ast` expression into an untyped `Expr` (types come later, from the
typechecker). Operands that may not be evaluated (`and`/`or`, `a if c else b`, the later links
of a chained comparison) are parsed with `lazy`, where no device function may be inlined.
"""
from __future__ import annotations

import ast

from ... import dtypes as dt
from ...errors import TackError
from ...ir.nodes import Assign, Expr, If
from ...ir.ops import Op
from ..literals import LiteralError, fold, literal_int

BINOPS = {
    ast.Add: Op.ADD, ast.Sub: Op.SUB, ast.Mult: Op.MUL, ast.Div: Op.TRUEDIV,
    ast.FloorDiv: Op.FLOORDIV, ast.Mod: Op.MOD, ast.Pow: Op.POW, ast.BitAnd: Op.AND_,
    ast.BitOr: Op.OR_, ast.BitXor: Op.XOR, ast.LShift: Op.SHL, ast.RShift: Op.SHR,
    ast.MatMult: Op.MATMUL,
}
CMPOPS = {ast.Lt: Op.LT, ast.LtE: Op.LE, ast.Gt: Op.GT, ast.GtE: Op.GE, ast.Eq: Op.EQ,
          ast.NotEq: Op.NE}


class Expressions:
    """The operator and subscript half of the expression parser."""

    def expr_Constant(self, node):  # 1, 2.5, True
        v = node.value
        if isinstance(v, bool):  # an integer literal 0/1 (i32), weak beside floats like `1`
            return Expr(Op.CONST, None, (), int(v), self.src.loc(node))
        if isinstance(v, (int, float)):
            if isinstance(v, int) and dt.int_literal_dtype(v) is None:
                raise self.unsupported(node, f"integer literal {v} outside the 64-bit ranges")
            return Expr(Op.CONST, None, (), v, self.src.loc(node))
        raise self.unsupported(node, f"constant of type {type(v).__name__}",
                               "kernels compute with numbers only")

    def expr_BinOp(self, node):  # a + b, a // b, a ** b, a << b, ...
        op = BINOPS.get(type(node.op))
        if op is None:
            raise self.unsupported(node, f"operator {type(node.op).__name__}")
        return self.folded(Expr(op, None, tuple(self.ordered([node.left, node.right])), None,
                                self.src.loc(node)))

    def expr_UnaryOp(self, node):  # -a, +a, ~a, not a
        a = self.expr(node.operand)
        loc = self.src.loc(node)
        if isinstance(node.op, ast.UAdd):
            return a
        if isinstance(node.op, ast.USub) and a.op is Op.CONST and a.dtype is None:
            v = -a.arg
            if isinstance(v, int) and dt.int_literal_dtype(v) is None:
                raise self.unsupported(node, f"integer literal {v} outside the 64-bit ranges")
            return Expr(Op.CONST, None, (), v, loc)
        op = {ast.USub: Op.NEG, ast.Invert: Op.INVERT, ast.Not: Op.NOT}[type(node.op)]
        return self.folded(Expr(op, None, (a,), None, loc))

    def folded(self, e: Expr) -> Expr:
        """`e`, or the literal of its exact value when its operands are integer literals
        (frontend/literals.py): `2**40` is the i64 literal 1099511627776."""
        try:
            return fold(e)
        except LiteralError as exc:
            loc = e.loc
            raise exc.kind.at(loc, f"{self.title}: {exc} at line {loc.line}, column {loc.col}",
                              "integer expressions of literals are computed exactly; for "
                              "arithmetic that wraps at a fixed width, cast an operand "
                              "(tack.u64(2) ** 64)") from None

    def expr_BoolOp(self, node):  # a and b and c, a or b
        op = Op.LAND if isinstance(node.op, ast.And) else Op.LOR
        vals = [self.expr(node.values[0])] + [self.lazy(v) for v in node.values[1:]]
        out = vals[-1]
        for v in reversed(vals[:-1]):
            out = Expr(op, None, (v, out), None, self.src.loc(node))
        return out

    def expr_Compare(self, node):  # a < b, a < b <= c (middle operands evaluated once)
        loc = self.src.loc(node)
        for op in node.ops:
            if type(op) not in CMPOPS:
                raise self.unsupported(node, f"comparison {type(op).__name__}",
                                       "`is`, `in` and their negations are not supported")
        left, first = self.ordered([node.left, node.comparators[0]])
        links = []
        for k, (op, right) in enumerate(zip(node.ops, node.comparators)):
            cop = CMPOPS[type(op)]
            r = first if k == 0 else self.lazy(right)
            links.append(self.folded(Expr(cop, None, (left, r), None, loc)))
            left = r
        if all(literal_int(x) is not None for x in links):  # 1 < 2 < 3: the literal 1
            return Expr(Op.CONST, None, (), int(all(x.arg for x in links)), loc)
        out = links[-1]
        for link in reversed(links[:-1]):
            out = Expr(Op.LAND, None, (link, out), None, loc)
        return out

    def expr_IfExp(self, node):  # a if c else b
        if not self.lazy_depth and (self._calls_device_function(node.body)
                                    or self._calls_device_function(node.orelse)):
            return self._ifexp_statement(node)
        return Expr(Op.IFEXP, None, (self.expr(node.test), self.lazy(node.body),
                                     self.lazy(node.orelse)), None, self.src.loc(node))

    def _ifexp_statement(self, node) -> Expr:
        """`f(x) if c else g(y)`: an arm that calls a device function is inlined inside an `if`
        placed before the statement, so only the chosen arm runs; the value is a local assigned
        in both branches (typed as one local: docs/language.md, "Device functions")."""
        root, loc = self.root, self.src.loc(node)
        cond = self.expr(node.test)
        res = self.fresh("ifv")
        arms = []
        for arm in (node.body, node.orelse):
            saved, root.pre = root.pre, []
            try:
                value = self.expr(arm)
                arms.append(root.pre + [Assign(self.src.loc(arm), res, value)])
            finally:
                root.pre = saved
        root.pre.append(If(loc, cond, arms[0], arms[1]))
        return Expr(Op.VAR, None, (), res, loc)

    def _calls_device_function(self, node) -> bool:
        for n in ast.walk(node):
            if isinstance(n, ast.Call):
                try:
                    if self._callee(n) is not None:
                        return True
                except TackError:  # not a callable name: its own parse reports it
                    continue
        return False

    def lazy(self, node) -> Expr:
        """An operand that may not be evaluated (no device function may be inlined there)."""
        self.lazy_depth += 1
        try:
            return self.expr(node)
        finally:
            self.lazy_depth -= 1

    def expr_List(self, node):  # [a, b, c] (a vector), [[a, b], [c, d]] (a matrix)
        if not node.elts:
            raise self.unsupported(node, "empty list", "a vector has 1 to 4 components")
        return Expr(Op.VECTOR, None, tuple(self.ordered(node.elts)), None,
                    self.src.loc(node))

    def expr_Tuple(self, node):  # (a, b) outside a tuple assignment: rejected
        raise self.unsupported(node, "tuple value", "tuples are allowed only in tuple assignment")

    # -- subscripts -----------------------------------------------------------------------------
    def expr_Subscript(self, node):  # a[i], a[i, j], a.shape[k], v[k], m[i, j]
        v = node.value
        if isinstance(v, ast.Attribute) and v.attr == "shape":
            return self._shape(v.value, node.slice, node)
        table, idx = self.table_subscript(node)
        if table is not None:  # T[i], T[i, j], T[i][j] of a constant table
            return Expr(Op.TABLE, None, tuple(self.ordered(idx)), table, self.src.loc(node))
        if self.array_name(v) is None:  # a vector/matrix value: v[k], m[i, j], vf[i][c]
            sl = node.slice
            elts = sl.elts if isinstance(sl, ast.Tuple) else [sl]
            return Expr(Op.COMPONENT, None, tuple(self.ordered([v] + list(elts))),
                        None, self.src.loc(node))
        arr, idx = self._subscript(node)
        return Expr(Op.LOAD, None, idx, arr, self.src.loc(node))

    def _shape(self, arr_node, k_node, node) -> Expr:
        arr = self.array_name(arr_node)
        if arr is None:
            raise self.unsupported(node, "shape of something that is not an array parameter")
        if not (isinstance(k_node, ast.Constant) and type(k_node.value) is int):
            raise self.unsupported(k_node, "shape index that is not an integer literal",
                                   "write a.shape[0], a.shape[1], ...")
        return Expr(Op.SHAPE, None, (), (arr, k_node.value), self.src.loc(node))

    def _subscript(self, node: ast.Subscript) -> tuple[str, tuple[Expr, ...]]:
        arr = self.array_name(node.value)
        if arr is None:
            raise self.unsupported(node.value, "indexing something that is not an array parameter")
        sl = node.slice
        if isinstance(sl, ast.Slice) or (isinstance(sl, ast.Tuple)
                                         and any(isinstance(e, ast.Slice) for e in sl.elts)):
            raise self.unsupported(sl, "slice", "kernels index one element at a time")
        if isinstance(sl, ast.Constant) and sl.value is None:  # a[None]: a 0-d array's element
            return arr, ()
        elts = sl.elts if isinstance(sl, ast.Tuple) else [sl]
        return arr, tuple(self.ordered(elts))
