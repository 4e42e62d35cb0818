"""Calls: builtins (`sqrt`, `min`, casts), tack device functions, `print`, and `@tack.func`
device functions, which are inlined here: their body is parsed by a sub-parser sharing the
kernel's state, with the parameters bound by `inline.bind_arguments`.

A builtin call dispatches through its registry entry (builtins/registry.py): the arity it
declares is checked here, then `call_<form>` builds the untyped IR its form names."""
from __future__ import annotations

import ast

from ... import dtypes as dt
from ...builtins.registry import BARE, REGISTRY, resolve
from ...errors import TackValueError
from ...ir.nodes import Assign, Expr
from ...ir.ops import Op
from .. import depth
from ..inline import Func, bind_arguments, function_returns, return_arity
from ..source import is_docstring
from .names import UNSET, BuiltinName, class_member

# Scratch arrays: the device function that declares one -> its memory space; the atomics.
SCRATCH = {b.name: b.space for b in REGISTRY.values() if b.form == "scratch"}
ATOMICS = {b.name: b.op for b in REGISTRY.values() if b.form == "atomic"}
# Asynchronous copies and their completion: statements (ir/ops.py, "Asynchronous copies").
# Transaction barriers and bulk copies are statements too (parser/mbarriers.py).
ASYNC = {b.name: b for b in REGISTRY.values()
         if b.form in ("async_copy", "async_statement", "mbarrier", "bulk_copy")}
# The warpgroup MMA's statements (the others, wgmma_zeros and wgmma_index, are values).
WGMMA_STATEMENTS = frozenset(b.name for b in REGISTRY.values()
                             if b.form == "wgmma" and b.statement)


class Calls:
    """The call half of the expression parser."""

    def expr_Call(self, node):  # sqrt(x), min(a, b, c), int(x), tack.f64(x), len(a), f(x)
        if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            raise self.unsupported(node, "keyword or starred call arguments",
                                   "pass arguments by position")
        callee = self._callee(node)
        if callee is not None:
            vals = self.inline_call(callee[0], node.args, node, callee[1])
            if len(vals) != 1:
                raise self.unsupported(node, f"device function '{callee[0].name}' returns "
                                             f"{len(vals)} values where one is needed",
                                       "unpack them: a, b = f(...)" if vals else None)
            return vals[0]
        fn = self._resolve(node.func)
        loc = self.src.loc(node)
        if fn is UNSET and isinstance(node.func, ast.Attribute):  # v.dot(w), m.transpose()
            args = tuple(self.ordered([node.func.value] + list(node.args)))
            return Expr(Op.METHOD, None, args, node.func.attr, loc)
        b = BARE.get(fn.name) if isinstance(fn, BuiltinName) else resolve(fn)
        if b is None:
            self.refuse_kernel_call(node)
            self._refuse_value_call(node)
            what = ast.unparse(node.func)
            raise self.unsupported(node, f"call to '{what}'",
                                   "kernels call builtins (sqrt, min, ...), casts (int, float, "
                                   "tack.f32, ...) and @tack.func functions")
        if b.arity is not None:
            lo, hi = b.arity
            n = len(node.args)
            if n < lo or (hi >= 0 and n > hi):
                raise self.unsupported(node, f"{b.qualified}() with {n} argument(s)",
                                       f"call it as {b.call}")
        return getattr(self, "call_" + b.form)(b, node, loc)

    # -- builtin forms (`Builtin.form`) ------------------------------------------------------------
    def call_op(self, b, node: ast.Call, loc) -> Expr:
        """`sqrt(x)`, `pow(x, y)`, `tack.select(m, a, b)`, `tack.thread_id()`: the entry's op
        over the arguments (integer literals folded)."""
        return self.folded(Expr(b.op, b.dtype, tuple(self.ordered(node.args)), None, loc))

    def call_minmax(self, b, node: ast.Call, loc) -> Expr:
        """`min(a, b, c)`: a chain of binary ops, left to right."""
        args = tuple(self.ordered(node.args))
        out = args[0]
        for a in args[1:]:
            out = self.folded(Expr(b.op, None, (out, a), None, loc))
        return out

    def call_cast(self, b, node: ast.Call, loc) -> Expr:
        """`int(x)`, `float(x)`, `tack.f64(x)`: CAST to the entry's dtype."""
        return Expr(Op.CAST, None, tuple(self.ordered(node.args)), b.dtype, loc)

    def call_len(self, b, node: ast.Call, loc) -> Expr:
        rows = self.constant_length(node.args[0])
        if rows is not None:  # len(T) of a vector or table constant: a literal
            return Expr(Op.CONST, None, (), rows, loc)
        return self._shape(node.args[0], ast.Constant(0), node)

    def call_mask(self, b, node: ast.Call, loc) -> Expr:
        """`any(m)`, `all(m)` of a bool vector (the typechecker reduces it)."""
        return Expr(b.op, None, (self.expr(node.args[0]),), None, loc)

    def call_vector(self, b, node: ast.Call, loc) -> Expr:
        """`tack.vec3(x, y, z)`: a vector of the called type."""
        return Expr(Op.VECTOR, None, self._vector_items(node.args), self._resolve(node.func),
                    loc)

    def call_expect_dtype(self, b, node: ast.Call, loc) -> Expr:
        if not isinstance(node.args[2], ast.Constant):
            raise self.unsupported(node, "expect_dtype(x, dtype, 'what')")
        want = self._resolve(node.args[1])
        where = self.root.call_locs[0] if self.root.call_locs else loc  # the user's call
        return Expr(Op.TYPED, None, (self.expr(node.args[0]),), ("expect", want,
                                                                 node.args[2].value), where)

    def call_scratch(self, b, node: ast.Call, loc) -> Expr:
        raise self.unsupported(node, f"{b.name}() outside an assignment",
                               f"bind it to a name: tmp = tack.{b.name}(...)")

    def call_statement(self, b, node: ast.Call, loc) -> Expr:
        raise self.unsupported(node, f"{b.name}() used as a value")

    def call_loop(self, b, node: ast.Call, loc) -> Expr:
        raise self.unsupported(node, f"{b.name}() used as a value",
                               f"it is the iterable of a for statement: {b.call}")

    def call_print(self, b, node: ast.Call, loc) -> Expr:
        raise self.unsupported(node, "print() used as a value", "print is a statement")

    def _refuse_value_call(self, node: ast.Call) -> None:
        """A parameter or local called as a function: its argument (a compile-time argument of
        the kernel, or of a @tack.func) is a value where a @tack.func is needed. A TypeError."""
        f = node.func
        if not isinstance(f, ast.Name):
            return
        bound = self.rename.get(f.id)
        param = f.id in self.params and (self is self.root or f.id in self.rename)
        if isinstance(bound, str) or param or f.id in self.local_names:
            raise self.kind_error(node, f"'{f.id}' is called, but it holds a value, not a "
                                        "@tack.func",
                                  f"give '{f.id}' a @tack.func device function (a kernel's "
                                  f"argument by position or as {f.id}=my_func): it is inlined "
                                  "where it is called")

    def _vector_items(self, args) -> tuple:
        if len(args) == 1 and isinstance(args[0], (ast.List, ast.Tuple)):
            args = args[0].elts
        return tuple(self.ordered(args))

    # -- print ----------------------------------------------------------------------------------
    def _is_print(self, func) -> bool:
        if not (isinstance(func, ast.Name) and func.id == "print") or func.id in self.rename:
            return False
        obj = self._lookup(func)
        return obj is print or isinstance(obj, BuiltinName)

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

    def call_bitcast(self, b, node: ast.Call, loc) -> Expr:
        """`tack.bitcast(x, tack.u32)`: the target is a dtype named at compile time."""
        want = self._resolve(node.args[1], quiet=True)
        if not isinstance(want, dt.DType) or want is dt.bool_:
            raise self.unsupported(node, "bitcast(x, dtype) takes a value and a number dtype",
                                   "write tack.bitcast(x, tack.u32) for an f32 x")
        return Expr(Op.BITCAST, None, (self.expr(node.args[0]),), want, loc)

    def call_matrix(self, b, node: ast.Call, loc) -> Expr:
        """`tack.Vector([...])`, `tack.Matrix([[...], ...])`, `tack.Matrix.identity(n)`."""
        if b.name != "identity":
            return self.expr_List(node.args[0]) if isinstance(node.args[0], (ast.List, ast.Tuple)) \
                else Expr(Op.VECTOR, None, (self.expr(node.args[0]),), None, loc)
        n = node.args[0] if len(node.args) == 1 else None
        if not (isinstance(n, ast.Constant) and type(n.value) is int and 1 <= n.value <= 4):
            raise self.unsupported(node, "Matrix.identity(n) needs a literal n in 1..4")
        k = n.value
        one = lambda v: Expr(Op.CONST, None, (), v, loc)
        rows = tuple(Expr(Op.VECTOR, None, tuple(one(1.0 if r == c else 0.0)
                                                  for c in range(k)), None, loc)
                     for r in range(k))
        return Expr(Op.VECTOR, None, rows, None, loc)

    def call_atomic(self, b, node: ast.Call, loc) -> Expr:
        """`tack.atomic_add(a, i, v)` (and min/max) on an array parameter or a shared array."""
        name = b.name
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
        args = tuple(self.ordered(list(elts) + [val]))
        return Expr(b.op, None, args, target, loc)

    def call_async_copy(self, b, node: ast.Call, loc) -> Expr:
        raise self.unsupported(node, f"{b.qualified}() used as a value",
                               "it is a statement: write it on a line of its own")

    call_async_statement = call_mbarrier = call_bulk_copy = call_async_copy

    def async_statement(self, b, node: ast.Call) -> Expr:
        """`tack.async_copy(dst, j, src, i[, count])`, `tack.async_commit()`,
        `tack.async_wait(n)` as statements: the op over its operands (the typechecker checks
        the arrays, the count and n)."""
        loc = self.src.loc(node)
        if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            raise self.unsupported(node, "keyword or starred call arguments",
                                   f"pass arguments by position: {b.call}")
        lo, hi = b.arity
        if not lo <= len(node.args) <= hi:
            raise self.unsupported(node, f"{b.qualified}() with {len(node.args)} argument(s)",
                                   f"call it as {b.call}")
        if b.form in ("mbarrier", "bulk_copy"):
            return self.mbarrier_statement(b, node, loc)
        if b.op is not Op.ASYNC_COPY:
            return Expr(b.op, None, tuple(self.ordered(node.args)), None, loc)
        dst, j, src, i = node.args[:4]
        target = self.array_name(dst)
        if target is None or target not in self.root.scratch_names or (
                target in self.root.local_scratch):
            raise self.unsupported(dst, "async_copy() into something that is not a shared array",
                                   "copy into a tack.shared array: tack.async_copy(tile, j, a, i)")
        source = self.array_name(src)
        if source is None or source in self.root.scratch_names:
            raise self.unsupported(src, "async_copy() from something that is not an array "
                                        "parameter",
                                   "asynchronous copies read global memory: an array passed "
                                   "to the kernel")
        count = 1
        if len(node.args) == 5:  # a literal, or a tack.constant: known when the kernel parses
            c = self.folded(self.expr(node.args[4]))
            if not (c.op is Op.CONST and type(c.arg) is int):
                raise self.unsupported(node.args[4], "async_copy() with a count that is not a "
                                                     "compile-time integer",
                                       "write 1, 2, 4 or 8 (16 bytes at most) or a "
                                       "tack.constant")
            count = c.arg
        elts = i.elts if isinstance(i, ast.Tuple) else [i]
        args = tuple(self.ordered([j, *elts]))
        return Expr(Op.ASYNC_COPY, None, args, (target, source, count), loc)

    def call_fragment(self, b, node: ast.Call, loc) -> Expr:
        """`tack.mma_load_a(x, row, col[, ld])` (and `_b`, `_acc`), `tack.mma_zeros()`,
        `tack.mma_store(acc, x, row, col[, ld])`: an MMA_TILE naming the builtin and the array
        (frontend/typing/mma.py makes the fragment or the stores)."""
        args = list(node.args)
        if not b.arrays:  # fragments of fragments (or of nothing): no array
            return Expr(Op.MMA_TILE, None, tuple(self.ordered(args)), (b.name, None), loc)
        (k,) = b.arrays  # the tile's array: after the accumulator of mma_store
        arr = args[k]
        target = self.array_name(arr)
        if target is None or target in self.root.local_scratch or (
                isinstance(arr, ast.Name) and arr.id in self.local_scratch):
            raise self.unsupported(arr, f"{b.name}() on something that is neither an array "
                                        "parameter nor a shared array",
                                   f"a warp's tiles live in arrays passed to the kernel or in "
                                   f"tack.shared arrays: {b.call}")
        rest = self.ordered(args[:k] + args[k + 1:])
        return Expr(Op.MMA_TILE, None, tuple(rest), (b.name, target), loc)

    def call_mma(self, b, node: ast.Call, loc) -> Expr:
        """`tack.mma(a, b, acc)`, or with the precision of f32 inputs: `tack.mma(a, b, acc,
        "tf32")` (a string literal)."""
        args = list(node.args)
        precision = None
        if len(args) == 4:
            last = args.pop()
            if not (isinstance(last, ast.Constant) and isinstance(last.value, str)):
                raise self.unsupported(last, "a precision that is not a string literal",
                                       'write tack.mma(a, b, acc, "tf32") for f32 inputs')
            precision = last.value
        return Expr(Op.MMA, None, tuple(self.ordered(args)), precision, loc)

    def call_wgmma(self, b, node: ast.Call, loc) -> Expr:
        if b.statement:
            raise self.unsupported(node, f"{b.qualified}() used as a value",
                                   f"it is a statement: write {b.call} on a line of its own")
        return self.wgmma_call(b, node)

    def wgmma_call(self, b, node: ast.Call) -> Expr:
        """A warpgroup MMA builtin (`tack.wgmma_zeros(n)`, `tack.wgmma(acc, As, a, Bs, b,
        layout[, "tf32"])`, ...): a WGMMA_CALL naming the builtin, its arrays and its string
        literals, over its other arguments (frontend/typing/wgmma.py types it)."""
        loc = self.src.loc(node)
        if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            raise self.unsupported(node, "keyword or starred call arguments",
                                   f"pass arguments by position: {b.call}")
        lo, hi = b.arity
        if not lo <= len(node.args) <= hi:
            raise self.unsupported(node, f"{b.qualified}() with {len(node.args)} argument(s)",
                                   f"call it as {b.call}")
        arrays, strings, rest = [], [], []
        for k, a in enumerate(node.args):
            if k in b.arrays:
                name = self.array_name(a)
                if name is None or name in self.root.local_scratch or (
                        isinstance(a, ast.Name) and a.id in self.local_scratch):
                    raise self.unsupported(a, f"{b.name}() on something that is neither an "
                                              "array parameter nor a shared array",
                                           f"call it as {b.call}")
                arrays.append(name)
            elif k in b.strings:
                if not (isinstance(a, ast.Constant) and isinstance(a.value, str)):
                    raise self.unsupported(a, f"{b.name}() with a layout or precision that is "
                                              "not a string literal",
                                           'write "swizzle128" or "interleave" (and "tf32" for '
                                           "f32 tiles)")
                strings.append(a.value)
            else:
                rest.append(a)
        if b.name == "wgmma" and not isinstance(node.args[0], ast.Name):
            raise self.unsupported(node.args[0], "wgmma() on an accumulator that is not a name",
                                   "it updates the accumulator in place: acc = "
                                   "tack.wgmma_zeros(n), then tack.wgmma(acc, ...)")
        return Expr(Op.WGMMA_CALL, None, tuple(self.ordered(rest)),
                    (b.name, tuple(arrays), tuple(strings)), loc)

    # -- device functions -----------------------------------------------------------------------
    def _callee(self, call: ast.Call):
        """(Func, self ObjRef or None) when `call` calls a device function, else None."""
        f = call.func
        if isinstance(f, ast.Name) and isinstance(self.rename.get(f.id), Func):
            return self.rename[f.id], None
        if isinstance(f, ast.Attribute):
            base = self.objref(f.value)
            if base is not None:
                return self._method(base, f)
        obj = self._resolve(f)
        return (obj, None) if isinstance(obj, Func) else None

    def _method(self, base, f: ast.Attribute):
        """`obj.f(...)` on a device-class object: a held function, a static or bound method."""
        if f.attr in base.info.funcs:
            return base.info.funcs[f.attr], None
        member = class_member(base.info.cls, f.attr)
        if isinstance(member, staticmethod) and isinstance(member.__func__, Func):
            return member.__func__, None
        if isinstance(member, Func):
            return member, base
        loc = self.src.loc(f)
        raise TackValueError.at(
            loc, f"{self.title}: {ast.unparse(f)} at line {loc.line}, column {loc.col} "
                 f"is not a @tack.func method of {base.info.cls.__name__}")

    def inline_call(self, fn: Func, arg_nodes: list, node, self_ref=None) -> list[Expr]:
        """Inline `fn(*arg_nodes)` into the current statement; return its result values. The
        body's statements go to `root.pre`, before the statement being parsed."""
        root = self.root
        if self.lazy_depth:
            raise self.unsupported(node, f"call of device function '{fn.name}' inside `and`, "
                                         "`or` or a conditional expression",
                                   "assign the call's result to a local first")
        # A method called on a nested object of the same class is not recursion: the call is
        # keyed on the function and the object it is bound to.
        key = (fn, self_ref.path if self_ref is not None else None)
        if key in root.stack:
            raise self.unsupported(node, f"recursive call of device function '{fn.name}'",
                                   "device functions are inlined, so they cannot recurse")
        tree = fn.source.tree
        loc = self.src.loc(node)
        rename = bind_arguments(self, fn, arg_nodes, node, self_ref)
        returns = function_returns(tree)
        results = [root.fresh(f"{fn.name}_ret") for _ in range(return_arity(self, tree, returns))]
        nested = any(not any(r is s for s in tree.body) for r in returns)
        done = root.fresh(f"{fn.name}_done") if nested else None
        sub = type(self)(fn.source, fn.fn.__globals__, fn.closure, kind="Device function",
                         root=root, rename=rename, inlined_into=root.name)
        sub.ret_names, sub.done_flag = results, done
        root.stack.append(key)
        root.call_locs.append(loc)
        stmts = [s for s in tree.body if not is_docstring(s)]
        try:
            if len(root.stack) < 4:  # not a long chain: no frames to count
                body = sub.block(stmts)
            else:  # a long chain of nested calls goes on on a fresh stack when it must
                body = depth.inline_on_fresh_stack(sub.block, stmts)
        finally:
            root.stack.pop()
            root.call_locs.pop()
        if done is not None:
            root.pre.append(Assign(loc, done, Expr(Op.CONST, None, (), 0, loc)))
        root.pre.extend(body)
        return [Expr(Op.VAR, None, (), r, loc) for r in results]
