"""Statements: one `visit_X` per supported `ast` statement, each returning untyped IR statements.

A statement may inline device functions; their bodies collect in `root.pre` and are placed
before the statement that called them (`block`). Each visitor's first line shows the Python
forms it accepts.
"""
from __future__ import annotations

import ast

from ... import dtypes as dt
from ...builtins.registry import REGISTRY
from ...ir.nodes import (
    Assign,
    Barrier,
    Break,
    Continue,
    Expr,
    ExprStmt,
    For,
    If,
    Stmt,
    Store,
    While,
)
from ...ir.ops import Op
from ..source import is_docstring
from ..untyped import DeclScratch, SetComponent, TupleTemp
from .calls import ASYNC, ATOMICS, SCRATCH, WGMMA_STATEMENTS
from .expressions import BINOPS
from .names import COMPONENTS, UNSET


class Statements:
    """The statement half of the parser."""

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
                        # At the `if` that holds the return: lanes that returned part from the
                        # others there (the workgroup contract and tack.check cite it).
                        loc = self.src.loc(_branch_of_return(s))
                        done = Expr(Op.VAR, None, (), self.done_flag, loc)
                        out.append(If(loc, Expr(Op.NOT, None, (done,), None, loc), rest, []))
                    break
        return out

    def visit_Pass(self, node):  # pass
        return []

    def visit_Expr(self, node):  # tack.barrier() | tack.atomic_add(a, i, v) | tack.async_*() | f(x)
        if is_docstring(node):
            return []
        if isinstance(node.value, ast.Call):
            name = self._intrinsic(node.value.func)
            if name == "barrier":
                if node.value.args or node.value.keywords:
                    raise self.unsupported(node, "barrier() takes no arguments")
                return [Barrier(self.src.loc(node))]
            if name in ATOMICS or name == "mma_store":
                return [ExprStmt(self.src.loc(node), self.expr(node.value))]
            if name in WGMMA_STATEMENTS:
                return [ExprStmt(self.src.loc(node), self.wgmma_call(
                    REGISTRY["tack." + name], node.value))]
            if name in ASYNC:
                return [ExprStmt(self.src.loc(node),
                                 self.async_statement(ASYNC[name], node.value))]
            if self._is_print(node.value.func):
                return [ExprStmt(self.src.loc(node), self._print(node.value))]
            target = self._callee(node.value)
            if target is not None:
                self.inline_call(target[0], node.value.args, node.value, target[1])
                return []
            self.refuse_kernel_call(node.value)
        raise self.unsupported(node, "expression statement with no effect",
                               "assign its value or remove it")

    # -- assignment -----------------------------------------------------------------------------
    def visit_Assign(self, node):  # x = e | a[i, j] = e | v.x = e | x, y = e1, e2 | s = shared(..)
        if len(node.targets) != 1:
            raise self.unsupported(node, "chained assignment", "write one assignment per target")
        return self._assign(node.targets[0], node.value, node)

    def _assign(self, target, value_node, node) -> list[Stmt]:
        if isinstance(target, ast.Tuple) and isinstance(value_node, ast.Call):
            callee = self._callee(value_node)
            if callee is not None:  # a, b = f(...)
                vals = self.inline_call(callee[0], value_node.args, value_node, callee[1])
                if len(vals) == 1 and len(target.elts) > 1:  # one value: a vector unpacks
                    return self._unpack(target, value_node, node, vals[0])
                if len(vals) != len(target.elts):
                    raise self.unsupported(node, f"unpacking {len(vals)} returned value(s) into "
                                                 f"{len(target.elts)} targets")
                out = []
                for tgt, v in zip(target.elts, vals):
                    out += self._store_to(tgt, v, node)
                return out
        if isinstance(target, ast.Tuple):
            return self._tuple_assign(target, value_node, node)
        if isinstance(value_node, ast.Call) and self._intrinsic(value_node.func) in SCRATCH:
            return self._scratch_decl(target, value_node, node)
        self._refuse_scratch_binding(value_node)
        return self._store_to(target, self.expr(value_node), node)

    def _refuse_scratch_binding(self, value_node) -> None:
        """`a = s`, `a, b = s, 1.0` with `s` a scratch array: another name for storage."""
        if isinstance(value_node, ast.Name) and self.array_name(value_node) in (
                self.root.scratch_names | self.scratch_names):
            raise self.unsupported(value_node, f"binding another name to the scratch array "
                                               f"'{value_node.id}'",
                                   "scratch arrays are storage, not values: index the array "
                                   "itself, or pass it to a @tack.func (by reference)")

    def _tuple_assign(self, target: ast.Tuple, value_node, node) -> list[Stmt]:
        """`x, y = e1, e2`: the whole right side first, then the targets left to right."""
        if (isinstance(value_node, ast.Attribute) and value_node.attr == "shape"
                and self.array_name(value_node.value) is not None):
            return self._unpack_shape(target, value_node, node)
        if not isinstance(value_node, (ast.Tuple, ast.List)):
            return self._unpack(target, value_node, node)
        if len(value_node.elts) != len(target.elts):
            raise self.unsupported(node, "tuple assignment without a matching tuple of values")
        for v in value_node.elts:
            self._refuse_scratch_binding(v)
        # When no value reads a target (no swap), assigning in order is the same and needs no
        # temporaries.
        names = {t.id for t in target.elts if isinstance(t, ast.Name)}
        reads = {n.id for v in value_node.elts for n in ast.walk(v) if isinstance(n, ast.Name)}
        if len(names) == len(target.elts) and not names & reads:
            out = []
            for tgt, v in zip(target.elts, value_node.elts):
                out += self._store_to(tgt, self.expr(v), node)
            return out
        loc = self.src.loc(node)
        temps = [TupleTemp(loc, self.fresh("t"), self.expr(v)) for v in value_node.elts]
        out = list(temps)
        for tgt, temp in zip(target.elts, temps):
            stores = self._store_to(tgt, Expr(Op.VAR, None, (), temp.name, loc), node)
            temp.target = stores[0]
            out += stores
        return out

    def _unpack_shape(self, target: ast.Tuple, value_node: ast.Attribute, node) -> list[Stmt]:
        """`h, w = a.shape`: `h = a.shape[0]; w = a.shape[1]`; the typechecker checks that the
        array has as many dimensions as there are targets (docs/language.md, "Array access")."""
        arr, loc = self.array_name(value_node.value), self.src.loc(value_node)
        n = len(target.elts)
        out: list[Stmt] = []
        for k, tgt in enumerate(target.elts):
            out += self._store_to(tgt, Expr(Op.SHAPE, None, (), (arr, k, n), loc), node)
        return out

    def _unpack(self, target: ast.Tuple, value_node, node, value: Expr | None = None):
        """`x, y = v`: a vector's components (a matrix's rows), the value computed once into a
        temporary; the typechecker checks that the value has as many as there are targets.
        `value`: the value already parsed (a @tack.func's one returned vector)."""
        loc = self.src.loc(node)
        tmp = self.fresh("u")
        n = len(target.elts)
        value = self.expr(value_node) if value is None else value
        check = Expr(Op.TYPED, None, (value,), ("unpack", n), self.src.loc(value_node))
        out: list[Stmt] = [Assign(loc, tmp, check)]
        for k, tgt in enumerate(target.elts):
            item = Expr(Op.COMPONENT, None, (Expr(Op.VAR, None, (), tmp, loc),
                                             Expr(Op.CONST, None, (), k, loc)), None, loc)
            out += self._store_to(tgt, item, node)
        return out

    def _scratch_decl(self, target, call: ast.Call, node) -> list[Stmt]:
        name = self._intrinsic(call.func)
        if not isinstance(target, ast.Name):
            raise self.unsupported(node, f"{name}() assigned to something that is not a name")
        if name == "mbarriers":  # bars = tack.mbarriers(n): n u64 barrier objects
            if call.keywords or len(call.args) != 1:
                raise self.unsupported(call, "mbarriers() takes one positional argument",
                                       "write bars = tack.mbarriers(n), n known when the kernel "
                                       "compiles")
            local = self.local_name(target)
            self.root.scratch_names.add(local)
            return [DeclScratch(self.src.loc(node), local, "shared", dt.u64,
                                self.expr(call.args[0]), name)]
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
        if SCRATCH[name] == "local":
            self.root.local_scratch.add(local)
        return [DeclScratch(self.src.loc(node), local, SCRATCH[name], dtype,
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
        if isinstance(target, ast.Subscript) and self.table_subscript(target)[0] is not None:
            shown = self.table_subscript(target)[0][0]
            raise self.unsupported(target, f"store into the constant table '{shown}'",
                                   "constant tables are read-only; write a tack.local_array or "
                                   "an array argument")
        if (isinstance(target, ast.Attribute) and target.attr in COMPONENTS
                and self.objref(target.value) is None and self._resolve(target.value) is UNSET):
            loc = self.src.loc(target)
            k = Expr(Op.CONST, None, (), COMPONENTS[target.attr], loc)
            return self.expr(target.value), (k,)
        if isinstance(target, ast.Subscript) and self.array_name(target.value) is None:
            sl = target.slice
            elts = sl.elts if isinstance(sl, ast.Tuple) else [sl]
            return self.expr(target.value), tuple(self.expr(e) for e in elts)
        return None

    def visit_AugAssign(self, node):  # x += e | a[i] += e | v.x += e
        op = BINOPS.get(type(node.op))
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
            # The index is evaluated once, the old value read before the right side (and bound
            # to a temporary when the right side has an effect: order.py).
            arr, idx = self._subscript(tgt)
            fixed = []
            for e in idx:
                if e.op in (Op.CONST, Op.VAR):
                    fixed.append(e)
                else:
                    t = self.fresh("t")
                    self.root.pre.append(Assign(e.loc, t, e))
                    fixed.append(Expr(Op.VAR, None, (), t, e.loc))
            tloc = self.src.loc(tgt)
            mark = len(self.root.pre)
            old = Expr(Op.LOAD, None, tuple(fixed), arr, tloc)
            old, value = self.pin([old, self.expr(node.value)], [mark, len(self.root.pre)])
            new = Expr(op, None, (old, value), None, loc)
            return [Store(tloc, arr, tuple(fixed), new, tloc.text())]
        comp = self._component_target(tgt)
        if comp is not None:
            container, index = comp
            tloc = self.src.loc(tgt)
            old = Expr(Op.COMPONENT, None, (container,) + index, None, tloc)
            new = Expr(op, None, (old, self.expr(node.value)), None, loc)
            return [SetComponent(tloc, container, index, new)]
        raise self.unsupported(tgt, f"augmented assignment to {type(tgt).__name__}")

    # -- control flow ---------------------------------------------------------------------------
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

    def visit_For(self, node):  # for v in range(...) | for v in tack.unroll(range(...)[, k])
        if node.orelse:
            raise self.unsupported(node, "for-else")
        it = node.iter
        if isinstance(it, ast.Call) and self._intrinsic(it.func) == "ndrange":
            return self._seq_ndrange(node, it)
        if self.objref(it) is not None:
            return self._seq_object(node)
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


def _has_return(s: ast.stmt) -> bool:
    return any(isinstance(n, ast.Return) for n in ast.walk(s))


def _branch_of_return(s: ast.stmt) -> ast.stmt:
    """The innermost `if` around the first `return` in `s` (`s` when there is none)."""
    def find(node: ast.stmt, around: ast.stmt) -> ast.stmt | None:
        for name in ("body", "orelse", "handlers", "finalbody"):
            for child in getattr(node, name, ()):
                if isinstance(child, ast.Return):
                    return around
                got = find(child, child if isinstance(child, ast.If) else around)
                if got is not None:
                    return got
        return None
    return find(s, s) or s
