"""A finding of `tack.check`: one kind of problem at one source location (or pair), as data.

Findings are deduplicated per source location (a pair of them for races, the barrier and the
branch that split the lanes for barrier findings): `count` says how many elements, workgroups or
accesses one finding stands for, and `witnesses` holds a few concrete instances, not thousands.
"""
from __future__ import annotations

import linecache
from dataclasses import dataclass, field, replace

from ..ir.ops import WORKGROUP

KINDS = ("race", "barrier", "pipeline", "bounds", "uninitialized")
ERROR, ADVISORY = "error", "advisory"


@dataclass(frozen=True)
class Finding:
    kind: str  # one of KINDS
    message: str
    locations: tuple[tuple[str, int, int], ...]  # (file, line, col); the first is the culprit
    array: str | None = None
    index: int | None = None  # the first witness's flat element index
    lanes: tuple[int, ...] = ()  # launch indices t of the witnesses' lanes
    count: int = 1
    severity: str = ERROR  # "error" or "advisory"
    kernel: str = ""
    extent: int | None = None  # bounds: the extent the index left
    witnesses: tuple[dict, ...] = field(default=(), compare=False)
    # barrier: where the lanes that missed it parted from the others: {"how": "branch" | "loop"
    # | "break" | "continue" | "exit", "branch": the `if` (or loop) location, "statement": the
    # `break`/`continue` or None, "loop": the loop it left or None} (runtime/sim/trace.Split)
    diverged: dict | None = field(default=None, compare=False)

    @property
    def workgroups(self) -> tuple[int, ...]:
        """The workgroups of the witness lanes, in order, without repeats."""
        return tuple(dict.fromkeys(t // WORKGROUP for t in self.lanes))

    @property
    def key(self) -> tuple:
        """What findings are deduplicated on: kind, kernel, array, locations."""
        return (self.kind, self.kernel, self.array, self.locations)

    def to_dict(self) -> dict:
        """JSON-safe: lists, strings and ints only."""
        return {"kind": self.kind, "severity": self.severity, "kernel": self.kernel,
                "message": self.message, "locations": [list(x) for x in self.locations],
                "array": self.array, "index": self.index, "extent": self.extent,
                "lanes": list(self.lanes), "workgroups": list(self.workgroups),
                "count": self.count, "witnesses": [dict(w) for w in self.witnesses],
                "diverged": _listed(self.diverged)}

    def format(self) -> str:
        """The message, then each location with its source line."""
        lines = [f"{self.kind} ({self.severity}): {self.message}"]
        for file, line, col in dict.fromkeys(self.locations):  # one access twice: shown once
            lines.append(f"  at {file}:{line}:{col}")
            src = linecache.getline(file, line).rstrip("\n")
            if src:
                lines += [f"    {src}", f"    {' ' * max(col - 1, 0)}^"]
        return "\n".join(lines)


def where(site) -> tuple[str, int, int]:
    """A trace Site (or anything with file, line, col) as a location tuple."""
    return (str(site.file), int(site.line), int(site.col))


def lane_text(t: int) -> str:
    """How a lane is named in messages: its launch index, workgroup and lane id."""
    return f"lane {t % WORKGROUP} of workgroup {t // WORKGROUP} (t={t})"


def merge(findings: list[Finding]) -> list[Finding]:
    """One finding per key: counts add up, the first witnesses are kept."""
    out: dict[tuple, Finding] = {}
    for f in findings:
        old = out.get(f.key)
        if old is None:
            out[f.key] = f
        else:
            out[f.key] = replace(old, count=old.count + f.count)
    return list(out.values())


def _listed(d: dict | None) -> dict | None:
    """A `diverged` dict with its location tuples as lists (JSON-safe)."""
    if d is None:
        return None
    return {k: list(v) if isinstance(v, tuple) else v for k, v in d.items()}
