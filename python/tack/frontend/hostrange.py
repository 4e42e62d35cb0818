"""The parallel loop's range, evaluated on the host for every call.

Its bounds may use what the kernel body accepts as an integer: scalar arguments, `a.shape[k]`,
`len(a)` (of parameters and of device-class array attributes, `self.values.shape[0]`), integer
literals, integer `tack.constant`s, integer attributes of device-class objects, locals assigned
from those before the loop, `+ - * //` and unary minus over them, and `tack.i64(...)` of any of
those (the value unchanged; the loop variable becomes at least i64). An expression of literals
only may use any integer operator (`2**20`, `1 << 16`): it is one literal of its exact value,
as in the body (frontend/literals.py). Nothing here is compiled
into the kernel, so one specialization serves every length.
"""
from __future__ import annotations

import ast
import copy
from dataclasses import dataclass

from .. import dtypes as dt
from ..constants import Constant
from ..errors import TackTypeError, TackValueError
from ..ir.ops import Op
from ..passes.names import hidden
from .literals import LiteralError, exact

START, STEP = hidden("start"), hidden("step")  # the hidden parameters of range(a, b[, s])


@dataclass
class HostRange:
    form: str  # 'stop' (range(n)), 'start' (range(a, b)), 'step' (range(a, b, s)) or 'nd'
    literal_step: int | None  # a literal (or folded) step, else None
    evaluate: object  # callable(*kernel_args) -> (start, stop, step), or nd: ((s, e), ...)
    uses: frozenset  # parameter names the bounds read
    source: str
    dims: int = 1
    literals: tuple = ()  # the integer literals of the bounds: the loop variable must hold them
    loc: object = None  # the range call's source position: a bound's error points there
    wide: bool = False  # a bound is written `tack.i64(...)`: the loop variable is at least i64

    def __post_init__(self):
        if self.form == "nd":
            self.hidden = tuple(hidden(f"start{d}") for d in range(self.dims)) + tuple(
                hidden(f"ext{d}") for d in range(1, self.dims))
        else:  # the host-computed scalar parameters the kernel receives, in order
            self.hidden = {"stop": (), "start": (START,), "step": (START, STEP)}[
                self.form][:1 if self.form == "step" and self.literal_step is not None else 2]
        self._nh = len(self.hidden)

    def launch(self, args, kernel_name: str) -> tuple[int, list]:
        """(number of launch indices, values of `hidden`) for one call."""
        try:
            got = self.evaluate(*args)
        except TypeError as exc:  # a bound that is not an integer (a float, NaN, an array)
            raise TackTypeError.at(self.loc, f"Kernel '{kernel_name}': {exc}") from None
        except ArithmeticError as exc:  # `n // m` with m == 0
            raise TackValueError.at(self.loc, f"Kernel '{kernel_name}': the parallel loop's "
                                              f"bounds cannot be computed: {exc}") from None
        if self.form == "stop":  # range(n): the common case, kept cheap
            n = got[1]
            return (max(0, n)), []
        if self.form == "nd":
            exts = [max(0, e - s) for s, e in got]  # empty extents run nothing
            n = 1
            for x in exts:
                n *= x
            return n, [s for s, _ in got] + exts[1:]
        start, stop, step = got
        if step <= 0:
            raise TackValueError(f"Kernel '{kernel_name}': the parallel loop's step must be "
                                 f"positive, got {step}")
        return len(range(start, stop, step)), [start, step][:self._nh]

    def index_span(self, n: int, hidden) -> tuple[int, int]:
        """(least, greatest) value of a loop variable over a launch of n > 0 indices."""
        if self.form == "stop":
            return 0, n - 1
        if self.form == "nd":
            starts, exts = hidden[:self.dims], list(hidden[self.dims:])
            inner = 1
            for e in exts:
                inner *= e
            exts.insert(0, n // inner)
            return min(starts), max(s + e - 1 for s, e in zip(starts, exts))
        start = hidden[0]
        last = start + (n - 1) * (hidden[1] if len(hidden) > 1 else self.literal_step)
        return min(start, last), max(start, last)


_OK_BIN = (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv)
# Operators over literals only, computed exactly on the host like in the body.
_LITERAL_OPS = {ast.Add: Op.ADD, ast.Sub: Op.SUB, ast.Mult: Op.MUL, ast.FloorDiv: Op.FLOORDIV,
                ast.Mod: Op.MOD, ast.Pow: Op.POW, ast.LShift: Op.SHL, ast.RShift: Op.SHR,
                ast.BitAnd: Op.AND_, ast.BitOr: Op.OR_, ast.BitXor: Op.XOR, ast.USub: Op.NEG,
                ast.Invert: Op.INVERT, ast.UAdd: None}


def build_host_range(parser, it: ast.expr, prologue: list[ast.stmt], nd: int = 0) -> HostRange:
    if nd:
        return _build_nd(parser, it, prologue, nd)
    if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range"
            and not it.keywords and 1 <= len(it.args) <= 3):
        raise parser.unsupported(it, "parallel loop over something other than range(...)",
                                 "write `for i in range(n)`, `range(start, stop)` or "
                                 "`range(start, stop, step)`")
    conv, uses, literals, c = _converter(parser, prologue)
    parts = [conv(a) for a in it.args]
    if len(parts) == 1:
        parts = ["0", parts[0], "1"]
    elif len(parts) == 2:
        parts.append("1")
    form = {1: "stop", 2: "start", 3: "step"}[len(it.args)]
    literal_step = None
    if len(it.args) == 3:
        try:  # a step made of literals folds now
            literal_step = int(eval(parts[2], {"__builtins__": {}}))  # no helpers: literals only
        except (NameError, ArithmeticError):  # it reads an argument (a `_i`/`_s`/`_a` helper),
            literal_step = None  # or divides by zero: evaluated, and failing, at each call
        if literal_step is not None and literal_step <= 0:
            raise parser.unsupported(it.args[2], "parallel range with a step that is not positive")
    else:
        literal_step = 1
    src = f"lambda {_lambda_params(parser)}: ({parts[0]}, {parts[1]}, {parts[2]})"
    fn = eval(src, _GLOBALS)  # built from checked AST only
    return HostRange(form, literal_step, fn, frozenset(uses), src, literals=tuple(literals),
                     loc=parser.src.loc(it), wide=c.wide)


def _lambda_params(parser) -> str:
    """The bound function's parameters: one per kernel argument, by position (_Converter.arg)."""
    return ", ".join(f"_p{k}" for k in range(len(parser.params)))


def _is_int(src: str) -> bool:
    """Whether host source `src` is an integer literal (`12`, `-3`): a literal-only bound."""
    return src.lstrip("-").isdigit()


def _as_int(v, name):
    try:
        return v.__index__()
    except AttributeError:
        raise TypeError(f"the parallel loop's bound uses '{name}', which must be an integer, "
                        f"got {type(v).__name__}") from None


def _attr(obj, path, name):
    """An integer attribute of a device-class argument, read at every call."""
    for a in path:
        obj = getattr(obj, a)
    return _as_int(obj, name)


def _shape(v, k, name, path=()):
    for a in path:  # an array attribute of a device-class argument
        v = getattr(v, a)
    try:
        return v.shape[k]
    except (AttributeError, IndexError):
        raise TypeError(f"the parallel loop's bound uses {name}.shape[{k}], but '{name}' is "
                        f"{type(v).__name__} with no dimension {k}") from None


_HELPERS = {"_i": _as_int, "_s": _shape, "_a": _attr}
# The bounds' lambdas run with the helpers, as code of this module (tracebacks, profilers)
_GLOBALS = dict(_HELPERS, __name__=__name__)


def _converter(parser, prologue):
    """A function turning a bound expression into host Python source, the names it reads, the
    literals it holds, and the converter (whose `wide` says whether a bound was cast to i64)."""
    c = _Converter(parser, prologue)
    return c.conv, c.uses, c.literals, c


class _Converter:
    """Bound expression → host Python source; `uses` collects the parameters it reads (they
    type the loop variable), `literals` the integers fixed per parse."""

    def __init__(self, parser, prologue):
        self.parser = parser
        # A prologue local's value, or why it cannot be a bound (its value is not known here).
        self.subst: dict[str, ast.expr | str] = {}
        for s in prologue:
            if isinstance(s, ast.Assign) and len(s.targets) == 1:  # values read earlier ones
                value = self._inline(s.value, parser.params)
                self.subst.update(_bindings(s.targets[0], value))
            elif isinstance(s, ast.If):
                for n in ast.walk(s):
                    if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                        self.subst[n.id] = "is assigned in an `if` before the loop"
        self.uses: set[str] = set()
        self.literals: list[int] = []
        self.wide = False  # a `tack.i64(...)` seen
        self.visits = 0
        self.position = {p: k for k, p in enumerate(parser.params)}

    def _inline(self, value: ast.expr, params) -> ast.expr | str:
        """`value` with the locals it reads replaced by their values so far (`n = n + 1` and
        `a, b = b, a` read the values before the assignment), or why it cannot be a bound."""
        subst = self.subst

        class Inline(ast.NodeTransformer):
            def visit_Name(self, node):
                got = subst.get(node.id) if node.id not in params else None
                if isinstance(got, str):
                    raise _Unknown(f"depends on '{node.id}', which {got}")
                return node if got is None else got

        try:
            return Inline().visit(copy.deepcopy(value))
        except _Unknown as why:
            return str(why)

    def arg(self, param: str) -> str:
        """How the host source names a parameter: by position (`_p0`), so that no parameter
        name can shadow a helper (`_i`, `_s`, `_a`) or another generated name."""
        return f"_p{self.position[param]}"

    def conv(self, node: ast.expr, depth=0) -> str:
        parser = self.parser
        self.visits += 1  # locals reading locals share subtrees: count nodes, not only depth
        if depth > 50 or self.visits > 10_000:
            raise parser.unsupported(node, "Cannot resolve loop range expression (too deep)")
        if isinstance(node, ast.Constant) and type(node.value) is int:
            self.literals.append(node.value)
            return repr(node.value)
        if isinstance(node, ast.Name):
            if node.id in self.subst and node.id not in parser.params:
                if isinstance(self.subst[node.id], str):
                    raise parser.unsupported(
                        node, f"Cannot resolve loop range expression: '{node.id}' "
                              f"{self.subst[node.id]}",
                        "the parallel loop's bounds are evaluated on the host, before the "
                        "kernel runs: pass the bound as an argument")
                return self.conv(self.subst[node.id], depth + 1)
            if node.id in parser.params:
                self.uses.add(node.id)
                return f"_i({self.arg(node.id)}, {node.id!r})"
        if isinstance(node, (ast.BinOp, ast.UnaryOp)) and type(node.op) in _LITERAL_OPS:
            mark = len(self.literals)
            kids = [node.operand] if isinstance(node, ast.UnaryOp) else [node.left, node.right]
            parts = [self.conv(k, depth + 1) for k in kids]
            if all(_is_int(p) for p in parts):
                return self.literal(node, [int(p) for p in parts], mark)
            if isinstance(node, ast.BinOp) and isinstance(node.op, _OK_BIN):
                op = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "//"}[
                    type(node.op)]
                return f"({parts[0]} {op} {parts[1]})"
            if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
                return f"({'-' if isinstance(node.op, ast.USub) else '+'}{parts[0]})"
        if self.is_i64_cast(node):
            self.wide = True
            return self.conv(node.args[0], depth + 1)
        got = self.extent(node) or self.static(node) or self.object_int(node)
        if got is not None:
            return got
        raise parser.unsupported(
            node, "Cannot resolve loop range expression",
            "the parallel loop's bounds may use scalar arguments, a.shape[k], len(a), integer "
            "literals, integer tack.constants, integer attributes of device-class objects, "
            "+ - * // of those and tack.i64(...) of them")

    def literal(self, node, vals: list[int], mark: int) -> str:
        """An operator over literals (`2**20`, `65536 * 65536`): its exact value, which replaces
        its operands among the literals that type the loop variable (frontend/literals.py)."""
        if isinstance(node.op, ast.UAdd):
            v = vals[0]
        else:
            try:
                v = exact(_LITERAL_OPS[type(node.op)], vals)
            except LiteralError as exc:
                raise self.parser.unsupported(node, f"Cannot resolve loop range expression: "
                                                    f"{exc}") from None
            if v is None:
                raise self.parser.unsupported(node, "Cannot resolve loop range expression: "
                                                    "negative integer exponent")
        del self.literals[mark:]
        self.literals.append(v)
        return repr(v)

    def extent(self, node: ast.expr) -> str | None:
        """`a.shape[k]` or `len(a)` (also `len(T)` of a vector or table constant)."""
        if (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute)
                and node.value.attr == "shape" and isinstance(node.slice, ast.Constant)
                and type(node.slice.value) is int):
            return self.shape_of(node.value.value, node.slice.value)
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id == "len" and len(node.args) == 1 and not node.keywords):
            rows = self.parser.constant_length(node.args[0])  # len(T) of a table: fixed
            if rows is not None:
                self.literals.append(rows)
                return repr(rows)
            return self.shape_of(node.args[0], 0)
        return None

    def shape_of(self, arr: ast.expr, k: int) -> str | None:
        """Host source for extent k of an array parameter or device-class array attribute."""
        parser = self.parser
        if isinstance(arr, ast.Name) and arr.id in parser.params:
            self.uses.add(arr.id)
            return f"_s({self.arg(arr.id)}, {k}, {arr.id!r})"
        if isinstance(arr, ast.Attribute):
            ref = parser.objref(arr.value)
            if ref is not None and arr.attr in ref.info.arrays:
                self.uses.add(parser.object_param(ref, arr.attr))
                path = ref.path + (arr.attr,)
                return f"_s({self.arg(path[0])}, {k}, {'.'.join(path)!r}, {path[1:]!r})"
        return None

    def is_i64_cast(self, node: ast.expr) -> bool:
        """`tack.i64(x)` (however tack is named): the bound's value, typed at least i64."""
        return (isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords
                and isinstance(node.func, (ast.Name, ast.Attribute))
                and self.parser._resolve(node.func, quiet=True) is dt.i64)

    def static(self, node: ast.expr) -> str | None:
        """An integer `tack.constant` (a free name or `module.NAME`): fixed per parse."""
        parser = self.parser
        if not isinstance(node, (ast.Name, ast.Attribute)) or parser.objref(node) is not None:
            return None
        if isinstance(node, ast.Name) and (node.id in parser.params or node.id in self.subst):
            return None
        if isinstance(node, ast.Attribute) and parser.objref(node.value) is not None:
            return None
        c = parser._resolve(node, quiet=True)
        if isinstance(c, Constant) and isinstance(c, int):
            self.literals.append(int(c))
            return repr(int(c))
        return None

    def object_int(self, node: ast.expr) -> str | None:
        """`obj.n`, `obj.inner.n`: a class constant (fixed per parse) or an instance integer."""
        if not isinstance(node, ast.Attribute):
            return None
        ref = self.parser.objref(node.value)
        if ref is not None and node.attr in ref.info.constants and isinstance(
                ref.info.constants[node.attr], int):
            return repr(int(ref.info.constants[node.attr]))
        if ref is not None and node.attr in ref.info.ints:
            self.uses.add(self.parser.object_param(ref, node.attr))  # it types the loop
            path = ref.path + (node.attr,)
            return f"_a({self.arg(path[0])}, {path[1:]!r}, {'.'.join(path)!r})"
        return None


class _Unknown(Exception):
    """A prologue value that reads a local whose value the host cannot know."""


def _bindings(target: ast.expr, value: ast.expr | str) -> dict:
    """What one assignment before the loop binds, name by name: `n = e` gives e; `h, w =
    a.shape` gives `a.shape[0]`, `a.shape[1]`; `a, b = e1, e2` gives e1, e2; any other
    unpacking (a vector, a @tack.func's values) gives the reason its names cannot be bounds."""
    if isinstance(target, ast.Name):
        return {target.id: value}
    if not isinstance(target, (ast.Tuple, ast.List)):
        return {}
    names = [t.id for t in target.elts if isinstance(t, ast.Name)]
    if isinstance(value, str):
        return dict.fromkeys(names, value)
    if isinstance(value, ast.Attribute) and value.attr == "shape":
        return {n: ast.copy_location(ast.Subscript(value, ast.Constant(k), ast.Load()), value)
                for k, n in enumerate(names)}
    if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(names):
        return dict(zip(names, value.elts))
    return dict.fromkeys(names, "is unpacked from a value before the loop")


def _build_nd(parser, it: ast.Call, prologue, dims: int) -> HostRange:
    """`tack.ndrange(a, b, ...)`: each argument a size or a (start, end) pair."""
    conv, uses, literals, c = _converter(parser, prologue)
    pairs = []
    for a in it.args:
        if isinstance(a, ast.Tuple):
            if len(a.elts) != 2:
                raise parser.unsupported(a, "ndrange() pair that is not (start, end)")
            pairs.append(f"({conv(a.elts[0])}, {conv(a.elts[1])})")
        else:
            pairs.append(f"(0, {conv(a)})")
    src = f"lambda {_lambda_params(parser)}: ({', '.join(pairs)},)"
    fn = eval(src, _GLOBALS)  # built from checked AST only
    return HostRange("nd", 1, fn, frozenset(uses), src, dims, tuple(literals),
                     parser.src.loc(it), wide=c.wide)
