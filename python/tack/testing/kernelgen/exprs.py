"""Expression generation: one method per production, leaves (variables, literals, constants,
loads), each returning an `E` typed as Tack types it."""
from __future__ import annotations

from ..oracle import F32, I32, I64, TYPES, U64, WEAK, Rejected, Runtime, promote
from .grammar import CONSTANTS, FLOAT_LITERALS, FLOAT_TYPES, INT_LITERALS, MATH1, MATH2
from .operands import E, _lit, exact, literal_expr


class Expressions:
    """Expression productions of `KernelGen`."""

    # `expr` picks one of these; the method `p_<name>` builds it. The order matters: hypothesis
    # shrinks toward the first ones, and a seed's kernel depends on it.
    PRODUCTIONS = ("arith", "cmp", "cast", "ifexp", "minmax", "divmod", "truediv", "bitwise",
                   "shift", "pow", "unary", "math1", "math2", "boolop", "not", "chain",
                   "literals")

    def expr(self, d: int, scalars_only: bool = False) -> E:
        """An expression of nesting depth at most `d` (a leaf at 0, and a quarter of the time)."""
        if d <= 0 or self.ch.flip(0.25):
            return self.leaf(scalars_only)
        kind = self.ch.choose(self.PRODUCTIONS)
        return getattr(self, "p_" + kind)(lambda: self.expr(d - 1, scalars_only), scalars_only)

    # -- productions: each gets `sub()`, which draws a sub-expression one level shallower ---------
    def p_arith(self, sub, scalars_only) -> E:
        return self.arith(self.ch.choose(["+", "-", "*"]), sub(), sub())

    def p_cmp(self, sub, scalars_only) -> E:
        a, b = self.unify(sub(), sub())
        op = self.ch.choose(["<", "<=", ">", ">=", "==", "!="])
        if a.value is not None and b.value is not None:  # of literals: the literal 0 or 1
            return literal_expr(f"({a.code} {op} {b.code})", exact(op, a.value, b.value))
        return E(f"({a.code} {op} {b.code})", I32)

    def p_chain(self, sub, scalars_only) -> E:
        """`a < b >= c`: a leaf instead where a pair would need a cast to compare."""
        a, b, c = sub(), sub(), sub()
        try:
            promote(a.t, b.t), promote(b.t, c.t)
        except Rejected:
            return self.leaf(scalars_only)
        if any(self.weak_ok(x, y) is not x for x, y in ((a, b), (b, a), (b, c), (c, b))):
            return self.leaf(scalars_only)
        o1, o2 = self.ch.choose(["<", "<="]), self.ch.choose(["<", ">=", "!="])
        code = f"({a.code} {o1} {b.code} {o2} {c.code})"
        if all(x.value is not None for x in (a, b, c)):  # of literals: the literal 0 or 1
            return literal_expr(code, exact(o1, a.value, b.value) & exact(o2, b.value, c.value))
        return E(code, I32)

    def p_cast(self, sub, scalars_only) -> E:
        e = sub()
        return self.cast(e, self.ch.choose(TYPES))

    def p_ifexp(self, sub, scalars_only) -> E:
        a, b = self.unify(sub(), sub())
        c = sub()
        return E(f"({a.code} if {c.code} else {b.code})", Runtime._pe(a.t, b.t, a.lit, b.lit))

    def p_minmax(self, sub, scalars_only) -> E:
        return self.minmax(self.ch.choose(["min", "max"]), sub)

    def p_divmod(self, sub, scalars_only) -> E:
        """`a // b` or `a % b` with a divisor that cannot be zero."""
        if self.in_divmod and "nested_divmod" in self.avoid:
            return self.p_arith(sub, scalars_only)
        op = self.ch.choose(["//", "%"])
        self.in_divmod += 1
        try:
            a, b = sub(), sub()
        finally:
            self.in_divmod -= 1
        if a.t.is_int and b.t.is_int:
            return self.arith(op, a, self.int_divisor(b))
        return self.arith(op, a, self.float_divisor(b))

    def p_truediv(self, sub, scalars_only) -> E:
        """`a / b`: f32 for two integers (any divisor: a float quotient is defined)."""
        a, b = sub(), sub()
        if not (a.t.is_int and b.t.is_int):
            a, b = self.weak_ok(a, b), self.weak_ok(b, a)
            t = Runtime._pe(a.t, b.t, a.lit, b.lit)
        else:
            t = F32
        return E(f"({a.code} / {b.code})", t)

    def p_bitwise(self, sub, scalars_only) -> E:
        return self.arith(self.ch.choose(["&", "|", "^"]), self.int_of(sub()), self.int_of(sub()))

    def p_shift(self, sub, scalars_only) -> E:
        a = self.int_of(sub())
        op = self.ch.choose(["<<", ">>"])
        n = self.shift_count(a.t)
        if a.value is not None and n.value is not None:  # computed exactly, typed by value
            v = exact(op, a.value, n.value)
            if v is not None:
                return literal_expr(f"({a.code} {op} {n.code})", v)
            a = self.typed(a)
        return E(f"({a.code} {op} {n.code})", a.t)

    def p_unary(self, sub, scalars_only) -> E:
        """`-e`, `abs(e)` or `~e`; minus a literal is the negative literal, as Tack folds it."""
        e = sub()
        op = self.ch.choose(["-", "abs", "~"])
        if op == "~":
            e = self.int_of(e)
            if e.value is not None and exact("~", e.value) is not None:
                return literal_expr(f"(~{e.code})", exact("~", e.value))
            e = self.typed(e)  # ~ of a u64 literal: no literal, it wraps as a u64
            return E(f"(~{e.code})", e.t)
        if op == "abs":
            if e.value is not None:
                return literal_expr(f"abs({e.code})", abs(e.value))
            return E(f"abs({e.code})", e.t)
        if e.value is not None:  # -5, -K0, -(2 ** 40): the literal of its value
            if exact("neg", e.value) is not None:
                bare = e.code.strip("()-").isdigit()
                return _lit(-e.value) if bare else literal_expr(f"(-{e.code})", -e.value)
            e = self.typed(e)  # minus a u64 past 2**63 is no literal: it wraps as a u64
        return E(f"(-{e.code})", e.t)

    def p_math1(self, sub, scalars_only) -> E:
        e = sub()
        if "math_int_literal" in self.avoid and e.lit:
            e = self.cast(e, F32)
        return E(f"{self.ch.choose(MATH1)}({e.code})", F32 if e.t.is_int else e.t)

    def p_boolop(self, sub, scalars_only) -> E:
        word = self.ch.choose([" and ", " or "])
        return E("(" + word.join(sub().code for _ in range(self.ch.integer(2, 3))) + ")", I32)

    def p_not(self, sub, scalars_only) -> E:
        return E(f"(not {sub().code})", I32)

    def minmax(self, fn: str, sub) -> E:
        """min/max of 2 or 3 arguments: Tack nests them pairwise, left first; a pair of
        literals is the literal of its value."""
        acc = sub()
        codes = [acc.code]
        for _ in range(self.ch.integer(1, 2)):
            b = sub()
            try:
                promote(acc.t, b.t)
            except Rejected:  # cast the new argument, never the accumulated minimum
                b = self.cast(b, U64 if acc.t is U64 else I64)
            if self.weak_ok(b, acc) is not b or self.weak_ok(acc, b) is not acc:
                b = self.cast(b, F32)
            codes.append(b.code)
            if acc.value is not None and b.value is not None:
                acc = literal_expr("", exact(fn, acc.value, b.value))
            else:
                acc = E("", Runtime._pe(acc.t, b.t, acc.lit, b.lit))
        return E(f"{fn}({', '.join(codes)})", acc.t, acc.lit, acc.const, acc.value)

    def p_pow(self, sub, scalars_only) -> E:
        """`a ** n` (or `pow`): a masked integer exponent, or a float power of a float base."""
        a = sub()
        if a.t.is_int and self.ch.flip(0.6):
            if self.ch.flip(0.5):
                n = _lit(self.ch.integer(0, 5))
            else:
                c = self.int_expr(1)
                n = self.arith("&", c, self.like(3, c.t))
            code = "pow({}, {})" if self.ch.flip(0.2) else "({} ** {})"
            if a.value is not None and n.value is not None:  # computed exactly, typed by value
                v = exact("**", a.value, n.value)
                if v is not None:
                    return literal_expr(code.format(a.code, n.code), v)
                a = self.typed(a)
            return E(code.format(a.code, n.code), a.t)
        b = self.ch.choose([_lit(2), _lit(3), E("0.5", WEAK), None])
        if b is None:
            b = sub()
        if a.t.is_int and b.t.is_int:
            a = self.cast(a, self.ch.choose(FLOAT_TYPES))
        a, b = self.weak_ok(a, b), self.weak_ok(b, a)
        return E(f"({a.code} ** {b.code})", Runtime._pe(a.t, b.t, a.lit, b.lit))

    def p_literals(self, sub, scalars_only) -> E:
        """An integer expression of literals only, often far past 32 bits (`(2 ** 40)`,
        `((10 ** 12) // 7)`, `(1 << 62)`): Tack computes it exactly and types it by its value."""
        for _ in range(4):
            e = self.literal_tree(self.ch.integer(1, 2))
            if e is not None:
                return e
        return self.leaf(scalars_only)

    def literal_tree(self, d: int) -> E | None:
        ch = self.ch
        if d <= 0:
            return _lit(ch.choose(INT_LITERALS + (10, 12, 40, 62, 5)))
        op = ch.choose(["**", "<<", ">>", "+", "-", "*", "//", "%", "&", "|", "^", "~", "neg"])
        if op in ("~", "neg"):
            a = self.literal_tree(d - 1)
            v = None if a is None else exact(op, a.value)
            return None if v is None else literal_expr(f"({'~' if op == '~' else '-'}{a.code})", v)
        if op == "**":
            a, b = _lit(ch.choose([2, 3, 10, -2, 7, -1])), _lit(ch.integer(0, 64))
        elif op in ("<<", ">>"):
            a, b = self.literal_tree(d - 1), _lit(ch.integer(0, 70))
        else:
            a, b = self.literal_tree(d - 1), self.literal_tree(d - 1)
        if a is None or b is None:
            return None
        v = exact(op, a.value, b.value)
        return None if v is None else literal_expr(f"({a.code} {op} {b.code})", v)

    def p_math2(self, sub, scalars_only) -> E:
        name = self.ch.choose(MATH2)
        args = [sub(), sub()]
        if "weak_bool" in self.avoid and any(x.code in ("True", "False") for x in args):
            args = [self.cast(x, F32) if x.t is WEAK else x for x in args]
        if all(x.t.is_int for x in args):
            t = F32
        else:
            t = Runtime._pe(args[0].t, args[1].t, args[0].lit, args[1].lit)
        return E(f"{name}({args[0].code}, {args[1].code})", t)

    # -- leaves -----------------------------------------------------------------------------------
    def leaf(self, scalars_only: bool = False) -> E:
        ch = self.ch
        kinds = ["var", "int", "float", "typed", "bool", "constant"]
        if not scalars_only:
            kinds = ["load", "load", "var"] + kinds
        kind = ch.choose(kinds)
        if kind == "load":
            return self.load()
        if kind == "var":
            names = [(n, t) for n, t in self.visible().items()
                     if not (scalars_only and n == "i")]
            if names:
                n, t = ch.choose(names)
                return E(n, t)
            kind = "int"
        if kind == "int":
            if not scalars_only and ch.flip(0.1):  # an extent: an i64 baked into the code
                p = ch.choose([p for p in self.params if p.kind == "array"])
                return E(ch.choose([f"{p.name}.shape[0]", f"len({p.name})"] + (
                    [f"{p.name}.shape[1]"] if p.cols else [])), I64)
            return _lit(ch.choose(INT_LITERALS))
        if kind == "float":
            code = ch.choose(FLOAT_LITERALS)
            return E(f"({code})" if code.startswith("-") else code, WEAK, const=True)
        if kind == "constant":
            _, name, t, value = ch.choose(CONSTANTS)
            return E(name, t, lit=value is not None, const=True, value=value)
        if kind == "typed":
            t = ch.choose(TYPES)
            v = ch.choose(INT_LITERALS[:12])
            if t.kind == "u" and v < 0 and ch.flip(0.5):
                v = -v
            return E(f"tack.{t.name}({v})", t, const=True)
        word = ch.choose(["True", "False"])
        return E(word, I32, lit=True, const=True, value=int(word == "True"))

    def load(self) -> E:
        arrays = [p for p in self.params if p.kind == "array"]
        p = self.ch.choose(arrays)
        if p.depth:
            j, k = self.column(p.cols), self.column(p.depth)
            if self.ch.flip(0.3) and j.isdigit() and k.isdigit():
                return E(f"{p.name}[i * {p.cols * p.depth} + {int(j) * p.depth + int(k)}]", p.t)
            return E(f"{p.name}[i, {j}, {k}]", p.t)
        if p.cols:
            col = self.column(p.cols)
            if self.ch.flip(0.3) and col.isdigit():
                return E(f"{p.name}[i * {p.cols} + {col}]", p.t)
            if p.role == "in" and self.full_range and self.ch.flip(0.2):
                return E(f"{p.name}[{p.name}.shape[0] - 1 - i, {col}]", p.t)
            return E(f"{p.name}[i, {col}]", p.t)
        if p.role == "in" and self.full_range and p.name not in self.aliased and self.ch.flip(0.2):
            return E(f"{p.name}[{p.name}.shape[0] - 1 - i]", p.t)
        return E(f"{p.name}[i]", p.t)
