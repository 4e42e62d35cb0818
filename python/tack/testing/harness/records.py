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
import stat
import sys
import types
import typing
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from ...errors import TackValueError
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
        """The record `to_dict` gave; RecordError when `data` is not one (a field missing or
        of another type, a `created` that is no ISO 8601 time)."""
        rec = _build(cls, data)
        try:
            datetime.fromisoformat(rec.created)
        except ValueError:
            raise RecordError(f"created: not an ISO 8601 time: {rec.created!r}") from None
        return rec

    @classmethod
    def load(cls, path) -> Record:
        """The record stored at `path`; RecordError (naming the file) when it holds none."""
        try:
            with open(path, encoding="utf-8") as f:
                rec = cls.from_dict(json.load(f))
        except (ValueError, RecursionError) as exc:  # not JSON, not UTF-8, nested too deep
            raise RecordError(f"{path} is not a harness record: {exc}") from None
        rec.path = str(path)
        return rec

    def summary(self) -> str:
        """One line: PASS/FAIL, the count of failing shapes, the minimal case or the timing."""
        return line(self)

    def __str__(self) -> str:
        return self.summary()


class RecordError(TackValueError):
    """A JSON file that is not a harness record: a field missing or of the wrong type."""


def _build(cls, data, where: str = ""):
    """A dataclass instance from its `asdict` form, nested dataclasses included; RecordError
    when a field is missing or holds a value of another type than the field declares."""
    if not isinstance(data, dict):
        raise RecordError(f"{where or cls.__name__}: expected an object, got "
                          f"{type(data).__name__}")
    hints = typing.get_type_hints(cls, vars(sys.modules[__name__]))
    kwargs = {}
    for f in dataclasses.fields(cls):
        if f.name not in data:
            raise RecordError(f"{where}{f.name}: missing")
        kwargs[f.name] = _convert(hints[f.name], data[f.name], f"{where}{f.name}")
    return cls(**kwargs)


_SCALARS = {str: (str,), bool: (bool,), int: (int,), float: (int, float)}


def _convert(hint, value, where: str):
    """`value` as the field's `hint` holds it, checked: JSON gives dicts, lists and scalars."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        for a in args:
            if a is not type(None):
                try:
                    return _convert(a, value, where)
                except RecordError:
                    continue
        raise RecordError(f"{where}: {type(value).__name__} is none of {hint}")
    if dataclasses.is_dataclass(hint):
        return _build(hint, value, f"{where}.")
    if hint in _SCALARS:
        if isinstance(value, _SCALARS[hint]) and (hint is bool or not isinstance(value, bool)):
            return value
        raise RecordError(f"{where}: expected {hint.__name__}, got {type(value).__name__}")
    kind = origin or hint
    if kind not in (list, dict) or not isinstance(value, kind):
        raise RecordError(f"{where}: expected {getattr(kind, '__name__', kind)}, got "
                          f"{type(value).__name__}")
    if kind is list:
        return [_convert(args[0], v, f"{where}[{k}]") for k, v in enumerate(value)] \
            if args else value
    if args:  # dict[str, X]: JSON keys are strings already
        return {k: _convert(args[1], v, f"{where}[{k!r}]") for k, v in value.items()}
    return value


def runs_dir(records_dir=None) -> Path:
    """Where records go: `records_dir`, else `$TACK_RUNS_DIR`, else `~/.tack/runs`."""
    if records_dir not in (None, True):
        return Path(records_dir).expanduser()
    env = os.environ.get("TACK_RUNS_DIR")
    return Path(env).expanduser() if env else Path.home() / ".tack" / "runs"


def folder_for_writing(records_dir=None) -> Path:
    """The records folder, created if missing; TackValueError if it cannot hold records (a
    file of that name, a path through a file, no permission): checked before a run, so that a
    wrong `records_dir` costs no run."""
    folder = runs_dir(records_dir)
    if folder.exists() and not folder.is_dir():
        raise TackValueError(f"The records folder {folder} is a file: give records_dir (or "
                             "$TACK_RUNS_DIR) a folder, or records_dir=False for no record")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise TackValueError(f"Cannot make the records folder {folder}: {exc.strerror}") from None
    if not os.access(folder, os.W_OK | os.X_OK):
        raise TackValueError(f"Cannot write records to {folder}: permission denied")
    return folder


def write(record: Record, records_dir=None) -> Path:
    """Write `record` as one JSON file (atomically) and set `record.path`."""
    folder = folder_for_writing(records_dir)
    stamp = record.created.replace("-", "").replace(":", "").replace("+0000", "")
    safe = re.sub(r"[^A-Za-z0-9_.]+", "_", record.name)[:60] or "subject"
    path = folder / f"{stamp}-{safe}-{secrets.token_hex(3)}.json"
    record.path = str(path)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(record.to_dict(), indent=1, allow_nan=False), encoding="utf-8")
    os.replace(tmp, path)
    return path


def load_all(records_dir=None) -> tuple[list[Record], list[str]]:
    """Every record in the folder, oldest first, and a note for each `*.json` entry that is
    not one: malformed, unreadable, or not a regular file (a FIFO would block the read, a
    device would never end). A folder missing holds no records; a file in its place is an
    error."""
    folder = runs_dir(records_dir)
    if folder.exists() and not folder.is_dir():
        raise TackValueError(f"The records folder {folder} is a file, not a folder")
    out, skipped = [], []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else ():
        try:
            if not stat.S_ISREG(path.stat().st_mode):  # follows a link to a record
                skipped.append(f"{path.name}: not a regular file")
                continue
            out.append(Record.load(path))
        except RecordError as exc:
            skipped.append(f"{path.name}: {str(exc).removeprefix(f'{path} is ')}")
        except OSError as exc:  # unreadable: a dangling link, no permission
            skipped.append(f"{path.name}: not readable ({exc.strerror})")
    out.sort(key=lambda r: r.created)
    return out, skipped
