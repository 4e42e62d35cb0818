"""Statement generation: stores to the iteration's own output rows, typed locals, control flow
(`if`, `for`, `while`, `break`/`continue`) with bounded trip counts."""
from __future__ import annotations

from ..oracle import BY_NAME, F32, F64, I32, I64, ST, WEAK, promote
from .grammar import FLOAT_LITERALS, FLOAT_TYPES
from .operands import E
from .scopes import _Scope
from .spec import Param


class Statements:
    """Statement productions of `KernelGen`."""

    def block(self, nesting: int, in_loop: bool, top: bool = False) -> list:
        out = []
        for _ in range(self.ch.integer(1, self.max_stmts)):
            out += self.stmt(nesting, in_loop, top)
        return out

    def stmt(self, nesting: int, in_loop: bool, top: bool) -> list:
        kinds = ["store", "assign_new", "store_aug", "assign_old", "aug_local", "tuple"]
        if nesting <= self.max_nesting:
            kinds += ["if", "for", "while"]
        if in_loop:
            kinds.append("break_continue")
        if top and "continue_parallel" not in self.avoid:
            kinds.append("continue_outer")
        kind = self.ch.choose(kinds)
        d = self.max_depth
        if kind == "store":
            return [self.store(d)]
        if kind == "assign_new":
            return [self.assign_new(d)]
        if kind == "store_aug":
            return [self.store_aug(d)]
        if kind == "assign_old":
            return self.assign_old(d)
        if kind == "aug_local":
            return self.aug_local(d)
        if kind == "tuple":
            return self.tuple_assign(d)
        if kind == "if":
            return self.if_(nesting, in_loop)
        if kind == "for":
            return self.for_(nesting)
        if kind == "while":
            return self.while_(nesting)
        word = "break" if kind == "break_continue" and self.ch.flip(0.5) else "continue"
        if self.ch.flip(0.1):
            return [word]
        return [f"if {self.expr(1).code}:", [word]]

    def nested(self, nesting: int, in_loop: bool, declare=None) -> list:
        self.scopes.append(_Scope())
        if declare:  # a loop variable: reassigning it (rarely) must not change the iteration
            mutable = self.ch.flip(0.1)
            self.declare(*declare[:2], mutable=mutable, rng=None if mutable else declare[2])
        body = self.block(nesting + 1, in_loop)
        self.scopes.pop()
        return body

    def if_(self, nesting, in_loop) -> list:
        out = [f"if {self.expr(self.max_depth).code}:", self.nested(nesting, in_loop)]
        for _ in range(self.ch.integer(0, 1)):
            out += [f"elif {self.expr(2).code}:", self.nested(nesting, in_loop)]
        if self.ch.flip(0.5):
            out += ["else:", self.nested(nesting, in_loop)]
        return out

    def for_(self, nesting) -> list:
        ch = self.ch
        var = self.new_name("j")
        form = ch.choose(["stop", "start_stop", "step", "dynamic", "dynamic_step", "typed"])
        if form == "stop":
            stop = ch.integer(0, 5)
            args, rng = f"{stop}", (0, max(stop - 1, 0))
        elif form == "start_stop":
            a, b = ch.integer(-3, 3), ch.integer(-2, 6)
            args, rng = f"{a}, {b}", (a, max(a, b - 1))
        elif form == "step":
            step = ch.choose([2, -1, -2, 3, -3, 1])
            a, b = ch.integer(-4, 6), ch.integer(-4, 6)
            args = f"{a}, {b}, {step}"
            rng = (min(a, b), max(a, b))
        elif form == "dynamic":
            a = ch.integer(-2, 2)
            stop = self.small_int(0, 4)
            args, rng = f"{a}, {stop}", (a, max(a, 3))
        elif form == "dynamic_step":  # a step of either sign, known only at run time
            a, b = ch.integer(-4, 6), ch.integer(-4, 6)
            args = f"{a}, {b}, ({self.small_int(0, 1)} * 2 - 1)"
            rng = (min(a, b), max(a, b))
        else:  # typed bounds: the loop variable takes their promoted type
            t = ch.choose([I64, BY_NAME["u8"], BY_NAME["i16"], BY_NAME["u32"]])
            a, b = ch.integer(0, 2), ch.integer(0, 5)
            args, rng = f"tack.{t.name}({a}), {b}", (a, max(a, b - 1))
            lt = promote(I32, t)
            body = self.nested(nesting, True, declare=(var, lt, rng))
            return [f"for {var} in range({args}):", body]
        body = self.nested(nesting, True, declare=(var, I32, rng))
        return [f"for {var} in range({args}):", body]

    def while_(self, nesting) -> list:
        var = self.new_name("w")
        limit = self.ch.integer(1, 4)
        cond = f"{var} < {limit}"
        if self.ch.flip(0.4):
            cond += f" and {self.expr(1).code}"
        self.scopes.append(_Scope())
        self.declare(var, I32, mutable=False)
        body = [f"{var} += 1"] + self.block(nesting + 1, True)
        self.scopes.pop()
        return [f"{var} = 0", f"while {cond}:", body]

    def small_int(self, lo: int, hi: int) -> str:
        """An i32 expression with a value in [lo, hi]."""
        e = self.int_expr(1)
        mask = 3 if hi - lo >= 3 else 1
        m = self.like(mask, e.t)
        return f"(int({e.code} & {m.code}) + {lo})" if lo else f"int({e.code} & {m.code})"

    def outputs(self) -> list:
        return [p for p in self.params if p.role == "out"]

    def out_target(self, p: Param | None = None) -> tuple[str, ST]:
        p = p or self.ch.choose(self.outputs())
        if not p.cols:
            return f"{p.name}[i]", p.t
        col = self.column(p.cols)
        if self.ch.flip(0.3) and col.isdigit():
            return f"{p.name}[i * {p.cols} + {col}]", p.t
        return f"{p.name}[i, {col}]", p.t

    def column(self, cols: int) -> str:
        for name in self.visible():
            r = self.known_range(name)
            if r is not None and 0 <= r[0] and r[1] < cols and self.ch.flip(0.5):
                return name
        return str(self.ch.integer(0, cols - 1))

    def store(self, d, p: Param | None = None) -> str:
        tgt, t = self.out_target(p)
        e = self.expr(d)
        if t.is_int and not e.t.is_int:
            e = self.clamp(e, t) if self.ch.flip(0.5) else self.cast(e, t)
        return f"{tgt} = {e.code}"

    def store_aug(self, d) -> str:
        tgt, t = self.out_target()
        op, rhs = self.aug_operand(E(tgt, t), d)
        return f"{tgt} {op}= {rhs.code}"

    def aug_operand(self, target: E, d) -> tuple[str, E]:
        """An augmented operator and a right side whose result converts back to target's type."""
        t = target.t
        ops = ["+", "-", "*", "//", "%"] + (["&", "|", "^", "<<", ">>"] if t.is_int else ["/"])
        op = self.ch.choose(ops)
        if op in ("//", "%"):
            self.in_divmod += 1
        try:
            e = self.expr(d - 1)
        finally:
            if op in ("//", "%"):
                self.in_divmod -= 1
        if op in ("//", "%"):
            if t.is_int:  # the divisor's type must join into t, like the dividend's
                return op, self.fit(self.int_divisor(self.fit(e, t)), t)
            return op, self.fit(self.float_divisor(e), t)
        if op in ("<<", ">>"):
            return op, self.shift_count(t)
        if t.is_int:
            e = self.fit(e, t)
        elif t is F32 and e.t is F64:
            e = self.cast(e, F32)
        return op, self.weak_ok(e, target)

    def assign_new(self, d, scalars_only=False) -> str:
        name = self.new_name()
        e = self.expr(d, scalars_only=scalars_only)
        if e.t is WEAK:
            bare = e.code.strip("()") in FLOAT_LITERALS or e.code.strip("()") in (
                "-" + f for f in FLOAT_LITERALS)
            if self.ch.flip(0.5) and (bare or "weak_local_expr" not in self.avoid):
                # assigned once to float literals: the local stays weak (since 0.4.0;
                # docs/language.md "Integer and float rules")
                self.declare(name, WEAK, mutable=False)
                return f"{name} = {e.code}"
            e = self.cast(e, self.ch.choose(FLOAT_TYPES))
        self.declare(name, e.t)
        return f"{name} = {e.code}"

    def assign_old(self, d) -> list:
        cands = self.mutable()
        if not cands:
            return [self.assign_new(d)]
        name, t = self.ch.choose(cands)
        return [f"{name} = {self.fit(self.expr(d), t).code}"]

    def tuple_assign(self, d) -> list:
        """`a, b = x, y`: the whole right side first (so `a, b = b, a` swaps), then the targets."""
        cands = self.mutable()
        if len(cands) < 2:
            return [self.assign_new(d)]
        (n1, t1), (n2, t2) = self.ch.choose(cands), self.ch.choose(cands)
        if n1 == n2:
            return [f"{n1} = {self.fit(self.expr(d - 1), t1).code}"]
        if self.ch.flip(0.3) and t1 is t2:
            return [f"{n1}, {n2} = {n2}, {n1}"]
        e1, e2 = self.fit(self.expr(d - 1), t1), self.fit(self.expr(d - 1), t2)
        if "tuple_weak" in self.avoid:
            e1, e2 = (self.cast(e, t) if e.t is WEAK else e for e, t in ((e1, t1), (e2, t2)))
        return [f"{n1}, {n2} = {e1.code}, {e2.code}"]

    def aug_local(self, d) -> list:
        cands = self.mutable()
        if not cands:
            return [self.store_aug(d)]
        name, t = self.ch.choose(cands)
        op, rhs = self.aug_operand(E(name, t), d)
        if op == "/" and t is not F64 and t is not F32:
            op = "+"
        return [f"{name} {op}= {rhs.code}"]
