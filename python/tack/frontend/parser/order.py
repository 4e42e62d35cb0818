"""Left-to-right evaluation of operands that have side effects.

The typechecker hoists an atomic to a temporary just before its statement, and an inlined
`@tack.func` puts its body there too (`root.pre`), so an operand that reads memory to the left
of such an effect would be evaluated after it: `f[0] - tack.atomic_add(f, 0, 1.0)` would read
the updated element. Python evaluates left to right, and so does Tack: an operand that reads an
array, left of a later operand with an effect, is bound to a temporary at its own place in
`root.pre` (docs/language.md, "Statements inside the loop"). Kernels without such effects are
parsed exactly as before.
"""
from __future__ import annotations

import ast

from ...ir.nodes import Assign, Expr, ExprStmt, Store
from ...ir.ops import Op
from ...ir.walk import iter_stmts, stmt_exprs

ATOMIC_OPS = frozenset({Op.ATOMIC_ADD, Op.ATOMIC_MIN, Op.ATOMIC_MAX})


def _facts(e: Expr, memo: dict) -> int:
    """Whether `e` reads memory (bit 1) and holds an atomic (bit 2), each node computed once
    per kernel (`memo`: id -> (node, bits)): `pin` asks at every level of a nested
    expression, which rescanning would make quadratic in its depth."""
    got = memo.get(id(e))
    if got is not None:
        return got[1]
    stack = [(e, False)]
    while stack:
        x, ready = stack.pop()
        if id(x) in memo:
            continue
        if not ready:
            stack.append((x, True))
            stack.extend((a, False) for a in x.args if id(a) not in memo)
            continue
        bits = (1 if x.op is Op.LOAD else 0) | (2 if x.op in ATOMIC_OPS else 0)
        for a in x.args:
            bits |= memo[id(a)][1]
        memo[id(x)] = (x, bits)  # keeps `x` alive, so its id is not reused meanwhile
    return memo[id(e)][1]


def _stmts_write(stmts) -> bool:
    """Whether statements (an inlined function's body) store or update memory."""
    for s in iter_stmts(stmts):
        if isinstance(s, (Store, ExprStmt)) or any(x.op in ATOMIC_OPS for x in stmt_exprs(s)):
            return True
    return False


class Ordering:
    """Operands evaluated left to right even when a later one has a side effect."""

    def ordered(self, nodes: list[ast.expr]) -> list[Expr]:
        """`nodes` parsed left to right (see the module docstring)."""
        root = self.root
        vals, marks = [], []
        for n in nodes:
            vals.append(self.expr(n))
            marks.append(len(root.pre))
        return self.pin(vals, marks)

    def pin(self, vals: list[Expr], marks: list[int]) -> list[Expr]:
        """`vals[k]` (whose statements end at `root.pre[marks[k]]`) bound to a temporary when it
        reads memory and a later value, or the statements it put in `root.pre`, has an effect.
        Inside an operand that may not run nothing may move before the statement."""
        root = self.root
        if self.lazy_depth or len(vals) < 2:
            return vals
        inlined = [_stmts_write(root.pre[(marks[k - 1] if k else 0):marks[k]])
                   for k in range(len(vals))]
        memo = root.effect_facts
        atomic = [bool(_facts(v, memo) & 2) for v in vals]
        out, shift = list(vals), 0
        for k, v in enumerate(vals[:-1]):
            later_inlined, later_atomic = any(inlined[k + 1:]), any(atomic[k + 1:])
            if _facts(v, memo) & 1:
                pin = later_inlined or later_atomic
            else:  # an atomic is hoisted by the typechecker in typing order, but after root.pre
                pin = atomic[k] and later_inlined
            if not pin:
                continue
            name = self.fresh("ev")
            root.pre.insert(marks[k] + shift, Assign(v.loc, name, v))
            shift += 1
            out[k] = Expr(Op.VAR, None, (), name, v.loc)
        return out
