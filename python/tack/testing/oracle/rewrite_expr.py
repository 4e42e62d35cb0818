"""Source rewriting, expressions: names a kernel may use and `_ExprRewriter`."""
from __future__ import annotations

import ast
import builtins
import math
import operator

import numpy as np

from ...constants import Constant
from .errors import Rejected
from .floats import MATH1, MATH2
from .scalars import BY_NAME
from .values import _PYCMP

# -- source rewriting ------------------------------------------------------------------------------
_BINOPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "truediv",
           ast.FloorDiv: "floordiv", ast.Mod: "mod", ast.Pow: "pow", ast.BitAnd: "and",
           ast.BitOr: "or", ast.BitXor: "xor", ast.LShift: "shl", ast.RShift: "shr"}
_CMPOPS = {ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge", ast.Eq: "eq",
           ast.NotEq: "ne"}
_R, _P = "_tack_R_", "_tack_P_"


def _known_functions() -> dict[int, str]:
    known = {}
    for n in sorted(MATH1 | MATH2 | {"pow"}):
        if hasattr(math, n):
            known[id(getattr(math, n))] = n
    known[id(math.fabs)] = "abs"
    for n in ("abs", "min", "max", "pow", "int", "float", "len"):
        known[id(getattr(builtins, n))] = n
    for npn, n in (("sqrt", "sqrt"), ("exp", "exp"), ("exp2", "exp2"), ("log", "log"),
                   ("log2", "log2"), ("log10", "log10"), ("sin", "sin"), ("cos", "cos"),
                   ("tan", "tan"), ("arcsin", "asin"), ("arccos", "acos"), ("arctan", "atan"),
                   ("sinh", "sinh"), ("cosh", "cosh"), ("tanh", "tanh"), ("floor", "floor"),
                   ("ceil", "ceil"), ("trunc", "trunc"), ("arctan2", "atan2"), ("abs", "abs"),
                   ("fabs", "abs"), ("copysign", "copysign"), ("minimum", "min"),
                   ("maximum", "max"), ("power", "pow")):
        known[id(getattr(np, npn))] = n
    return known


_KNOWN = _known_functions()
_BUILTIN_NAMES = MATH1 | MATH2 | {"abs", "min", "max", "pow", "int", "float", "len"}
_MATH_CONSTS = (math.pi, math.e, math.tau, math.inf)


class _Local:
    pass


class _Unbound:
    def __init__(self, name):
        self.name = name


def _tack_kinds(obj):
    """('dtype', name) for tack.f32-like objects, ('const', obj) for tack.constant values."""
    if type(obj).__name__ == "DType" and getattr(obj, "name", None) in BY_NAME:
        return "dtype", obj.name
    if isinstance(obj, Constant):
        return "const", obj
    return None, None


def _lambda(body: ast.expr) -> ast.Lambda:
    return ast.Lambda(ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[],
                                    kw_defaults=[], kwarg=None, defaults=[]), body)


def _c(v) -> ast.Constant:
    return ast.Constant(v)


class _ExprRewriter:
    """`_Rewriter`'s expression half: name resolution, literal rules, expressions."""

    def __init__(self, fdef, fn_globals, closure):
        self.params = [a.arg for a in fdef.args.args]
        self.locals = {n.id for n in ast.walk(fdef)
                       if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        self.globals, self.closure = fn_globals, closure
        self.ids: dict[int, int] = {}
        self.typing = False

    # -- helpers ----------------------------------------------------------------------------------
    def num(self, node) -> int:
        return self.ids.setdefault(id(node), len(self.ids))

    def call(self, meth: str, *args) -> ast.Call:
        return ast.Call(ast.Attribute(ast.Name(_R, ast.Load()), meth, ast.Load()), list(args), [])

    def rejected(self, node, what: str):
        return Rejected(f"{what} at line {getattr(node, 'lineno', '?')}")

    def resolve(self, node):
        if isinstance(node, ast.Name):
            if node.id in self.params or node.id in self.locals:
                return _Local()
            for scope in (self.closure, self.globals):
                if node.id in scope:
                    return scope[node.id]
            if node.id in _BUILTIN_NAMES:
                return _Unbound(node.id)
            if hasattr(builtins, node.id):
                return getattr(builtins, node.id)
            raise self.rejected(node, f"name '{node.id}' is not defined in the kernel")
        if isinstance(node, ast.Attribute):
            base = self.resolve(node.value)
            if isinstance(base, (_Local, _Unbound)):
                raise self.rejected(node, f"attribute .{node.attr}")
            try:
                return getattr(base, node.attr)
            except AttributeError:
                raise self.rejected(node, f"unknown attribute .{node.attr}") from None
        raise self.rejected(node, f"unsupported {type(node).__name__}")

    def _is_unroll(self, func) -> bool:
        try:
            return getattr(self.resolve(func), "__tack_intrinsic__", None) == "unroll"
        except Rejected:
            return False

    def literal_float_expr(self, node) -> bool:
        """Float literals combined by + - * / // % **, unary minus, abs/min/max/pow and the math
        builtins: a local assigned once to such a value stays weak. (A conditional expression
        choosing between literals does not count: the contract says "float literals", and Tack
        draws the line there too.)"""
        floats = []

        def ok(n) -> bool:
            if isinstance(n, ast.Constant) and type(n.value) in (int, float):
                floats.append(type(n.value) is float)
                return True
            if self.int_folded(n) is not None:  # `(1 << 40) * 0.5`: an integer literal
                floats.append(False)
                return True
            free = isinstance(n, ast.Name) and n.id not in self.locals and n.id not in self.params
            if free or isinstance(n, ast.Attribute):
                try:
                    obj = self.resolve(n)
                except Rejected:
                    return False
                kind, c = _tack_kinds(obj)
                if kind == "const" and c.dtype is None:
                    floats.append(isinstance(c, float))
                    return True
                if type(obj) is float and (obj in _MATH_CONSTS or math.isnan(obj)):
                    floats.append(True)
                    return True
                return False
            if isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.USub, ast.UAdd)):
                return ok(n.operand)
            if isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Add, ast.Sub, ast.Mult,
                                                             ast.Div, ast.FloorDiv, ast.Mod,
                                                             ast.Pow)):
                return ok(n.left) and ok(n.right)
            if isinstance(n, ast.Call) and not n.keywords:  # abs/min/max/pow/math of literals
                try:
                    fn = self.resolve(n.func)
                except Rejected:
                    return False
                name = fn.name if isinstance(fn, _Unbound) else _KNOWN.get(id(fn))
                if name in MATH1 | MATH2 | {"abs", "min", "max", "pow"}:
                    return all(ok(a) for a in n.args)
            return False

        return ok(node) and any(floats)

    def folded(self, node):
        """The value of a (possibly negated) bare numeric literal or of an integer expression of
        literals, else None (Tack folds -lit, and computes literal-only integer expressions
        exactly)."""
        v = self.int_folded(node)
        if v is not None:
            return v
        if isinstance(node, ast.Constant) and type(node.value) in (int, float):
            return node.value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            v = self.folded(node.operand)
            if v is not None:
                return -v if isinstance(node.op, ast.USub) else v
        return None

    def int_folded(self, node) -> int | None:
        """The exact value of an integer expression of literals only (integer literals,
        True/False, untyped integer constants; + - * // % ** << >> & | ^ ~, unary minus,
        comparisons, abs/min/max/pow), as Python computes it: the contract types the result by
        its value like a written literal (docs/language.md, "Literals"). None for anything else,
        and where the value is outside the portable domain (a zero divisor, a negative exponent:
        the runtime rules then report it). A negative shift count or a value too large to compute
        is rejected."""
        if isinstance(node, ast.Constant):
            return int(node.value) if type(node.value) in (int, bool) else None
        if isinstance(node, (ast.Name, ast.Attribute)):
            if isinstance(node, ast.Name) and (node.id in self.locals or node.id in self.params):
                return None
            try:
                obj = self.resolve(node)
            except Rejected:
                return None
            kind, c = _tack_kinds(obj)
            ok = kind == "const" and isinstance(c, int) and c.dtype is None
            return int(c) if ok else None
        if isinstance(node, ast.UnaryOp):
            f = {ast.USub: operator.neg, ast.UAdd: operator.pos,
                 ast.Invert: operator.invert}.get(type(node.op))
            v = self.int_folded(node.operand) if f is not None else None
            return None if v is None else f(v)
        if isinstance(node, ast.BinOp):
            a, b = self.int_folded(node.left), self.int_folded(node.right)
            if a is None or b is None:
                return None
            return self._int_binop(node, type(node.op), a, b)
        if isinstance(node, ast.Compare):
            vals = [self.int_folded(x) for x in [node.left] + node.comparators]
            if any(v is None for v in vals) or any(type(o) not in _CMPOPS for o in node.ops):
                return None
            return int(all(_PYCMP[_CMPOPS[type(o)]](x, y)
                           for o, x, y in zip(node.ops, vals, vals[1:])))
        if isinstance(node, ast.Call) and not node.keywords and node.args:
            vals = [self.int_folded(a) for a in node.args]
            try:
                fn = self.resolve(node.func)
            except Rejected:
                return None
            name = fn.name if isinstance(fn, _Unbound) else _KNOWN.get(id(fn))
            if any(v is None for v in vals) or name not in ("abs", "min", "max", "pow"):
                return None
            if name == "abs" and len(vals) == 1:
                return abs(vals[0])
            if name == "pow" and len(vals) == 2:
                return self._int_binop(node, ast.Pow, *vals)
            if name in ("min", "max") and len(vals) >= 2:
                return min(vals) if name == "min" else max(vals)
        return None

    def _int_binop(self, node, op, a: int, b: int) -> int | None:
        if op in (ast.FloorDiv, ast.Mod):
            return None if b == 0 else (a // b if op is ast.FloorDiv else a % b)
        if op is ast.Pow:
            if b < 0:
                return None
            if abs(a) > 1 and b * abs(a).bit_length() > 4096:
                raise self.rejected(node, "an integer power of literals far outside 64 bits")
            return a ** b
        if op in (ast.LShift, ast.RShift):
            if b < 0:
                raise self.rejected(node, "a negative shift count of literals")
            if op is ast.RShift:
                return a >> min(b, 4096)
            if a and b > 4096:
                raise self.rejected(node, "a shift of literals far outside 64 bits")
            return a << b
        f = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
             ast.BitAnd: operator.and_, ast.BitOr: operator.or_, ast.BitXor: operator.xor}.get(op)
        return None if f is None else f(a, b)

    def is_lit(self, node) -> bool:
        """A bare integer literal (or True/False, or an untyped integer tack.constant).

        A weak float beside one stays weak (NEP 50: two Python scalars stay weak); beside any other
        integer, typed casts of literals included, it is f32 (`i * 0.1` is f32: docs/language.md,
        "Integer and float rules").
        """
        # an untyped constant "behaves exactly like the literal", and so does an integer
        # expression of literals
        return self.int_folded(node) is not None

    # -- expressions ------------------------------------------------------------------------------
    def ex(self, node) -> ast.expr:
        new = self._ex(node)
        return ast.copy_location(new, node)

    def _ex(self, node):
        v = self.folded(node)
        if v is not None:
            return self.call("ilit" if type(v) is int else "flit", _c(v))
        if isinstance(node, ast.Constant):
            if type(node.value) is bool:
                return self.call("ilit", _c(int(node.value)))
            raise self.rejected(node, f"constant {node.value!r}")
        if isinstance(node, ast.UnaryOp):
            meth = {ast.USub: "neg", ast.Invert: "invert", ast.Not: "not_"}.get(type(node.op))
            return self.ex(node.operand) if meth is None else self.call(meth, self.ex(node.operand))
        if isinstance(node, ast.Name) and (node.id in self.params or node.id in self.locals):
            if self.typing and node.id in self.locals:
                return self.call("var", _c(node.id))
            return ast.Name(node.id, ast.Load())
        if isinstance(node, (ast.Name, ast.Attribute)):
            return self.static(node, self.resolve(node))
        if isinstance(node, ast.BinOp):
            op = _BINOPS.get(type(node.op))
            if op is None:
                raise self.rejected(node, f"operator {type(node.op).__name__}")
            return self.call("bin", _c(op), self.ex(node.left), self.ex(node.right),
                             _c(self.is_lit(node.left)), _c(self.is_lit(node.right)))
        if isinstance(node, ast.BoolOp):
            meth = "land" if isinstance(node.op, ast.And) else "lor"
            return self.call(meth, *[_lambda(self.ex(v)) for v in node.values])
        if isinstance(node, ast.Compare):
            return self.compare(node)
        if isinstance(node, ast.IfExp):
            return self.call("ifexp", _c(self.num(node)), self.ex(node.test),
                             _lambda(self.ex(node.body)), _lambda(self.ex(node.orelse)),
                             _c(self.is_lit(node.body)), _c(self.is_lit(node.orelse)))
        if isinstance(node, ast.Subscript):
            return self.subscript(node)
        if isinstance(node, ast.Call):
            return self.builtin_call(node)
        raise self.rejected(node, f"unsupported {type(node).__name__}")

    def static(self, node, obj):
        kind, c = _tack_kinds(obj)
        if kind == "const":
            if c.dtype is not None:
                return self.call("tconst", _c(c.dtype.name), _c(c.value))
            return self.call("ilit" if isinstance(c, int) else "flit", _c(c.value))
        if type(obj) is float and (obj in _MATH_CONSTS or math.isnan(obj)) and (
                isinstance(node, ast.Attribute) or math.isnan(obj)):
            return self.call("flit", _c(obj))
        raise self.rejected(node, f"free name '{ast.unparse(node)}' (kernels capture no values)")

    def compare(self, node):
        ops = []
        for op in node.ops:
            if type(op) not in _CMPOPS:
                raise self.rejected(node, f"comparison {type(op).__name__}")
            ops.append(_CMPOPS[type(op)])
        operands = [node.left] + node.comparators
        lits = [self.is_lit(x) for x in operands]
        if len(ops) == 1:
            return self.call("cmp", _c(ops[0]), self.ex(node.left), self.ex(node.comparators[0]),
                             _c(lits[0]), _c(lits[1]))
        return self.call("chain", ast.Tuple([_c(o) for o in ops], ast.Load()),
                         ast.Tuple([_lambda(self.ex(x)) for x in operands], ast.Load()),
                         ast.Tuple([_c(x) for x in lits], ast.Load()))

    def array_name(self, node) -> ast.Name:
        if not (isinstance(node, ast.Name) and node.id in self.params
                and node.id not in self.locals):
            raise self.rejected(node, "indexing something that is not an array parameter")
        return ast.Name(node.id, ast.Load())

    def indices(self, node: ast.Subscript) -> ast.Tuple:
        sl = node.slice
        if isinstance(sl, ast.Constant) and sl.value is None:  # a[None]: a 0-d array's element
            return ast.Tuple([], ast.Load())
        elts = sl.elts if isinstance(sl, ast.Tuple) else [sl]
        if any(isinstance(e, ast.Slice) for e in elts):
            raise self.rejected(node, "slice")
        return ast.Tuple([self.ex(e) for e in elts], ast.Load())

    def subscript(self, node: ast.Subscript):
        v = node.value
        if isinstance(v, ast.Attribute) and v.attr == "shape":
            k = node.slice
            if not (isinstance(k, ast.Constant) and type(k.value) is int):
                raise self.rejected(node, "shape index that is not an integer literal")
            return self.call("shape", self.array_name(v.value), _c(k.value))
        return self.call("load", self.array_name(v), self.indices(node))

    def builtin_call(self, node: ast.Call):
        if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            raise self.rejected(node, "keyword or starred arguments")
        obj = self.resolve(node.func)
        kind, dname = _tack_kinds(obj)
        args = node.args
        if kind == "dtype":
            if len(args) != 1:
                raise self.rejected(node, "a cast takes one argument")
            return self.call("cast", _c(dname), self.ex(args[0]))
        name = obj.name if isinstance(obj, _Unbound) else _KNOWN.get(id(obj))
        if name is None:
            raise self.rejected(node, f"call to '{ast.unparse(node.func)}'")
        n = len(args)
        arity = {"min": (2, 99), "max": (2, 99), "pow": (2, 2)}.get(
            name, (2, 2) if name in MATH2 else (1, 1))
        if not arity[0] <= n <= arity[1]:
            raise self.rejected(node, f"{name}() with {n} arguments")
        if name in ("int", "float"):
            return self.call("cast", _c("i32" if name == "int" else "f32"), self.ex(args[0]))
        if name == "len":
            return self.call("shape", self.array_name(args[0]), _c(0))
        if name == "abs":
            return self.call("abs_", self.ex(args[0]))
        if name in ("min", "max"):
            out = self.ex(args[0])
            lit = self.is_lit(args[0])
            for a in args[1:]:
                out = self.call("bin", _c(name), out, self.ex(a), _c(lit), _c(self.is_lit(a)))
                lit = lit and self.is_lit(a)  # min(1, 2, x): min(1, 2) is the literal 1
            return out
        if name == "pow":
            return self.call("bin", _c("pow"), self.ex(args[0]), self.ex(args[1]),
                             _c(self.is_lit(args[0])), _c(self.is_lit(args[1])))
        return self.call("math", _c(name), ast.Tuple([self.ex(a) for a in args], ast.Load()),
                         ast.Tuple([_c(self.is_lit(a)) for a in args], ast.Load()))
