"""Cast rows: one 64-bit value, narrowed and widened again along several cast chains, stored to
every column of the iteration's row of a wide output and to outputs of other widths.

Straight-line stores of sibling casts of one value to adjacent elements are what the SLP
vectorizer turns into one vector of mixed sign and zero extensions (`shl`/`ashr` lanes beside
`and` lanes, blended). That shape met a backend miscompile on AVX-512 hosts
(docs/design/002-cpu-engine.md, "Vector shifts by out-of-range constants"); a kernel built of
scattered scalar expressions almost never produces it, so the generator builds it on purpose.
"""
from __future__ import annotations

from ..oracle import BY_NAME, I64, U64
from .grammar import INT_TYPES
from .operands import E
from .spec import Param

# intermediate types of a chain, narrow ones first (hypothesis shrinks toward them)
NARROW = [BY_NAME[n] for n in ("i16", "u16", "i32", "u32", "i8", "u8")]
# the wide output's dtype: 64-bit, where the extensions are the stored values themselves
WIDE_TYPES = [I64, U64]


class CastRows:
    """The cast-row productions of `KernelGen` (a kernel-level feature: `draw_cast_row` adds
    its parameters, `cast_row` its statements)."""

    def draw_cast_row(self) -> None:
        """Maybe (a `cast_rows` share of kernels) add a 64-bit input `b` and a wide output `w`
        for a cast row: `row_reps` groups of `row_width` columns, each group the same chains
        applied to another value (as in an unrolled loop body, the same vector constants twice
        in one block: what kept the out-of-range lane alive into code generation)."""
        ch = self.ch
        self.cast_row_on = ch.flip(self.cast_rows)
        if self.cast_row_on:
            self.row_width, self.row_reps = ch.choose([4, 8, 5]), ch.choose([1, 2])
            self.params.append(Param("b", "array", ch.choose([U64, I64])))
            # role "row": written by the cast row only, so no other store splits its columns
            self.params.append(Param("w", "array", ch.choose(WIDE_TYPES), role="row",
                                     cols=self.row_width * self.row_reps))

    def cast_row(self) -> list:
        """`x = <64-bit value>` then `w[i, k] = <cast chain of x>` for every column k of a
        group, the chains repeated on a second value for a second group, and the first value's
        chains stored to some of the 1-D integer outputs too: several outputs of mixed widths."""
        ch = self.ch
        b = next(p for p in self.params if p.name == "b")
        w = next(p for p in self.params if p.name == "w")
        # distinct first casts, signed and unsigned mixed: sibling lanes that do not fold together
        firsts = list(NARROW)
        for k in range(len(firsts) - 1, 0, -1):
            j = ch.integer(0, k)
            firsts[k], firsts[j] = firsts[j], firsts[k]
        chains = [self.cast_chain(b.t, w.t, firsts[j % len(firsts)])
                  for j in range(self.row_width)]
        out, values = [], []
        for r in range(self.row_reps):
            src = E("b[i]", b.t)
            if r or ch.flip(0.2):  # an expression of it: the value need not come from memory
                other = self.fit(self.int_expr(0), b.t)
                src = E(f"({src.code} {ch.choose(['^', '+', '*'])} {other.code})", b.t)
            x = self.new_name("x")
            self.declare(x, b.t, mutable=False)
            out.append(f"{x} = {src.code}")
            values.append(x)
        for r, x in enumerate(values):
            for j, chain in enumerate(chains):
                out.append(f"w[i, {r * self.row_width + j}] = {chain(x)}")
        for p in self.outputs():
            if p.kind == "array" and not p.cols and p.t.is_int and ch.flip(0.5):
                out.append(f"{p.name}[i] = {self.cast_chain(b.t, p.t)(values[0])}")
        return out

    def cast_chain(self, src, final, first=None):
        """A function of a value's name: the value (of type `src`) narrowed (to `first` if
        given) and maybe widened again through up to two more integer types, ending in `final`
        (or left for the store to convert), or a sign test (the bit a sign-extended lane fills
        with)."""
        ch = self.ch
        if ch.flip(0.1):
            if src is U64:
                bound = ch.choose([2 ** 63 - 1, 2 ** 63, 255])
                return lambda x: f"({x} < tack.u64({bound}))"
            op = ch.choose(["<", ">="])
            return lambda x: f"({x} {op} 0)"
        names = [(first or ch.choose(NARROW)).name]
        names += [ch.choose(NARROW).name for _ in range(ch.choose([0, 0, 1, 2]))]
        if ch.flip(0.6):
            names.append(final.name if ch.flip(0.5) else ch.choose([I64, U64] + INT_TYPES).name)

        def chain(x: str) -> str:
            for name in names:
                x = f"tack.{name}({x})"
            return x
        return chain
