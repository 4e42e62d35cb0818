"""Fresh names for the locals a pass introduces (`_cse1`, `_lz2`, `_trips3`, ...)."""
from __future__ import annotations

from ..dtypes import DType


class Names:
    """Allocates `_<prefix><n>`, n counting from 1 over every name this allocator gives (one
    pass, one allocator); a name the kernel already has gets `_` appended until it is free. Each
    new name is declared in `locals_` with its dtype, so the next one sees it taken."""

    def __init__(self, locals_: dict[str, DType], prefix: str = ""):
        self.locals = locals_
        self.prefix = prefix
        self.n = 0

    def fresh(self, t: DType, prefix: str | None = None) -> str:
        self.n += 1
        name = f"_{self.prefix if prefix is None else prefix}{self.n}"
        while name in self.locals:
            name += "_"
        self.locals[name] = t
        return name
