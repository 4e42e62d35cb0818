"""What a harness run found, as plain data that round-trips through standard JSON.

Every value held here is already JSON-safe (a non-finite float is kept as the string `"nan"`,
`"inf"` or `"-inf"`), so `Record.from_dict(json.loads(json.dumps(r.to_dict()))) == r`.
Records are written one file per run under `~/.tack/runs/` (or `$TACK_RUNS_DIR`, or the
`records_dir` a run was given) and listed by `python -m tack.testing runs`.
"""
from __future__ import annotations

import dataclasses
import json
import math
import os
import re
import secrets
import sys
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path

from .summary import line


def json_number(x):
    """A number as JSON can hold it: int, float, or a string for NaN and the infinities."""
    if isinstance(x, bool):
        return int(x)
    if isinstance(x, int) or hasattr(x, "dtype") and x.dtype.kind in "iu":
        return int(x)
    x = float(x)
    return x if math.isfinite(x) else str(x)


@dataclass
class Mismatch:
    """One output of one case that is outside its tolerance."""

    output: int
    count: int  # elements outside the tolerance
    total: int
    unwritten: int  # of those, elements still holding the fill value: never written
    max_abs_error: float | str | None
    examples: list[dict]  # a few {"index": [...], "actual": v, "expected": v}
    message: str


@dataclass
class Failure:
    """A failing case: its shape, layout, dtype and seed, and what was wrong."""

    label: str
    dtype: str
    seed: int
    dims: dict[str, int]
    layout: str
    message: str
    mismatches: list[Mismatch] = field(default_factory=list)
    error: str | None = None  # the exception the subject raised, if it raised


@dataclass
class MinimalCase:
    """The smallest failing case that was observed (never one searched for)."""

    label: str
    seed: int
    repro: str  # one line of Python that runs this case alone
    dtype: str
    dims: dict[str, int]
    layout: str


@dataclass
class CaseResult:
    label: str
    dtype: str
    passed: bool
    seconds: float


@dataclass
class Measurement:
    """Repeated timed blocks of one callable on one case."""

    median_s: float  # per call
    spread: float  # interquartile range of the blocks over their median
    calls_per_block: int
    blocks_s: list[float]  # per-call time of each block
    tier: str  # "A", "B" or "C"


@dataclass
class Timing:
    label: str
    subject: Measurement
    baseline: Measurement
    speedup: float  # baseline time over subject time


@dataclass
class Comparison:
    """Timing on the CANONICAL tier, made only after every correctness case passed."""

    tier: str  # the worst of every measurement, C when the GPU clocks moved
    is_performance_valid: bool
    speedup: float | None  # geometric mean over the timings
    baseline: str  # what the subject was timed against
    timings: list[Timing]
    clocks: dict  # {"checked": bool, "reason": str, "samples_mhz": [...], "moved": bool}


@dataclass
class Record:
    name: str
    passed: bool
    shapes_total: int  # every case run: each shape of each dtype
    shapes_failed: int
    minimal_case: MinimalCase | None
    failures: list[Failure]
    comparison: Comparison | None  # None when the run failed or timing was off
    environment: dict
    path: str | None
    signature: str
    tier: str
    dtypes: list[str]
    seed: int
    op_class: str | None
    fused_ops: list[str]
    tolerances: dict[str, list[float]]  # dtype -> [atol, rtol]
    cases: list[CaseResult]
    created: str  # ISO 8601, UTC
    subject: str  # how the subject is named in `repro`
    kind: str  # "kernel" or "callable"

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> Record:
        return _build(cls, data)

    @classmethod
    def load(cls, path) -> Record:
        with open(path, encoding="utf-8") as f:
            rec = cls.from_dict(json.load(f))
        rec.path = str(path)
        return rec

    def summary(self) -> str:
        """One line: PASS/FAIL, the count of failing shapes, the minimal case or the timing."""
        return line(self)

    def __str__(self) -> str:
        return self.summary()


def _build(cls, data):
    """A dataclass instance from its `asdict` form, nested dataclasses included."""
    hints = typing.get_type_hints(cls, vars(sys.modules[__name__]))
    kwargs = {}
    for f in dataclasses.fields(cls):
        kwargs[f.name] = _convert(hints[f.name], data[f.name])
    return cls(**kwargs)


def _convert(hint, value):
    if value is None:
        return None
    args = typing.get_args(hint)
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        inner = [a for a in args if dataclasses.is_dataclass(a)]
        return _build(inner[0], value) if inner else value
    if typing.get_origin(hint) is list and args and dataclasses.is_dataclass(args[0]):
        return [_build(args[0], v) for v in value]
    if dataclasses.is_dataclass(hint):
        return _build(hint, value)
    return value


def runs_dir(records_dir=None) -> Path:
    """Where records go: `records_dir`, else `$TACK_RUNS_DIR`, else `~/.tack/runs`."""
    if records_dir not in (None, True):
        return Path(records_dir).expanduser()
    env = os.environ.get("TACK_RUNS_DIR")
    return Path(env).expanduser() if env else Path.home() / ".tack" / "runs"


def write(record: Record, records_dir=None) -> Path:
    """Write `record` as one JSON file (atomically) and set `record.path`."""
    folder = runs_dir(records_dir)
    folder.mkdir(parents=True, exist_ok=True)
    stamp = record.created.replace("-", "").replace(":", "").replace("+0000", "")
    safe = re.sub(r"[^A-Za-z0-9_.]+", "_", record.name)[:60] or "subject"
    path = folder / f"{stamp}-{safe}-{secrets.token_hex(3)}.json"
    record.path = str(path)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(record.to_dict(), indent=1, allow_nan=False), encoding="utf-8")
    os.replace(tmp, path)
    return path


def load_all(records_dir=None) -> tuple[list[Record], list[str]]:
    """Every record in the folder, oldest first, and a note for each file that is not one."""
    folder = runs_dir(records_dir)
    out, skipped = [], []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else ():
        try:
            out.append(Record.load(path))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            skipped.append(f"{path.name}: not a harness record ({type(exc).__name__}: {exc})")
    out.sort(key=lambda r: r.created)
    return out, skipped
