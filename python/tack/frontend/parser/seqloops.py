"""Sequential loops over several dimensions inside the parallel loop: `for i, j in
tack.ndrange(a, b)` and `for c in obj` over a device class that declares `__tack_iterate__`.

Both become nested `range` loops, the last index fastest (docs/language.md, "Statements inside
the loop"): the bounds are evaluated once, before the outer loop; `continue` goes on with the next
index; a `break` leaves every level (a hidden flag stops the outer loops).
"""
from __future__ import annotations

import ast

from ... import dtypes as dt
from ...ir.nodes import Assign, Break, Expr, For, If, Stmt
from ...ir.ops import Op


class SequentialLoops:
    """The nested-loop half of `visit_For`."""

    def _seq_ndrange(self, node: ast.For, it: ast.Call) -> list[Stmt]:
        """`for i, j in tack.ndrange(a, (s, e))`: each argument a size or a (start, end) pair."""
        names = self._ndrange_targets(node, it)
        loc = self.src.loc(node)
        bounds = []
        for a in it.args:
            if isinstance(a, ast.Tuple):
                if len(a.elts) != 2:
                    raise self.unsupported(a, "ndrange() pair that is not (start, end)")
                bounds.append((self.expr(a.elts[0]), self.expr(a.elts[1])))
            else:
                bounds.append((Expr(Op.CONST, None, (), 0, loc), self.expr(a)))
        return self._nested_loops(node, bounds, [self.local_name(t) for t in names], [])

    def _ndrange_targets(self, node: ast.For, it: ast.Call) -> list[ast.Name]:
        """The names of `for i, j, ... in tack.ndrange(a, b, ...)`: one per argument, of any
        count (as many as an array has dimensions), a size or a (start, end) pair each."""
        names = node.target.elts if isinstance(node.target, ast.Tuple) else [node.target]
        if it.keywords or any(isinstance(a, ast.Starred) for a in it.args):
            raise self.unsupported(it, "ndrange() with keyword or starred arguments",
                                   "write each extent: tack.ndrange(n, (start, end), ...)")
        if not it.args or len(names) != len(it.args) or not all(
                isinstance(t, ast.Name) for t in names):
            raise self.unsupported(node.target, f"ndrange loop with {len(names)} target(s) for "
                                                f"its {len(it.args)} argument(s)",
                                   "write one name per argument: `for i, j in "
                                   "tack.ndrange(n, m)`, `for i, j, k, m in tack.ndrange(a, b, "
                                   "c, d)`")
        return names

    def _seq_object(self, node: ast.For) -> list[Stmt]:
        """`for c in obj`: the loops of `range(obj.n)` or `ndrange(obj.nz, obj.ny, obj.nx)`, with
        `c` the vector of indices (c[0] fastest), as for the parallel loop."""
        call, _, loop_vars, vector = self._object_loop(node)
        loc = self.src.loc(node)
        args = call.args
        bounds = [(Expr(Op.CONST, None, (), 0, loc), self.expr(a)) for a in args]
        return self._nested_loops(node, bounds, list(loop_vars), vector or [])

    def _nested_loops(self, node: ast.For, bounds: list, names: list[str],
                      first: list[Stmt]) -> list[Stmt]:
        loc = self.src.loc(node)
        out: list[Stmt] = []
        fixed = []
        for start, stop in bounds:  # evaluated once, before the outer loop
            pair = []
            for e in (start, stop):
                if e.op not in (Op.CONST, Op.VAR):
                    t = self.fresh("nd")
                    out.append(Assign(e.loc, t, e))
                    e = Expr(Op.VAR, None, (), t, e.loc)
                pair.append(e)
            fixed.append(pair)
        for n in names:
            self.assigned.add(n)
        self.loop_depth += 1
        body = first + self.block(node.body)
        self.loop_depth -= 1
        flag = None
        if len(names) > 1 and _breaks(body):
            flag = self.fresh("ndbrk")
            out.append(Assign(loc, flag, Expr(Op.CONST, dt.i32, (), 0, loc)))
            body = _flag_breaks(body, flag, loc)
        for k in range(len(names) - 1, -1, -1):  # innermost (fastest) first
            start, stop = fixed[k]
            loop = For(loc, names[k], start, stop, None, body)
            body = [loop]
            if flag is not None and k > 0:
                body.append(If(loc, Expr(Op.VAR, None, (), flag, loc), [Break(loc)], []))
        return out + body


def _breaks(stmts: list[Stmt]) -> bool:
    """Whether a `break` of this loop (not of a loop nested in it) is among `stmts`."""
    for s in stmts:
        if isinstance(s, Break):
            return True
        if isinstance(s, If) and (_breaks(s.then) or _breaks(s.orelse)):
            return True
    return False


def _flag_breaks(stmts: list[Stmt], flag: str, loc) -> list[Stmt]:
    """Each `break` of this loop also sets `flag`, so that the outer levels stop too."""
    out: list[Stmt] = []
    for s in stmts:
        if isinstance(s, Break):
            out += [Assign(s.loc, flag, Expr(Op.CONST, dt.i32, (), 1, s.loc)), s]
        elif isinstance(s, If):
            out.append(If(s.loc, s.cond, _flag_breaks(s.then, flag, loc),
                          _flag_breaks(s.orelse, flag, loc)))
        else:
            out.append(s)
    return out
