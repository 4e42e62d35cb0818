"""The names Tack makes: fresh locals of the passes and the frontend, hidden parameters,
object attributes and vector components, all spelled with `SEP`.

Every generated name holds `SEP` ("."), which no Python identifier holds, so it cannot be a
name the user wrote: a parameter `g__n` beside an object `g` with an attribute `n` (which
becomes `g.n`), or a parameter called `__start`, `_i` or `__ret`, means what it says. The
renderers print them as valid names of their targets: LLVM identifiers take `.`; the Julia
printer spells them without it (render/julia/ka.py, `_julia_name`).
"""
from __future__ import annotations

from ..dtypes import DType

SEP = "."


def hidden(name: str) -> str:
    """A parameter or variable only Tack uses: `.start`, `.ret`, `.dbg`."""
    return SEP + name


def member(*parts) -> str:
    """A name derived from a user's: an object attribute `g.n`, a vector component `v.0`."""
    return SEP.join(str(p) for p in parts)


def numbered(prefix: str, n: int) -> str:
    """The n-th fresh name of a kind: `.cse3`, `.t7`."""
    return f"{SEP}{prefix}{n}"


class Names:
    """Allocates `.<prefix><n>`, n counting from 1 over every name this allocator gives (one
    pass, one allocator); a name the kernel already has gets `_` appended until it is free. Each
    new name is declared in `locals_` with its dtype, so the next one sees it taken."""

    def __init__(self, locals_: dict[str, DType], prefix: str = ""):
        self.locals = locals_
        self.prefix = prefix
        self.n = 0

    def fresh(self, t: DType, prefix: str | None = None) -> str:
        self.n += 1
        name = numbered(self.prefix if prefix is None else prefix, self.n)
        while name in self.locals:
            name += "_"
        self.locals[name] = t
        return name
