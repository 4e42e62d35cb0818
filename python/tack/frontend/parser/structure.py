"""The kernel's shape: its signature, the statements before the parallel loop, the parallel
loop itself (`range`, `tack.ndrange`, or `for c in obj` over a device class), and a return
value after it (see docs/language.md, "Kernels and calls" and "Parallel loop").

A kernel body is: local assignments (the prologue, run once per iteration), exactly one
parallel loop whose range is evaluated on the host at every call, then local assignments and
optionally `return expr` (with a return annotation): with a return they and it become a
one-iteration epilogue kernel; without one the assignments are only type-checked.
"""
from __future__ import annotations

import ast

from ... import dtypes as dt
from ...errors import TackTypeError
from ...ir.nodes import Assign, Barrier, Expr, ExprStmt, Stmt, Store
from ...ir.ops import Op
from ...ir.walk import iter_stmts
from ...passes.names import hidden
from ..hostrange import HostRange, build_host_range
from ..inline import Func, ObjRef
from ..source import is_docstring
from ..untyped import ParsedKernel
from .calls import ATOMICS, SCRATCH
from .names import BuiltinName

RET, EPILOGUE = hidden("ret"), hidden("epilogue")  # the return value's array, its loop
_BEFORE, _AFTER = "before", "after"


def _hint(where: str, move: bool = True) -> str:
    why = ("statements before the parallel loop run an undefined number of times" if where ==
           _BEFORE else "after the parallel loop only a return value is computed")
    return why + ("; move it into the loop" if move else ", so only local assignments (also "
                  "in the branches of an `if`) are allowed there")


def _local_target(t: ast.expr) -> bool:
    """A target that binds locals only: a name, or a flat tuple of names (`h, w = a.shape`)."""
    return isinstance(t, ast.Name) or (isinstance(t, (ast.Tuple, ast.List)) and all(
        isinstance(e, ast.Name) for e in t.elts))


class KernelStructure:
    """The kernel-level half of the parser: what `parse_kernel` checks and assembles."""

    def parse_kernel(self) -> ParsedKernel:
        """The kernel's untyped IR. A foreign exception from a step that visits no particular
        node is reported at the kernel's `def`."""
        return self.guarded(self._parse_kernel, self.src.tree)

    def _parse_kernel(self, fn: ast.FunctionDef) -> ParsedKernel:
        self._check_signature(fn)
        stmts = [s for s in fn.body if not is_docstring(s)]
        loop = self._find_parallel_loop(fn, stmts)
        k = stmts.index(loop)
        prologue = [st for s in stmts[:k] for st in self._local_stmt(s, _BEFORE)]
        tail = stmts[k + 1:]
        ret = tail.pop() if tail and isinstance(tail[-1], ast.Return) else None
        after = [st for s in tail for st in self._local_stmt(s, _AFTER)]
        it, nd, loop_vars, vector = self._loop_form(loop)
        host = build_host_range(self, it, stmts[:k], nd)
        self.assigned.update(loop_vars)
        body = prologue + (vector or []) + self.block(loop.body)  # vector: c = [i, j, ...]
        params, paths = self._ir_params()
        pk = ParsedKernel(self.name, params, self.src, self.src.loc(fn), loop_vars[0],
                          self.src.loc(loop), host, body, set(self.assigned), paths,
                          len(self.params), loop_vars)
        if ret is not None:
            self._return_epilogue(pk, ret, prologue + after)
        elif after:  # nothing observes them: typed (in the prologue's scope), never run
            pk.after = self._once(pk, pk.params, prologue + after, self.src.loc(tail[0]))
        return pk

    def _check_signature(self, fn: ast.FunctionDef) -> None:
        a = fn.args
        if isinstance(fn, ast.AsyncFunctionDef):
            raise self.unsupported(fn, "async def")
        for bad, what in ((a.vararg, "*args"), (a.kwarg, "**kwargs")):
            if bad is not None:
                raise self.unsupported(bad, f"{what} parameter")
        if a.kwonlyargs or a.posonlyargs or a.defaults:
            raise self.unsupported(fn, "keyword-only, positional-only or default parameters")

    def _find_parallel_loop(self, fn: ast.FunctionDef, stmts: list[ast.stmt]) -> ast.For:
        loops = [s for s in stmts if isinstance(s, ast.For)]
        if not loops:
            raise self.unsupported(fn, "definition has no parallel loop",
                                   "a kernel's body holds one `for i in range(...)` loop whose "
                                   "iterations run in parallel")
        for extra in loops[1:]:
            raise self.unsupported(extra, "for loop is outside the parallel loop",
                                   "a kernel has one parallel loop; nest sequential loops inside it")
        return loops[0]

    def _ir_params(self) -> tuple[list[str], list | None]:
        """The IR's parameters, and with device-class or `@tack.func` arguments the (argument
        position, attribute path) each one is fetched from: the other parameters, then one per
        object attribute the body used (a function argument is inlined: no parameter)."""
        objs = [p for p in self.params if isinstance(self.rename.get(p), (ObjRef, Func))]
        if not objs:
            return self.params, None
        params = [p for p in self.params if p not in objs] + list(self.extra)
        pos = {p: i for i, p in enumerate(self.params)}
        paths = [(pos[p], ()) for p in self.params if p not in objs]
        paths += [(pos[path[0]], path[1:]) for path in self.extra.values()]
        return params, paths

    # -- before and after the parallel loop -----------------------------------------------------
    def _local_stmt(self, s: ast.stmt, where: str) -> list[Stmt]:
        # Before or after the parallel loop: only local assignments (and array loads within
        # them), also in the branches of an `if`.
        self._check_local(s, where)
        got = self.block([s])
        for st in iter_stmts(got):
            if isinstance(st, (Store, ExprStmt, Barrier)):
                what = "store" if isinstance(st, Store) else (
                    "barrier()" if isinstance(st, Barrier) else "atomic update")
                raise self.unsupported(s, f"{what} (at {st.loc}, through a device function) "
                                          "is outside the parallel loop", _hint(where))
        return got

    def _check_local(self, s: ast.stmt, where: str) -> None:
        """Reject a statement before or after the parallel loop that is not a local assignment
        (`x = e`, `h, w = a.shape`), an `if` of such statements, or `pass`."""
        if isinstance(s, ast.Assign) and all(_local_target(t) for t in s.targets):
            for n in ast.walk(s.value):
                if isinstance(n, ast.Call) and self._intrinsic(n.func) in ATOMICS:
                    raise self.unsupported(n, f"{self._intrinsic(n.func)}() is outside the "
                                              "parallel loop", _hint(where))
            return
        if isinstance(s, ast.If):
            for n in ast.walk(s.test):
                if isinstance(n, ast.Call) and self._intrinsic(n.func) in ATOMICS:
                    raise self.unsupported(n, f"{self._intrinsic(n.func)}() is outside the "
                                              "parallel loop", _hint(where))
            for st in s.body + s.orelse:
                self._check_local(st, where)
            return
        if isinstance(s, ast.Pass) or is_docstring(s):
            return
        what = "store" if isinstance(s, (ast.Assign, ast.AugAssign)) else _stmt_name(s)
        raise self.unsupported(s, f"{what} is outside the parallel loop", _hint(where, False))

    def _once(self, pk: ParsedKernel, params: list, body: list, loc) -> ParsedKernel:
        """A one-iteration kernel over `body`, in the scope of the statements before the loop
        (a local of the loop is not assigned there: reading it raises NameError)."""
        one = HostRange("stop", 1, lambda *a: (0, 1, 1), frozenset(), "", 1)
        return ParsedKernel(f"{self.name}_return", params, self.src, pk.loc, EPILOGUE, loc, one,
                            body, set(self.assigned) | {EPILOGUE}, None, 0, (EPILOGUE,),
                            shown=self.name)

    def _return_epilogue(self, pk: ParsedKernel, ret: ast.Return, prologue: list) -> None:
        """`return expr` after the parallel loop, typed by the kernel's return annotation."""
        fn = self.src.tree
        if ret.value is None:
            raise self.unsupported(ret, "return without a value in a kernel")
        if fn.returns is None:
            raise self.unsupported(ret, "kernel return value without a return annotation",
                                   "annotate the kernel: def k(...) -> tack.f32:")
        t = self._resolve(fn.returns)
        if isinstance(t, BuiltinName):
            t = {"float": float, "int": int}.get(t.name, t)
        t = {float: dt.f32, int: dt.i32}.get(t, t)
        if not isinstance(t, dt.DType):
            raise self.unsupported(fn.returns, "return annotation that is not a dtype, float or "
                                               "int")
        loc = self.src.loc(ret)
        value = Expr(Op.CAST, None, (self.expr(ret.value),), t, loc)
        zero = Expr(Op.CONST, None, (), 0, loc)
        body = list(prologue) + [Store(loc, RET, (zero,), value, "return")]
        pk.epilogue = self._once(pk, pk.params + [RET], body, loc)
        pk.ret_dtype = t

    # -- the parallel loop ----------------------------------------------------------------------
    def _loop_form(self, loop: ast.For):
        """(the range or ndrange call whose bounds the host evaluates, ndrange dims or 0, the
        loop variables, the statements binding `c` of `for c in obj` or None)."""
        if loop.orelse:
            raise self.unsupported(loop, "for-else")
        it = loop.iter
        if isinstance(it, ast.Call) and self._intrinsic(it.func) == "unroll":
            raise self.unsupported(it, "unroll() of the parallel loop",
                                   "tack.unroll applies to sequential loops nested inside the "
                                   "parallel loop; the parallel loop's iterations are spread "
                                   "over threads, not unrolled")
        if self.objref(it) is not None:  # `for c in obj`: desugared to range/ndrange
            return self._object_loop(loop)
        if isinstance(it, (ast.Name, ast.Attribute)):
            what = ast.unparse(it)
            example = (f"`for i in range({what}.shape[0])`" if what in self.params
                       else "`for i in range(n)`")
            raise self.unsupported(it, f"parallel loop over '{what}', which is not a "
                                       "device-class argument",
                                   f"loop over indices instead: {example}; only an "
                                   "@tack.device_class object whose class declares "
                                   "__tack_iterate__ can be iterated itself")
        if isinstance(it, ast.Call) and self._intrinsic(it.func) == "ndrange":
            names = self._ndrange_targets(loop, it)
            return it, len(names), tuple(t.id for t in names), None
        if not isinstance(loop.target, ast.Name):
            raise self.unsupported(loop.target, "parallel loop target that is not a single name",
                                   "use `for i in range(n)`")
        return it, 0, (loop.target.id,), None

    def _object_loop(self, loop: ast.For):
        """`for c in obj` over a device-class object whose class declares `__tack_iterate__`:
        `_loop_form`'s answer for the equivalent `range(obj.n)` or
        `tack.ndrange(obj.<slowest>, ..., obj.<fastest>)`. With several names `c` is an integer
        vector whose component k is the index over the k-th name, so `c[0]` varies fastest."""
        it = loop.iter
        names = self._iterate_names(self.objref(it), it)
        target = loop.target
        if not isinstance(target, ast.Name):
            obj = ast.unparse(it)
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

    def _iterate_names(self, ref: ObjRef, it: ast.expr) -> tuple:
        """The sizes `for ... in obj` iterates over: the one to three integer attributes that
        the object's class names in `__tack_iterate__`, fastest first."""
        cls, obj = ref.info.cls, ast.unparse(it)
        loc = self.src.loc(it)
        at = f"at line {loc.line}, column {loc.col}"
        names = declared = getattr(cls, "__tack_iterate__", None)
        if names is None:
            raise TackTypeError.at(
                loc, f"{self.title}: a {cls.__name__} cannot be iterated in a kernel: its class "
                     f"declares no __tack_iterate__, so `for ... in {obj}` {at} has no index "
                     "space",
                "declare the sizes to iterate over in the class body, fastest first, e.g. "
                "__tack_iterate__ = ('nx', 'ny'), or loop over range(...) explicitly")
        if isinstance(names, str):
            names = (names,)

        def bad(why: str):
            return TackTypeError.at(
                loc, f"{self.title}: `for ... in {obj}` {at}: {cls.__name__}.__tack_iterate__ "
                     f"= {declared!r} {why}",
                "__tack_iterate__ names one to three integer attributes (sizes), fastest "
                "first: __tack_iterate__ = ('n',) or ('nx', 'ny') or ('nx', 'ny', 'nz')")

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
        return names

    def _scan_scratch(self, tree) -> tuple[set[str], set[str]]:
        """Names bound to scratch arrays anywhere in the function (they index like arrays), and
        those of them that are per-iteration `local` arrays."""
        out, local = set(), set()
        for n in ast.walk(tree):
            if (isinstance(n, ast.Assign) and len(n.targets) == 1
                    and isinstance(n.targets[0], ast.Name) and isinstance(n.value, ast.Call)):
                fn = self._intrinsic(n.value.func)
                if fn in SCRATCH:
                    out.add(n.targets[0].id)
                    if SCRATCH[fn] == "local":
                        local.add(n.targets[0].id)
        return out, local


def _stmt_name(s: ast.stmt) -> str:
    return {ast.AugAssign: "store", ast.Assign: "store", ast.Expr: "expression"}.get(
        type(s), type(s).__name__.lower() + " statement")
