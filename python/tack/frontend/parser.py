"""Python AST → untyped IR. One `visit_X` per supported node; everything else is rejected here.

Names are resolved statically: parameters and locals stay `Op.VAR`; free names are looked up in the
function's globals and closure (builtins, `math`, `tack` dtypes and constants).
"""
from __future__ import annotations

import ast
import math
from dataclasses import dataclass, field

from .. import dtypes as dt
from ..errors import TackNameError, TackTypeError, UnsupportedSyntaxError, format_at
from ..ir.nodes import (Assign, Barrier, Break, Continue, Expr, ExprStmt, For, If, Loc, Stmt,
                        Store, While)
from ..ir.ops import Op
from .builtins import BUILTINS, MATH_CONSTANTS, builtin_for
from .hostrange import HostRange, build_host_range
from .inline import Func, ObjRef, inline_call
from .source import Source
from .untyped import DeclScratch, ParsedKernel, SetComponent, TupleTemp

_BINOPS = {
    ast.Add: Op.ADD, ast.Sub: Op.SUB, ast.Mult: Op.MUL, ast.Div: Op.TRUEDIV,
    ast.FloorDiv: Op.FLOORDIV, ast.Mod: Op.MOD, ast.Pow: Op.POW, ast.BitAnd: Op.AND_,
    ast.BitOr: Op.OR_, ast.BitXor: Op.XOR, ast.LShift: Op.SHL, ast.RShift: Op.SHR,
    ast.MatMult: Op.MATMUL,
}
_CMPOPS = {ast.Lt: Op.LT, ast.LtE: Op.LE, ast.Gt: Op.GT, ast.GtE: Op.GE, ast.Eq: Op.EQ,
           ast.NotEq: Op.NE}
_UNSET = object()
_SCRATCH = {"local_array": "local", "local_array_like": "local", "shared": "shared",
            "shared_like": "shared"}
_ATOMICS = {"atomic_add": Op.ATOMIC_ADD, "atomic_min": Op.ATOMIC_MIN, "atomic_max": Op.ATOMIC_MAX}


_COMPONENTS = {"x": 0, "y": 1, "z": 2, "w": 3}


class Parser:
    """Builds untyped IR for one kernel body, or for one inlined device function (`root` is then
    the kernel's parser, which holds the state shared by the whole kernel)."""

    def __init__(self, source: Source, fn_globals: dict, closure: dict, kind: str = "Kernel",
                 root: "Parser | None" = None, rename: dict | None = None,
                 inlined_into: str | None = None, objects: dict | None = None):
        self.src = source
        self.globals = fn_globals
        self.closure = closure
        self.kind = kind
        self.name = source.tree.name
        self.params = [a.arg for a in source.tree.args.args]
        self.root = root or self
        self.rename: dict = dict(rename or {})
        self.inlined_into = inlined_into
        self.lazy_depth = 0
        self.ret_names = None  # device functions: the variables their returns assign
        self.done_flag = None
        if root is None:
            self.assigned: set[str] = set()
            self.pre: list[Stmt] = []  # statements an inlined call puts before the current one
            self.stack: list = []  # device functions being inlined (recursion check)
            self.call_locs: list = []  # where each of them was called
            self.extra: dict[str, tuple] = {}  # expanded object attribute -> path
            self.counter = 0
            for pname, info in (objects or {}).items():
                self.rename[pname] = ObjRef((pname,), info)
        else:
            self.assigned = root.assigned
        self.local_names = _assigned_names(source.tree)
        self.scratch_names, self.local_scratch = self._scan_scratch(source.tree)
        self.loop_depth = 0
        self._tmp = 0

    # -- errors ---------------------------------------------------------------------------------
    @property
    def title(self) -> str:
        extra = f" (inlined into kernel '{self.inlined_into}')" if self.inlined_into else ""
        return f"{self.kind} '{self.name}'{extra}"

    def unsupported(self, node: ast.AST, what: str, hint: str | None = None):
        loc = self.src.loc(node)
        msg = f"{self.title}: {what} at line {loc.line}, column {loc.col}"
        return UnsupportedSyntaxError(format_at(loc, msg, hint))

    def name_error(self, node: ast.AST, name: str):
        loc = self.src.loc(node)
        msg = (f"{self.title}: name '{name}' at line {loc.line}, column {loc.col} is not "
               "defined in the kernel")
        hint = ("kernels capture no Python values: pass it as an argument, or declare it with "
                f"tack.constant (e.g. {name} = tack.constant(...)) at module scope")
        return TackNameError(format_at(loc, msg, hint))

    # -- kernel structure -----------------------------------------------------------------------
    def parse_kernel(self) -> ParsedKernel:
        fn = self.src.tree
        self._check_signature(fn)
        stmts = [s for s in fn.body if not _is_docstring(s)]
        loops = [s for s in stmts if isinstance(s, ast.For)]
        if not loops:
            raise self.unsupported(fn, "definition has no parallel loop",
                                   "a kernel's body holds one `for i in range(...)` loop whose "
                                   "iterations run in parallel")
        loop = loops[0]
        for extra in loops[1:]:
            raise self.unsupported(extra, "for loop is outside the parallel loop",
                                   "a kernel has one parallel loop; nest sequential loops inside it")
        k = stmts.index(loop)
        prologue = [self._prologue_stmt(s) for s in stmts[:k]]
        tail = stmts[k + 1:]
        ret = tail.pop() if tail and isinstance(tail[-1], ast.Return) else None
        for s in tail:
            self._check_epilogue(s)
        if loop.orelse:
            raise self.unsupported(loop, "for-else")
        nd = 0
        if isinstance(loop.iter, ast.Call) and self._intrinsic(loop.iter.func) == "unroll":
            raise self.unsupported(loop.iter, "unroll() of the parallel loop",
                                   "tack.unroll applies to sequential loops nested inside the "
                                   "parallel loop; the parallel loop's iterations are spread "
                                   "over threads, not unrolled")
        it, vector = loop.iter, None
        if self.objref(it) is not None:  # `for c in obj`: desugared to range/ndrange
            it, nd, loop_vars, vector = self._object_loop(loop)
        elif isinstance(it, (ast.Name, ast.Attribute)):
            what = ast.unparse(it)
            example = (f"`for i in range({what}.shape[0])`" if what in self.params
                       else "`for i in range(n)`")
            raise self.unsupported(it, f"parallel loop over '{what}', which is not a "
                                       "device-class argument",
                                   f"loop over indices instead: {example}; only an "
                                   "@tack.device_class object whose class declares "
                                   "__tack_iterate__ can be iterated itself")
        elif isinstance(it, ast.Call) and self._intrinsic(it.func) == "ndrange":
            nd = len(loop.iter.args)
            names = loop.target.elts if isinstance(loop.target, ast.Tuple) else [loop.target]
            if not 1 <= nd <= 3 or loop.iter.keywords or len(names) != nd or not all(
                    isinstance(t, ast.Name) for t in names):
                raise self.unsupported(loop.target, "ndrange loop whose targets do not match its "
                                                    "1 to 3 arguments",
                                       "write `for i, j in tack.ndrange(n, m)`")
            loop_vars = tuple(t.id for t in names)
        elif not isinstance(loop.target, ast.Name):
            raise self.unsupported(loop.target, "parallel loop target that is not a single name",
                                   "use `for i in range(n)`")
        else:
            loop_vars = (loop.target.id,)
        host = build_host_range(self, it, stmts[:k], nd)
        var = loop_vars[0]
        self.assigned.update(loop_vars)
        body: list[Stmt] = [s for st in prologue for s in st]
        if vector is not None:  # c = [fastest index, ...]
            body += vector
        body += self.block(loop.body)
        params, paths = self.params, None
        objs = [p for p in self.params if isinstance(self.rename.get(p), ObjRef)]
        if objs:
            params = [p for p in self.params if p not in objs] + list(self.extra)
            pos = {p: i for i, p in enumerate(self.params)}
            paths = [(pos[p], ()) for p in self.params if p not in objs]
            paths += [(pos[path[0]], path[1:]) for path in self.extra.values()]
        pk = ParsedKernel(self.name, params, self.src, self.src.loc(fn), var,
                          self.src.loc(loop), host, body, set(self.assigned), paths,
                          len(self.params), loop_vars)
        if ret is not None:
            self._return_epilogue(pk, ret, [s for st in prologue for s in st])
        return pk

    def _object_loop(self, loop: ast.For):
        """`for c in obj` over a device-class object whose class declares `__tack_iterate__`
        (one to three integer attribute names, fastest first): (the equivalent `range(obj.n)`
        or `tack.ndrange(obj.<slowest>, ..., obj.<fastest>)` AST, ndrange dims or 0, the loop
        variables, the statements that bind `c`). With several names `c` is an integer vector
        whose component k is the index over the k-th name, so `c[0]` varies fastest."""
        it = loop.iter
        ref = self.objref(it)
        cls, obj = ref.info.cls, ast.unparse(it)
        loc = self.src.loc(it)
        at = f"at line {loc.line}, column {loc.col}"
        names = declared = getattr(cls, "__tack_iterate__", None)
        if names is None:
            raise TackTypeError(format_at(
                loc, f"{self.title}: a {cls.__name__} cannot be iterated in a kernel: its class "
                     f"declares no __tack_iterate__, so `for ... in {obj}` {at} has no index "
                     "space",
                "declare the sizes to iterate over in the class body, fastest first, e.g. "
                "__tack_iterate__ = ('nx', 'ny'), or loop over range(...) explicitly"))
        if isinstance(names, str):
            names = (names,)

        def bad(why: str):
            return TackTypeError(format_at(
                loc, f"{self.title}: `for ... in {obj}` {at}: {cls.__name__}.__tack_iterate__ "
                     f"= {declared!r} {why}",
                "__tack_iterate__ names one to three integer attributes (sizes), fastest "
                "first: __tack_iterate__ = ('n',) or ('nx', 'ny') or ('nx', 'ny', 'nz')"))

        if not isinstance(names, (tuple, list)) or not 1 <= len(names) <= 3:
            raise bad("must be a tuple of one to three attribute names")
        for n in names:
            if not isinstance(n, str):
                raise bad(f"holds {n!r}, which is not an attribute name")
            v = ref.info.constants.get(n)
            if not (n in ref.info.ints or isinstance(v, int)):
                kind = ("a float" if n in ref.info.constants or n in ref.info.scalars else
                        "an array" if n in ref.info.arrays else
                        "not an integer attribute of the object")
                raise bad(f"names '{n}', which is {kind}; each name must be an integer size")
        target = loop.target
        if not isinstance(target, ast.Name):
            raise self.unsupported(target, f"loop over device-class object '{obj}' whose "
                                           "target is not a single name",
                                   f"write `for c in {obj}`: with several sizes c is a vector "
                                   "of indices, c[0] the fastest")

        def size(n):
            return ast.copy_location(ast.Attribute(it, n, ast.Load()), it)

        if len(names) == 1:
            call = ast.Call(ast.Name("range", ast.Load()), [size(names[0])], [])
            return ast.copy_location(call, it), 0, (target.id,), None
        idx = [self.fresh(f"{target.id}_{k}_") for k in range(len(names))]  # fastest first
        nd_fn = ast.Attribute(ast.Name("tack", ast.Load()), "ndrange", ast.Load())
        call = ast.copy_location(ast.Call(nd_fn, [size(n) for n in reversed(names)], []), it)
        loop_loc = self.src.loc(loop)
        vec = Expr(Op.VECTOR, None, tuple(Expr(Op.VAR, None, (), v, loop_loc) for v in idx),
                   None, loop_loc)
        name = self.local_name(target)
        self.assigned.add(name)
        return call, len(names), tuple(reversed(idx)), [Assign(loop_loc, name, vec)]

    def _return_epilogue(self, pk: ParsedKernel, ret: ast.Return, prologue: list) -> None:
        """`return expr` after the parallel loop, typed by the kernel's return annotation."""
        fn = self.src.tree
        if ret.value is None:
            raise self.unsupported(ret, "return without a value in a kernel")
        if fn.returns is None:
            raise self.unsupported(ret, "kernel return value without a return annotation",
                                   "annotate the kernel: def k(...) -> tack.f32:")
        t = self._resolve(fn.returns)
        if isinstance(t, _BuiltinName):
            t = {"float": float, "int": int}.get(t.name, t)
        t = {float: dt.f32, int: dt.i32}.get(t, t)
        if not isinstance(t, dt.DType):
            raise self.unsupported(fn.returns, "return annotation that is not a dtype, float or "
                                               "int")
        loc = self.src.loc(ret)
        value = Expr(Op.CAST, None, (self.expr(ret.value),), t, loc)
        zero = Expr(Op.CONST, None, (), 0, loc)
        body = list(prologue) + [Store(loc, "__ret", (zero,), value, "return")]
        from .hostrange import HostRange

        one = HostRange("stop", 1, lambda *a: (0, 1, 1), frozenset(), "", 1)
        pk.epilogue = ParsedKernel(f"{self.name}_return", pk.params + ["__ret"], self.src,
                                   pk.loc, "__epilogue", loc, one, body,
                                   set(self.assigned) | {"__epilogue"}, None, 0,
                                   ("__epilogue",))
        pk.ret_dtype = t

    def _check_signature(self, fn: ast.FunctionDef) -> None:
        a = fn.args
        if isinstance(fn, ast.AsyncFunctionDef):
            raise self.unsupported(fn, "async def")
        for bad, what in ((a.vararg, "*args"), (a.kwarg, "**kwargs")):
            if bad is not None:
                raise self.unsupported(bad, f"{what} parameter")
        if a.kwonlyargs or a.posonlyargs or a.defaults:
            raise self.unsupported(fn, "keyword-only, positional-only or default parameters")

    def _scan_scratch(self, tree) -> tuple[set[str], set[str]]:
        """Names bound to scratch arrays anywhere in the function (they index like arrays), and
        those of them that are per-iteration `local` arrays."""
        out, local = set(), set()
        for n in ast.walk(tree):
            if (isinstance(n, ast.Assign) and len(n.targets) == 1
                    and isinstance(n.targets[0], ast.Name) and isinstance(n.value, ast.Call)):
                fn = self._intrinsic(n.value.func)
                if fn in _SCRATCH:
                    out.add(n.targets[0].id)
                    if _SCRATCH[fn] == "local":
                        local.add(n.targets[0].id)
        return out, local

    def _intrinsic(self, func: ast.expr) -> str | None:
        try:
            obj = self._resolve(func)
        except Exception:
            return None
        return getattr(obj, "__tack_intrinsic__", None)

    def _prologue_stmt(self, s: ast.stmt) -> list[Stmt]:
        # Before the parallel loop: only local assignments (and array loads within them).
        if isinstance(s, ast.Assign) and all(isinstance(t, ast.Name) for t in s.targets):
            for n in ast.walk(s.value):
                if isinstance(n, ast.Call) and self._intrinsic(n.func) in _ATOMICS:
                    raise self.unsupported(n, f"{self._intrinsic(n.func)}() is outside the "
                                              "parallel loop",
                                           "statements before the parallel loop run an undefined "
                                           "number of times; move it into the loop")
            got = self.block([s])
            for st in got:
                if isinstance(st, (Store, ExprStmt, Barrier)):
                    what = "store" if isinstance(st, Store) else (
                        "barrier()" if isinstance(st, Barrier) else "atomic update")
                    raise self.unsupported(s, f"{what} (at {st.loc}, through a device function) "
                                              "is outside the parallel loop",
                                           "statements before the parallel loop run an undefined "
                                           "number of times; move it into the loop")
            return got
        if isinstance(s, ast.Pass):
            return []
        what = "store" if isinstance(s, (ast.Assign, ast.AugAssign)) else _stmt_name(s)
        raise self.unsupported(s, f"{what} is outside the parallel loop",
                               "statements before the parallel loop run an undefined number of "
                               "times, so only local assignments are allowed there")

    def _check_epilogue(self, s: ast.stmt) -> None:
        if isinstance(s, ast.Pass) or _is_docstring(s):
            return
        raise self.unsupported(s, f"{_stmt_name(s)} is outside the parallel loop",
                               "put the work inside the parallel loop")

    # -- statements -----------------------------------------------------------------------------
    def block(self, stmts: list[ast.stmt]) -> list[Stmt]:
        out: list[Stmt] = []
        root = self.root
        for k, s in enumerate(stmts):
            saved, root.pre = root.pre, []
            try:
                got = self.visit(s)
                out += root.pre + got
            finally:
                root.pre = saved
            if self.ret_names is not None:  # a device function: code after a return is guarded
                if isinstance(s, ast.Return):
                    break
                if self.done_flag is not None and _has_return(s):
                    rest = self.block(stmts[k + 1:])
                    if rest:
                        loc = self.src.loc(stmts[k + 1])
                        done = Expr(Op.VAR, None, (), self.done_flag, loc)
                        out.append(If(loc, Expr(Op.NOT, None, (done,), None, loc), rest, []))
                    break
        return out

    def fresh(self, prefix: str) -> str:
        """A new local name, unique in the kernel."""
        root = self.root
        root.counter += 1
        name = f"_{prefix}{root.counter}"
        root.assigned.add(name)
        return name

    def visit(self, node: ast.stmt) -> list[Stmt]:
        method = getattr(self, "visit_" + type(node).__name__, None)
        if method is None:
            raise self.unsupported(node, f"unsupported {type(node).__name__}",
                                   "see docs/language.md for the statements kernels accept")
        return method(node)

    def visit_Pass(self, node):  # pass
        return []

    def visit_Expr(self, node):  # tack.atomic_add(a, i, v) | tack.barrier() | "docstring"
        if _is_docstring(node):
            return []
        if isinstance(node.value, ast.Call):
            name = self._intrinsic(node.value.func)
            if name == "barrier":
                if node.value.args or node.value.keywords:
                    raise self.unsupported(node, "barrier() takes no arguments")
                return [Barrier(self.src.loc(node))]
            if name in _ATOMICS:
                return [ExprStmt(self.src.loc(node), self.expr(node.value))]
            if self._is_print(node.value.func):
                return [ExprStmt(self.src.loc(node), self._print(node.value))]
            target = self._callee(node.value)
            if target is not None:
                inline_call(self, target[0], node.value.args, node.value, target[1])
                return []
        raise self.unsupported(node, "expression statement with no effect",
                               "assign its value or remove it")

    def visit_Assign(self, node):  # x = e | a[i, j] = e | x, y = e1, e2
        if len(node.targets) != 1:
            raise self.unsupported(node, "chained assignment", "write one assignment per target")
        return self._assign(node.targets[0], node.value, node)

    def _assign(self, target, value_node, node) -> list[Stmt]:
        loc = self.src.loc(node)
        if isinstance(target, ast.Tuple) and isinstance(value_node, ast.Call):
            callee = self._callee(value_node)
            if callee is not None:
                vals = inline_call(self, callee[0], value_node.args, value_node, callee[1])
                if len(vals) != len(target.elts):
                    raise self.unsupported(node, f"unpacking {len(vals)} returned value(s) into "
                                                 f"{len(target.elts)} targets")
                out = []
                for tgt, v in zip(target.elts, vals):
                    out += self._store_to(tgt, v, node)
                return out
        if isinstance(target, ast.Tuple):
            if not isinstance(value_node, ast.Tuple) or len(value_node.elts) != len(target.elts):
                raise self.unsupported(node, "tuple assignment without a matching tuple of values")
            # The whole right side first, then targets left to right. When no value reads a
            # target (no swap), assigning in order is the same and needs no temporaries.
            names = {t.id for t in target.elts if isinstance(t, ast.Name)}
            reads = {n.id for v in value_node.elts for n in ast.walk(v) if isinstance(n, ast.Name)}
            if len(names) == len(target.elts) and not names & reads:
                out = []
                for tgt, v in zip(target.elts, value_node.elts):
                    out += self._store_to(tgt, self.expr(v), node)
                return out
            temps, out = [], []
            for v in value_node.elts:
                temps.append(TupleTemp(loc, self.fresh("t"), self.expr(v)))
            out += temps
            for tgt, temp in zip(target.elts, temps):
                stores = self._store_to(tgt, Expr(Op.VAR, None, (), temp.name, loc), node)
                temp.target = stores[0]
                out += stores
            return out
        if isinstance(value_node, ast.Call) and self._intrinsic(value_node.func) in _SCRATCH:
            return self._scratch_decl(target, value_node, node)
        return self._store_to(target, self.expr(value_node), node)

    def _scratch_decl(self, target, call: ast.Call, node) -> list[Stmt]:
        name = self._intrinsic(call.func)
        if not isinstance(target, ast.Name):
            raise self.unsupported(node, f"{name}() assigned to something that is not a name")
        if call.keywords or len(call.args) != 2:
            raise self.unsupported(call, f"{name}() takes two positional arguments",
                                   f"write {name}({'array' if 'like' in name else 'tack.f32'}, size)")
        first = call.args[0]
        if name.endswith("_like"):
            dtype = self.array_name(first)
            if dtype is None:
                raise self.unsupported(first, f"{name}() needs an array parameter first")
        else:
            dtype = self._resolve(first)
            if not isinstance(dtype, dt.DType):
                raise self.unsupported(first, f"{name}() needs a dtype such as tack.f32 first")
        local = self.local_name(target)
        self.root.scratch_names.add(local)
        if _SCRATCH[name] == "local":
            self.root.local_scratch.add(local)
        return [DeclScratch(self.src.loc(node), local, _SCRATCH[name], dtype,
                            self.expr(call.args[1]), name)]

    def _store_to(self, target, value: Expr, node) -> list[Stmt]:
        loc = self.src.loc(node)
        if isinstance(target, ast.Name):
            name = self.local_name(target)
            self.assigned.add(name)
            return [Assign(loc, name, value)]
        if isinstance(target, ast.Subscript) and self.array_name(target.value) is not None:
            arr, idx = self._subscript(target)
            return [Store(self.src.loc(target), arr, idx, value, self.src.loc(target).text())]
        comp = self._component_target(target)
        if comp is not None:
            container, index = comp
            return [SetComponent(self.src.loc(target), container, index, value)]
        raise self.unsupported(target, f"assignment to {type(target).__name__}")

    def _component_target(self, target):
        """(container, index) for `v.x`, `v[k]`, `vf[i][c]`, `m[i, j]` targets, else None."""
        if isinstance(target, ast.Attribute) and target.attr in _COMPONENTS:
            if self.objref(target.value) is None and self._resolve(target.value) is _UNSET:
                loc = self.src.loc(target)
                k = Expr(Op.CONST, None, (), _COMPONENTS[target.attr], loc)
                return self.expr(target.value), (k,)
        if isinstance(target, ast.Subscript) and self.array_name(target.value) is None:
            sl = target.slice
            elts = sl.elts if isinstance(sl, ast.Tuple) else [sl]
            return self.expr(target.value), tuple(self.expr(e) for e in elts)
        return None

    def visit_AugAssign(self, node):  # x += e | a[i] += e
        op = _BINOPS.get(type(node.op))
        if op is None:
            raise self.unsupported(node, f"operator {type(node.op).__name__}")
        loc = self.src.loc(node)
        tgt = node.target
        if isinstance(tgt, ast.Name):
            name = self.local_name(tgt)
            old = Expr(Op.VAR, None, (), name, self.src.loc(tgt))
            self.assigned.add(name)
            return [Assign(loc, name, Expr(op, None, (old, self.expr(node.value)), None, loc))]
        if isinstance(tgt, ast.Subscript) and self.array_name(tgt.value) is not None:
            # The index is evaluated once, the old value read before the right side.
            arr, idx = self._subscript(tgt)
            pre, fixed = [], []
            for e in idx:
                if e.op in (Op.CONST, Op.VAR):
                    fixed.append(e)
                else:
                    t = self.fresh("t")
                    pre.append(Assign(e.loc, t, e))
                    fixed.append(Expr(Op.VAR, None, (), t, e.loc))
            tloc = self.src.loc(tgt)
            old = Expr(Op.LOAD, None, tuple(fixed), arr, tloc)
            new = Expr(op, None, (old, self.expr(node.value)), None, loc)
            return pre + [Store(tloc, arr, tuple(fixed), new, tloc.text())]
        comp = self._component_target(tgt)
        if comp is not None:
            container, index = comp
            tloc = self.src.loc(tgt)
            old = Expr(Op.COMPONENT, None, (container,) + index, None, tloc)
            new = Expr(op, None, (old, self.expr(node.value)), None, loc)
            return [SetComponent(tloc, container, index, new)]
        raise self.unsupported(tgt, f"augmented assignment to {type(tgt).__name__}")

    def visit_If(self, node):  # if c: ... elif c2: ... else: ...
        return [If(self.src.loc(node), self.expr(node.test), self.block(node.body),
                   self.block(node.orelse))]

    def visit_While(self, node):  # while c: ...
        if node.orelse:
            raise self.unsupported(node, "while-else")
        root = self.root
        saved, root.pre = root.pre, []
        try:
            cond = self.expr(node.test)
            cpre = root.pre
        finally:
            root.pre = saved
        self.loop_depth += 1
        body = self.block(node.body)
        self.loop_depth -= 1
        loc = self.src.loc(node)
        if cpre:  # a device function in the condition runs before every test
            stop = If(loc, Expr(Op.NOT, None, (cond,), None, loc), [Break(loc)], [])
            return [While(loc, Expr(Op.CONST, dt.i32, (), 1, loc), cpre + [stop] + body)]
        return [While(loc, cond, body)]

    def visit_For(self, node):  # for v in range(...) | tack.unroll(range(...)[, factor])
        if node.orelse:
            raise self.unsupported(node, "for-else")
        if not isinstance(node.target, ast.Name):
            raise self.unsupported(node.target, "loop target that is not a single name")
        it, unroll = node.iter, None
        if isinstance(it, ast.Call) and self._intrinsic(it.func) == "unroll":
            it, unroll = self._unroll(it)
        if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range"
                and not it.keywords and 1 <= len(it.args) <= 3):
            raise self.unsupported(it, "loop over something other than range(...)",
                                   "loops inside a kernel iterate over range(stop), "
                                   "range(start, stop) or range(start, stop, step)")
        args = [self.expr(a) for a in it.args]
        loc = self.src.loc(node)
        if len(args) == 1:
            start, stop, step = Expr(Op.CONST, None, (), 0, loc), args[0], None
        else:
            start, stop, step = args[0], args[1], (args[2] if len(args) == 3 else None)
        if step is not None and step.op is Op.CONST and step.arg == 0:
            raise self.unsupported(it.args[2], "range() step of zero")
        var = self.local_name(node.target)
        self.assigned.add(var)
        self.loop_depth += 1
        body = self.block(node.body)
        self.loop_depth -= 1
        return [For(loc, var, start, stop, step, body, unroll=unroll)]

    def _unroll(self, call: ast.Call) -> tuple[ast.expr, int | str]:
        """`tack.unroll(range(...), factor)`: the range call and the IR's hint (an int >= 1, or
        "full" without a factor). The factor becomes loop metadata, so it must be known now."""
        kw = {k.arg: k.value for k in call.keywords}
        args = list(call.args) + ([kw.pop("factor")] if "factor" in kw else [])
        usage = ("write `for j in tack.unroll(range(n), 8)` (unroll by 8) or "
                 "`tack.unroll(range(4))` (unroll fully)")
        if kw or not 1 <= len(args) <= 2:
            raise self.unsupported(call, "unroll() takes a range and an optional factor", usage)
        rng = args[0]
        if not (isinstance(rng, ast.Call) and isinstance(rng.func, ast.Name)
                and rng.func.id == "range"):
            raise self.unsupported(rng, "unroll() of something other than range(...)", usage)
        if len(args) == 1:
            return rng, "full"
        k = self.expr(args[1])
        if k.op is not Op.CONST or type(k.arg) is not int:
            raise self.unsupported(args[1], "unroll() factor that is not a compile-time integer",
                                   "the factor is fixed when the kernel is compiled: an integer "
                                   "literal or a tack.constant")
        if not 1 <= k.arg <= 2**31 - 1:  # LLVM's unroll count is an i32
            raise self.unsupported(args[1], f"unroll() factor {k.arg}",
                                   "the factor is an integer >= 1 (1 means do not unroll)")
        return rng, k.arg

    def visit_Break(self, node):  # break
        if self.loop_depth == 0:
            raise self.unsupported(node, "break out of the parallel loop",
                                   "iterations have no order, so no prefix of them can be kept")
        return [Break(self.src.loc(node))]

    def visit_Continue(self, node):  # continue (in the parallel loop: ends this iteration)
        return [Continue(self.src.loc(node))]

    def visit_Return(self, node):  # return e | return a, b (device functions only)
        if self.ret_names is None:
            raise self.unsupported(node, "return in a kernel", "write results into an output array")
        if self.loop_depth:
            raise self.unsupported(node, "return inside a loop in a device function",
                                   "assign the result to a local, break, and return after the loop")
        loc = self.src.loc(node)
        values = [] if node.value is None else (
            node.value.elts if isinstance(node.value, ast.Tuple) else [node.value])
        out = [Assign(loc, r, self.expr(v)) for r, v in zip(self.ret_names, values)]
        if self.done_flag is not None:
            out.append(Assign(loc, self.done_flag, Expr(Op.CONST, dt.i32, (), 1, loc)))
        return out

    # -- expressions ----------------------------------------------------------------------------
    def expr(self, node: ast.expr) -> Expr:
        method = getattr(self, "expr_" + type(node).__name__, None)
        if method is None:
            raise self.unsupported(node, f"unsupported {type(node).__name__}",
                                   f"`ast.{type(node).__name__}` is not supported in tack kernels")
        return method(node)

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

    def local_name(self, node: ast.Name) -> str:
        """The IR name a local or parameter of this function is stored under."""
        ref = self.rename.get(node.id, node.id)
        if isinstance(ref, ObjRef):
            raise self.unsupported(node, f"assignment to device-class object '{node.id}'")
        return ref

    def expr_Name(self, node):  # x
        if node.id in self.rename:
            ref = self.rename[node.id]
            if isinstance(ref, ObjRef):
                raise self.unsupported(node, f"device-class object '{node.id}' used as a value",
                                       "use its attributes, or pass it to a @tack.func")
            return Expr(Op.VAR, None, (), ref, self.src.loc(node))
        if node.id in self.params or node.id in self.assigned or self._is_local(node.id):
            return Expr(Op.VAR, None, (), node.id, self.src.loc(node))
        return self._static(node, self._lookup(node))

    def objref(self, node) -> ObjRef | None:
        """The device-class object a name or attribute chain denotes, if any."""
        if isinstance(node, ast.Name):
            ref = self.rename.get(node.id)
            return ref if isinstance(ref, ObjRef) else None
        if isinstance(node, ast.Attribute):
            base = self.objref(node.value)
            if base is not None and node.attr in base.info.objects:
                return ObjRef(base.path + (node.attr,), base.info.objects[node.attr])
        return None

    def object_param(self, ref: ObjRef, attr: str) -> str:
        """The kernel parameter an object's array or scalar attribute becomes."""
        from .objects import expanded_name

        path = ref.path + (attr,)
        name = expanded_name(path)
        self.root.extra.setdefault(name, path)
        return name

    def object_attr(self, ref: ObjRef, node: ast.Attribute) -> Expr:
        info, attr, loc = ref.info, node.attr, self.src.loc(node)
        if attr in info.constants:
            v = info.constants[attr]
            return Expr(Op.CONST, None, (), int(v) if isinstance(v, bool) else v, loc)
        if attr in info.scalars:
            return Expr(Op.VAR, None, (), self.object_param(ref, attr), loc)
        if attr in info.arrays:
            raise self.unsupported(node, f"array attribute '{attr}' used as a value",
                                   f"index it: {ast.unparse(node)}[i]")
        from ..errors import TackValueError

        raise TackValueError(format_at(
            loc, f"{self.title}: {ast.unparse(node)} at line {loc.line}, column {loc.col} is "
                 f"neither a class constant, an instance scalar or array, nor a @tack.func "
                 f"method of {info.cls.__name__}"))

    def alias_of(self, node):
        """What a call argument denotes without evaluating it: an object, an array or local's
        IR name (bound by reference), or None (evaluate it)."""
        ref = self.objref(node)
        if ref is not None:
            return ref
        if isinstance(node, ast.Name):
            if node.id in self.rename:
                return self.rename[node.id]
            if self is self.root and (node.id in self.params or node.id in self.local_names):
                return node.id
            return None
        if isinstance(node, ast.Attribute):
            base = self.objref(node.value)
            if base is not None and (node.attr in base.info.arrays
                                     or node.attr in base.info.scalars):
                return self.object_param(base, node.attr)
        return None

    def func_value(self, node) -> Func | None:
        """The device function a name denotes (a global, or a parameter bound to one)."""
        if isinstance(node, ast.Name) and isinstance(self.rename.get(node.id), Func):
            return self.rename[node.id]
        if isinstance(node, (ast.Name, ast.Attribute)) and self.objref(node) is None:
            try:
                obj = self._resolve(node)
            except Exception:
                return None
            return obj if isinstance(obj, Func) else None
        return None

    def _callee(self, call: ast.Call):
        """(Func, self ObjRef or None) when `call` calls a device function, else None."""
        f = call.func
        if isinstance(f, ast.Name) and isinstance(self.rename.get(f.id), Func):
            return self.rename[f.id], None
        if isinstance(f, ast.Attribute):
            base = self.objref(f.value)
            if base is not None:
                if f.attr in base.info.funcs:
                    return base.info.funcs[f.attr], None
                member = _class_member(base.info.cls, f.attr)
                if isinstance(member, staticmethod) and isinstance(member.__func__, Func):
                    return member.__func__, None
                if isinstance(member, Func):
                    return member, base
                from ..errors import TackValueError

                loc = self.src.loc(f)
                raise TackValueError(format_at(
                    loc, f"{self.title}: {ast.unparse(f)} at line {loc.line}, column {loc.col} "
                         f"is not a @tack.func method of {base.info.cls.__name__}"))
        obj = self._resolve(f)
        return (obj, None) if isinstance(obj, Func) else None

    def _is_local(self, name: str) -> bool:
        # A name assigned anywhere in the function is a local (Python's scoping rule).
        return name in self.local_names

    def _lookup(self, node: ast.Name):
        name = node.id
        for scope in (self.closure, self.globals):
            if name in scope:
                return scope[name]
        if name in BUILTINS or name in ("range", "print"):
            return _BuiltinName(name)
        import builtins as _b

        if hasattr(_b, name):
            return getattr(_b, name)
        raise self.name_error(node, name)

    def _static(self, node, obj) -> Expr:
        """A free name or attribute chain bound to a host object, as an expression."""
        from ..constants import Constant

        loc = self.src.loc(node)
        if isinstance(obj, tuple) and isinstance(obj, Constant):  # a vector/matrix constant
            return Expr(Op.VECTOR, None, tuple(self._static(node, x) for x in obj), None, loc)
        if isinstance(obj, Constant):
            return Expr(Op.CONST, obj.dtype, (), obj.value, loc)
        if isinstance(obj, (int, float)) and not isinstance(obj, bool):
            if isinstance(node, ast.Attribute) and obj in MATH_CONSTANTS.values() or (
                    isinstance(obj, float) and math.isnan(obj)):
                return Expr(Op.CONST, None, (), obj, loc)
        if isinstance(obj, _Callable) or callable(obj) or isinstance(obj, dt.DType):
            raise self.unsupported(node, "a function used as a value", "call it")
        name = node.id if isinstance(node, ast.Name) else ast.unparse(node)
        raise self.name_error(node, name)

    def _resolve(self, node):
        """The host object an attribute chain or free name denotes, or _UNSET for locals."""
        if isinstance(node, ast.Name):
            if (node.id in self.rename or node.id in self.params or node.id in self.assigned
                    or self._is_local(node.id)):
                return _UNSET
            return self._lookup(node)
        if isinstance(node, ast.Attribute):
            base = self._resolve(node.value)
            if base is _UNSET or _vector_constant(base):  # a value: its components, methods
                return _UNSET
            try:
                return getattr(base, node.attr)
            except AttributeError:
                raise self.unsupported(node, f"unknown attribute '{node.attr}'") from None
        return _UNSET

    def expr_Attribute(self, node):  # math.pi, tack.constant values, obj.attr
        ref = self.objref(node.value)
        if ref is not None:
            return self.object_attr(ref, node)
        if node.attr in _COMPONENTS and (self._resolve(node.value) is _UNSET
                                         or _vector_constant(self._resolve(node.value))):
            loc = self.src.loc(node)
            k = Expr(Op.CONST, None, (), _COMPONENTS[node.attr], loc)
            return Expr(Op.COMPONENT, None, (self.expr(node.value), k), None, loc)
        obj = self._resolve(node)
        if obj is _UNSET:
            raise self.unsupported(node, f"attribute '.{node.attr}'",
                                   "arrays offer .shape[k]; other attributes are not supported")
        if obj is math.pi or obj is math.e or obj is math.tau or obj is math.inf:
            return Expr(Op.CONST, None, (), float(obj), self.src.loc(node))
        return self._static(node, obj)

    def expr_BinOp(self, node):  # a + b, a // b, a ** b, a << b, ...
        op = _BINOPS.get(type(node.op))
        if op is None:
            raise self.unsupported(node, f"operator {type(node.op).__name__}")
        return Expr(op, None, (self.expr(node.left), self.expr(node.right)), None,
                    self.src.loc(node))

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
        return Expr(op, None, (a,), None, loc)

    def expr_BoolOp(self, node):  # a and b and c, a or b
        op = Op.LAND if isinstance(node.op, ast.And) else Op.LOR
        vals = [self.expr(node.values[0])] + [self.lazy(v) for v in node.values[1:]]
        out = vals[-1]
        for v in reversed(vals[:-1]):
            out = Expr(op, None, (v, out), None, self.src.loc(node))
        return out

    def expr_Compare(self, node):  # a < b, a < b <= c (middle operands evaluated once)
        loc = self.src.loc(node)
        left = self.expr(node.left)
        links = []
        for k, (op, right) in enumerate(zip(node.ops, node.comparators)):
            cop = _CMPOPS.get(type(op))
            if cop is None:
                raise self.unsupported(node, f"comparison {type(op).__name__}",
                                       "`is`, `in` and their negations are not supported")
            r = self.expr(right) if k == 0 else self.lazy(right)
            links.append(Expr(cop, None, (left, r), None, loc))
            left = r
        out = links[-1]
        for link in reversed(links[:-1]):
            out = Expr(Op.LAND, None, (link, out), None, loc)
        return out

    def expr_IfExp(self, node):  # a if c else b
        return Expr(Op.IFEXP, None, (self.expr(node.test), self.lazy(node.body),
                                     self.lazy(node.orelse)), None, self.src.loc(node))

    def lazy(self, node) -> Expr:
        """An operand that may not be evaluated (no device function may be inlined there)."""
        self.lazy_depth += 1
        try:
            return self.expr(node)
        finally:
            self.lazy_depth -= 1

    def expr_Subscript(self, node):  # a[i], a[i, j], a.shape[k]
        v = node.value
        if isinstance(v, ast.Attribute) and v.attr == "shape":
            return self._shape(v.value, node.slice, node)
        if self.array_name(v) is None:  # a vector/matrix value: v[k], m[i, j], vf[i][c]
            sl = node.slice
            elts = sl.elts if isinstance(sl, ast.Tuple) else [sl]
            return Expr(Op.COMPONENT, None, (self.expr(v),) + tuple(self.expr(e) for e in elts),
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

    def array_name(self, node) -> str | None:
        """The IR name of the array (parameter, object attribute or scratch) `node` denotes."""
        if isinstance(node, ast.Name):
            ref = self.rename.get(node.id)
            if isinstance(ref, str):
                return ref
            if ref is None and (node.id in self.params or node.id in self.scratch_names):
                return node.id
            return None
        if isinstance(node, ast.Attribute):
            base = self.objref(node.value)
            if base is not None and node.attr in base.info.arrays:
                return self.object_param(base, node.attr)
        return None

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
        return arr, tuple(self.expr(e) for e in elts)

    def expr_Call(self, node):  # sqrt(x), min(a, b, c), int(x), tack.f64(x), len(a)
        if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            raise self.unsupported(node, "keyword or starred call arguments",
                                   "pass arguments by position")
        callee = self._callee(node)
        if callee is not None:
            vals = inline_call(self, callee[0], node.args, node, callee[1])
            if len(vals) != 1:
                raise self.unsupported(node, f"device function '{callee[0].name}' returns "
                                             f"{len(vals)} values where one is needed",
                                       "unpack them: a, b = f(...)" if vals else None)
            return vals[0]
        fn = self._resolve(node.func)
        loc = self.src.loc(node)
        if fn is _UNSET and isinstance(node.func, ast.Attribute):  # v.dot(w), m.transpose()
            args = (self.expr(node.func.value),) + tuple(self.expr(a) for a in node.args)
            return Expr(Op.METHOD, None, args, node.func.attr, loc)
        if isinstance(fn, dt.VecType):  # tack.vec3(x, y, z)
            return Expr(Op.VECTOR, None, self._vector_items(node.args, node), fn, loc)
        intrinsic = getattr(fn, "__tack_intrinsic__", None)
        if intrinsic is not None:
            return self._intrinsic_call(intrinsic, node, loc)
        if isinstance(fn, dt.DType):
            if len(node.args) != 1:
                raise self.unsupported(node, f"{fn!r}() takes exactly one argument")
            return Expr(Op.CAST, None, (self.expr(node.args[0]),), fn, loc)
        if fn is any or fn is all or (isinstance(fn, _BuiltinName) and fn.name in ("any", "all")):
            if len(node.args) != 1:
                raise self.unsupported(node, "any()/all() take one mask")
            op = Op.ANY if (fn is any or getattr(fn, "name", "") == "any") else Op.ALL
            return Expr(op, None, (self.expr(node.args[0]),), None, loc)
        b = BUILTINS.get(fn.name) if isinstance(fn, _BuiltinName) else builtin_for(fn)
        if b is None:
            what = ast.unparse(node.func)
            raise self.unsupported(node, f"call to '{what}'",
                                   "kernels call builtins (sqrt, min, ...), casts (int, float, "
                                   "tack.f32, ...) and @tack.func functions")
        lo, hi = b.arity
        n = len(node.args)
        if n < lo or (hi >= 0 and n > hi):
            raise self.unsupported(node, f"{b.name}() with {n} argument(s)")
        if b.rule == "len":
            return self._shape(node.args[0], ast.Constant(0), node)
        args = tuple(self.expr(a) for a in node.args)
        if b.rule == "minmax":
            out = args[0]
            for a in args[1:]:
                out = Expr(b.op, None, (out, a), None, loc)
            return out
        if b.rule in ("cast_int", "cast_float"):
            return Expr(Op.CAST, None, args, dt.i32 if b.rule == "cast_int" else dt.f32, loc)
        return Expr(b.op, None, args, None, loc)

    def _vector_items(self, args, node) -> tuple:
        if len(args) == 1 and isinstance(args[0], (ast.List, ast.Tuple)):
            args = args[0].elts
        return tuple(self.expr(a) for a in args)

    def _is_print(self, func) -> bool:
        if not (isinstance(func, ast.Name) and func.id == "print") or func.id in self.rename:
            return False
        obj = self._lookup(func)
        return obj is print or isinstance(obj, _BuiltinName)

    def _print(self, node: ast.Call) -> Expr:
        """print("label:", value, ...): one line, items separated by spaces (CPU: printf)."""
        if node.keywords:
            raise self.unsupported(node, "print() with keyword arguments",
                                   "print(\"label:\", value) prints one line")
        pieces, values = [], []
        for a in node.args:
            if isinstance(a, ast.Constant) and isinstance(a.value, str):
                pieces.append(a.value)
            else:
                pieces.append(None)
                values.append(self.expr(a))
        return Expr(Op.PRINT, dt.i32, tuple(values), tuple(pieces), self.src.loc(node))

    def _intrinsic_call(self, name: str, node: ast.Call, loc) -> Expr:
        if name in ("Vector", "Matrix"):
            if len(node.args) != 1:
                raise self.unsupported(node, f"tack.{name}() takes one list")
            return self.expr_List(node.args[0]) if isinstance(node.args[0], (ast.List, ast.Tuple)) \
                else Expr(Op.VECTOR, None, (self.expr(node.args[0]),), None, loc)
        if name == "identity":
            n = node.args[0] if len(node.args) == 1 else None
            if not (isinstance(n, ast.Constant) and type(n.value) is int and 1 <= n.value <= 4):
                raise self.unsupported(node, "Matrix.identity(n) needs a literal n in 1..4")
            k = n.value
            one = lambda v: Expr(Op.CONST, None, (), v, loc)  # noqa: E731
            rows = tuple(Expr(Op.VECTOR, None, tuple(one(1.0 if r == c else 0.0)
                                                      for c in range(k)), None, loc)
                         for r in range(k))
            return Expr(Op.VECTOR, None, rows, None, loc)
        if name == "expect_dtype":
            if len(node.args) != 3 or not isinstance(node.args[2], ast.Constant):
                raise self.unsupported(node, "expect_dtype(x, dtype, 'what')")
            want = self._resolve(node.args[1])
            where = self.root.call_locs[0] if self.root.call_locs else loc  # the user's call
            return Expr(Op.TYPED, None, (self.expr(node.args[0]),), ("expect", want,
                                                                     node.args[2].value), where)
        if name == "select":
            if len(node.args) != 3:
                raise self.unsupported(node, "select(mask, a, b) takes three arguments")
            return Expr(Op.SELECT, None, tuple(self.expr(a) for a in node.args), None, loc)
        if name == "thread_id":
            if node.args:
                raise self.unsupported(node, "thread_id() takes no arguments")
            return Expr(Op.THREAD_ID, dt.i32, (), None, loc)
        if name in _ATOMICS:
            if len(node.args) != 3:
                raise self.unsupported(node, f"{name}() takes (array, index, value)")
            arr, idx, val = node.args
            target = self.array_name(arr)
            if target is None or target in self.root.local_scratch or (
                    isinstance(arr, ast.Name) and arr.id in self.local_scratch):
                raise self.unsupported(arr, f"{name}() on something that is neither an array "
                                            "parameter nor a shared array",
                                       "atomics update arrays passed to the kernel or "
                                       "tack.shared arrays; a local array is private to its "
                                       "iteration and needs none")
            elts = idx.elts if isinstance(idx, ast.Tuple) else [idx]
            args = tuple(self.expr(e) for e in elts) + (self.expr(val),)
            return Expr(_ATOMICS[name], None, args, target, loc)
        if name in _SCRATCH:
            raise self.unsupported(node, f"{name}() outside an assignment",
                                   f"bind it to a name: tmp = tack.{name}(...)")
        raise self.unsupported(node, f"{name}() used as a value")

    def expr_List(self, node):  # [a, b, c] (a vector), [[a, b], [c, d]] (a matrix)
        if not node.elts:
            raise self.unsupported(node, "empty list", "a vector has 1 to 4 components")
        return Expr(Op.VECTOR, None, tuple(self.expr(e) for e in node.elts), None,
                    self.src.loc(node))

    def expr_Tuple(self, node):
        raise self.unsupported(node, "tuple value", "tuples are allowed only in tuple assignment")


class _Callable:
    pass


class _BuiltinName(_Callable):
    """A kernel builtin used unqualified (`sqrt`), with no binding in the function's namespace."""

    def __init__(self, name: str):
        self.name = name


def _is_docstring(s: ast.stmt) -> bool:
    return isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant) and isinstance(
        s.value.value, str)


def _stmt_name(s: ast.stmt) -> str:
    return {ast.AugAssign: "store", ast.Assign: "store", ast.Expr: "expression"}.get(
        type(s), type(s).__name__.lower() + " statement")


def _vector_constant(obj) -> bool:
    from ..constants import Constant

    return isinstance(obj, tuple) and isinstance(obj, Constant)


def _class_member(cls, name: str):
    """A class attribute as written in the class body (staticmethod wrappers kept)."""
    for klass in cls.__mro__:
        if name in vars(klass):
            return vars(klass)[name]
    return None


def _has_return(s: ast.stmt) -> bool:
    return any(isinstance(n, ast.Return) for n in ast.walk(s))


def _assigned_names(tree: ast.FunctionDef) -> frozenset:
    return frozenset(n.id for n in ast.walk(tree)
                     if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
