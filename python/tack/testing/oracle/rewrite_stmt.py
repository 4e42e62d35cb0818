"""Source rewriting, statements: `_Rewriter` builds the type-pass and value functions."""
from __future__ import annotations

import ast

from .rewrite_expr import _BINOPS, _P, _c, _ExprRewriter


class _Rewriter(_ExprRewriter):
    """Builds the type-pass function and the value function from the kernel's AST."""

    # -- statements -------------------------------------------------------------------------------
    def block(self, stmts) -> list:
        out = []
        for s in stmts:
            for new in self.stmt(s):
                out.append(new if hasattr(new, "lineno") else ast.copy_location(new, s))
        if not out and not self.typing:
            out = [ast.Pass()]
        return out

    def guarded(self, stmts: list) -> list:
        """Type pass: a statement whose types are not known yet is skipped this round."""
        if not stmts:
            return []
        return [ast.Try(stmts, [ast.ExceptHandler(ast.Name(_P, ast.Load()), None, [ast.Pass()])],
                        [], [])]

    def assign_local(self, name: str, site, value: ast.expr, source=None) -> ast.stmt:
        literal = source is not None and self.literal_float_expr(source)
        call = self.call("assign", _c(name), _c(site), value, _c(literal))
        if self.typing:
            return ast.Expr(call)
        return ast.Assign([ast.Name(name, ast.Store())], call)

    def store(self, target: ast.Subscript, value: ast.expr, site) -> list:
        arr, idx = self.array_name(target.value), self.indices(target)
        if self.typing:
            return [ast.Expr(self.call("store", arr, idx, value))]
        tmp = f"_tack_v{site}_"
        return [ast.Assign([ast.Name(tmp, ast.Store())], value),
                ast.Expr(self.call("store", arr, idx, ast.Name(tmp, ast.Load())))]

    def target(self, tgt, value: ast.expr, site, source=None) -> list:
        if isinstance(tgt, ast.Name):
            return [self.assign_local(tgt.id, site, value, source)]
        if isinstance(tgt, ast.Subscript):
            return self.store(tgt, value, site)
        raise self.rejected(tgt, f"assignment to {type(tgt).__name__}")

    def stmt(self, s) -> list:
        site = self.num(s)
        if isinstance(s, ast.Assign):
            if len(s.targets) != 1:
                raise self.rejected(s, "chained assignment")
            tgt = s.targets[0]
            if isinstance(tgt, ast.Tuple):
                return self.tuple_assign(s, tgt, site)
            out = self.target(tgt, self.ex(s.value), site, s.value)
            return self.guarded(out) if self.typing else out
        if isinstance(s, ast.AugAssign):
            return self.aug_assign(s, site)
        if isinstance(s, (ast.If, ast.While)):
            test = self.call("truth", self.ex(s.test))
            if getattr(s, "orelse", None) and isinstance(s, ast.While):
                raise self.rejected(s, "while-else")
            if self.typing:
                return self.guarded([ast.Expr(test)] + self.block(s.body) + self.block(s.orelse))
            if isinstance(s, ast.If):
                return [ast.If(test, self.block(s.body), self.block(s.orelse))]
            return [ast.While(test, self.block(s.body), [])]
        if isinstance(s, ast.For):
            return self.for_(s, site)
        if isinstance(s, (ast.Break, ast.Continue, ast.Pass)):
            return [] if self.typing else [s]
        if isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant) and isinstance(
                s.value.value, str):
            return []
        raise self.rejected(s, f"unsupported {type(s).__name__}")

    def tuple_assign(self, s, tgt, site) -> list:
        if not isinstance(s.value, ast.Tuple) or len(s.value.elts) != len(tgt.elts):
            raise self.rejected(s, "tuple assignment without a matching tuple")
        out, temps = [], []
        for k, v in enumerate(s.value.elts):  # the whole right side first, into plain temporaries
            name = f"_tack_t{site}_{k}"  # (transparent: they keep the value's type, even weak)
            temps.append(name)
            out.append(ast.Assign([ast.Name(name, ast.Store())], self.ex(v)))
        for k, (t, name, v) in enumerate(zip(tgt.elts, temps, s.value.elts)):  # then the targets
            out += self.target(t, ast.Name(name, ast.Load()), f"{site}:{k}", v)
        return self.guarded(out) if self.typing else out

    def aug_assign(self, s, site) -> list:
        op = _BINOPS.get(type(s.op))
        if op is None:
            raise self.rejected(s, f"operator {type(s.op).__name__}")
        tgt = s.target
        rhs, lit = self.ex(s.value), _c(self.is_lit(s.value))
        if isinstance(tgt, ast.Name):
            old = self.ex(ast.copy_location(ast.Name(tgt.id, ast.Load()), tgt))
            out = [self.assign_local(tgt.id, site, self.call("bin", _c(op), old, rhs, _c(False),
                                                               lit))]
            return self.guarded(out) if self.typing else out
        if not isinstance(tgt, ast.Subscript):
            raise self.rejected(s, f"augmented assignment to {type(tgt).__name__}")
        arr = self.array_name(tgt.value)
        idx_name = f"_tack_i{site}_"
        idx = self.indices(tgt)  # evaluated once
        pre = [ast.Assign([ast.Name(idx_name, ast.Store())], idx)]
        idx_ref = ast.Name(idx_name, ast.Load())
        new = self.call("bin", _c(op), self.call("load", arr, idx_ref), rhs, _c(False), lit)
        out = pre + [ast.Expr(self.call("store", arr, idx_ref, new))]
        return self.guarded(out) if self.typing else out

    def range_args(self, s) -> list:
        it = s.iter
        if isinstance(it, ast.Call) and it.args and self._is_unroll(it.func):
            it = it.args[0]  # tack.unroll(range(...), k): a performance hint, the same iterations
        if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name)
                and it.func.id == "range" and not it.keywords and 1 <= len(it.args) <= 3):
            raise self.rejected(s, "loop over something other than range(...)")
        if s.orelse:
            raise self.rejected(s, "for-else")
        if not isinstance(s.target, ast.Name):
            raise self.rejected(s, "loop target that is not a name")
        args = [self.ex(a) for a in it.args]
        return [self.call("ilit", _c(0))] + args if len(args) == 1 else args

    def for_(self, s, site) -> list:
        args = self.range_args(s)
        name = s.target.id
        if self.typing:
            head = ast.Expr(self.call("range_t", _c(name), _c(site), *args))
            return self.guarded([head]) + self.block(s.body)
        it = self.call("range", _c(name), _c(site), *args)
        return [ast.For(ast.Name(name, ast.Store()), it, self.block(s.body), [])]

    # -- the two functions ------------------------------------------------------------------------
    def functions(self, prologue, loop, assigned_params) -> ast.Module:
        self.typing = True
        tbody = self.block(prologue) + self.block(loop.body) or [ast.Pass()]
        self.typing = False
        var = loop.target.id
        head = [ast.Expr(self.call("begin", ast.Name("_tack_k_", ast.Load())))]
        for p in assigned_params:
            head.append(self.assign_local(p, -1, ast.Name(f"_tack_p_{p}", ast.Load())))
        head.append(self.assign_local(var, -1, ast.Name("_tack_iv_", ast.Load())))
        inner = head + self.block(prologue) + self.block(loop.body)
        vbody = [ast.copy_location(ast.For(
            ast.Tuple([ast.Name("_tack_k_", ast.Store()), ast.Name("_tack_iv_", ast.Store())],
                      ast.Store()), self.call("iterations"), inner, []), loop)]
        sig = [f"_tack_p_{p}" if p in assigned_params else p for p in self.params]

        def fdef(name, params, body):
            args = ast.arguments(posonlyargs=[], args=[ast.arg(p) for p in params], vararg=None,
                                 kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
            return ast.FunctionDef(name, args, body, [], None, None)

        mod = ast.Module([fdef("_tack_types_", self.params, tbody),
                          fdef("_tack_value_", sig, vbody)], [])
        for f in mod.body:
            ast.copy_location(f, loop)
        return ast.fix_missing_locations(mod)
