"""Names in scope while a kernel is generated: their types, which may be reassigned, and the
known value range of loop variables (so a column index can be a loop variable)."""
from __future__ import annotations

from dataclasses import dataclass, field

from ..oracle import ST


@dataclass
class _Scope:
    names: dict = field(default_factory=dict)  # readable name → type
    mutable: set = field(default_factory=set)  # names that may be reassigned
    ranges: dict = field(default_factory=dict)  # loop variable → (lo, hi) inclusive, if known



class Scopes:
    """The scope stack of `KernelGen` (`self.scopes`, innermost last)."""

    def declare(self, name: str, t: ST, mutable=True, rng=None):
        s = self.scopes[-1]
        s.names[name] = t
        if mutable:
            s.mutable.add(name)
        if rng is not None:
            s.ranges[name] = rng

    def visible(self) -> dict:
        out = {}
        for s in self.scopes:
            out.update(s.names)
        return out

    def mutable(self) -> list:
        return [(n, t) for s in self.scopes for n, t in s.names.items() if n in s.mutable]

    def known_range(self, name):
        for s in reversed(self.scopes):
            if name in s.ranges:
                return s.ranges[name]
        return None

    def new_name(self, prefix="v") -> str:
        self.n_locals += 1
        return f"{prefix}{self.n_locals}"
