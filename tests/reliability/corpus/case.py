"""The row format of the reliability corpus: one `Case` per bad input or fault, as data.

A case is Python source, not a closure, so that the runner can rebuild it in a fresh subprocess
from its name alone (`python -m tests.reliability.corpus --child NAME`)."""
from __future__ import annotations

from dataclasses import dataclass, field

# What a case can come to; `ok` is the only pass. Printed in this order by the summary.
OUTCOMES = (
    "ok",             # raised what it should (or ran, when nothing was expected), data intact
    "no-error",       # an exception was expected and none came
    "wrong-class",    # an exception, but not an instance of the expected class
    "not-tack-error", # the expected builtin class, but not derived from tack.TackError
    "no-position",    # a source position was expected and the exception has no `.loc`
    "no-mention",     # the message lacks a word it must name (kernel, parameter, ...)
    "changed",        # an array that must stay unchanged was written
    "check-failed",   # the case's own post-condition (`check`) failed
    "setup-error",    # the row itself is broken: its setup raised
    "crash",          # the subprocess died (signal, or exited without a result)
    "timeout",        # the subprocess ran past the case's timeout
)


@dataclass(frozen=True)
class Case:
    """One row of the corpus.

    `setup` runs first in a fresh namespace holding `tack`, `np` (NumPy) and `os`; `call` runs
    next, in the same namespace, and is what is under test. `expect` is the dotted name of the
    exception class it must raise (`"TypeError"`, `"tack.TackTypeError"`, `"MemoryError"`), or
    None when it must succeed. An expected exception must also derive from `tack.TackError`
    unless `tack_error` is False. `position`: the exception must carry a source position
    (`.loc`). `mentions`: words its message must contain (the kernel's name, the parameter's).
    `unchanged`: names bound by `setup` (NumPy arrays or `tack.Array`s) whose contents must be
    the same after the call, whatever it raised. `check`: optional source run after the call
    (whatever it raised) whose failing `assert` gives `check-failed`. `isolate`: run in its own
    subprocess (a crash, a hang or process state is possible); `env` (extra environment
    variables) and `timeout` (seconds) apply to that subprocess and imply `isolate`. `quick`
    puts the row in the short slice the normal test run covers. `note` says why the row exists
    (the issue item, the symptom)."""

    name: str
    call: str
    expect: str | None = None
    setup: str = ""
    position: bool = False
    mentions: tuple[str, ...] = ()
    unchanged: tuple[str, ...] = ()
    check: str = ""
    tack_error: bool = True
    isolate: bool = False
    env: tuple[tuple[str, str], ...] = ()
    timeout: float = 120.0
    quick: bool = False
    note: str = ""
    tags: tuple[str, ...] = field(default=())

    @property
    def subprocess(self) -> bool:
        return self.isolate or bool(self.env)


@dataclass(frozen=True)
class Result:
    """What running one case came to: an outcome of OUTCOMES and a line saying what happened."""

    name: str
    outcome: str
    detail: str = ""
    seconds: float = 0.0

    @property
    def passed(self) -> bool:
        return self.outcome == "ok"
