"""Whole programs under the checker: `TACK_CHECK=1` and `python -m tack.check script.py`.

While a session is installed, every kernel call runs on the simulator with the checker's
recorder instead of on its device, in place (the program sees the results as usual: arrays of a
GPU device are staged through host copies), and the findings are gathered per kernel. At exit
they are printed, kernel by kernel, and the exit status is 1 when any error was found — the way
`compute-sanitizer python script.py` is used. A launch that a normal call refuses (the
workgroup contract) is checked on copies and then refused with the same error.
"""
from __future__ import annotations

import atexit
import os
import sys

from ..arrays import copyto
from ..call.plan import partial_group_message
from ..devices import _global
from ..errors import TackValueError
from ..ir.ops import WORKGROUP
from .findings import KINDS, merge
from .report import CheckReport
from .run import OPTIONS, Prepared, execute, host_values, kinds_of, returned_value

ENV = "TACK_CHECK"


class Session:
    """The findings of every checked launch of one program, per kernel."""

    def __init__(self, kinds=frozenset(KINDS), witnesses: int = 3):
        self.kinds, self.witnesses = frozenset(kinds), witnesses
        self.kernels: dict[str, dict] = {}  # kernel name -> findings, launches, incomplete, n

    def launch(self, kernel, args):
        """`kernel(*args)`, executed and checked on the simulator (the intercept of
        `Kernel._call`); returns what the call returns."""
        prep = Prepared(kernel, args)
        refused = prep.refusal
        if refused is None and prep.kir_has_barriers and prep.n % WORKGROUP:
            refused = TackValueError(partial_group_message(prep.name, prep.n))
        values, staged = host_values(prep, copy=refused is not None)
        findings, incomplete = execute(prep, values, self.kinds, self.witnesses)
        self.add(prep.name, findings, incomplete, prep.n)
        if refused is not None:
            raise refused
        if incomplete:  # the simulator could not run it: the device does, unchecked
            return self.unchecked(kernel, args)
        for arr, host in staged.values():
            if arr._host is None:  # a device array: the results go back to the device
                copyto(arr, host)
            arr._unwritten = False
        if prep.pk.epilogue is not None:
            return returned_value(prep, values)
        return None

    def unchecked(self, kernel, args):
        """A normal call of `kernel(*args)` on its device, with this session out of the way."""
        saved, _global["intercept"] = _global["intercept"], None
        try:
            return kernel(*args)
        finally:
            _global["intercept"] = saved

    def add(self, name: str, findings, incomplete, n: int) -> None:
        k = self.kernels.setdefault(name, {"findings": [], "launches": 0, "incomplete": [],
                                           "n": n})
        k["findings"] = merge(k["findings"] + list(findings))
        k["launches"] += 1
        k["n"] = n
        k["incomplete"] += [why for why in incomplete if why not in k["incomplete"]]

    def reports(self) -> list[CheckReport]:
        return [CheckReport(name, k["findings"], None, self.kinds, k["incomplete"],
                            k["launches"], k["n"]) for name, k in self.kernels.items()]

    @property
    def failed(self) -> bool:
        return any(r.verdict == "error" for r in self.reports())

    def summary(self) -> str:
        """Each kernel with findings, then one line for the whole program."""
        reports = self.reports()
        launches = sum(r.launches for r in reports)
        lines = [r.text() for r in reports if r.verdict != "clean"]
        errors = sum(len(r.errors) for r in reports)
        state = f"{errors} error finding{'s' * (errors != 1)}" if errors else "no errors"
        lines.append(f"tack.check: {launches} launch{'es' * (launches != 1)} of "
                     f"{len(reports)} kernel{'s' * (len(reports) != 1)} checked on the "
                     f"simulator; {state}")
        return "\n".join(lines)


def install(session: Session | None = None) -> Session:
    """Route every kernel call through `session` (a new one by default) from now on."""
    current = _global["intercept"]
    if current is not None and session is None:
        return current.__self__
    session = session or Session()
    _global["intercept"] = session.launch
    return session


def uninstall() -> Session | None:
    """Kernel calls run on their devices again; returns the session that was installed."""
    current = _global["intercept"]
    _global["intercept"] = None
    return current.__self__ if current is not None else None


_ALL = ("1", "true", "yes", "on", "all")
_OFF = ("", "0", "false", "no", "off")
_NONE = "none"  # checked, no kind on: what `python -m tack.check` with every --no-* passes on


def options_from_env(value: str) -> dict:
    """`TACK_CHECK=1`, or `TACK_CHECK=races,bounds` to check only those kinds (option names
    or kind names, comma-separated; "none" for no kind). Anything else is refused: a misspelt
    kind would otherwise leave that kind silently unchecked."""
    text = value.strip().lower()
    if text in _ALL:
        return {}
    wanted = [v for v in (w.strip() for w in text.split(",")) if v]
    names = set(OPTIONS) | set(OPTIONS.values())
    bad = [w for w in wanted if w not in names] if wanted != [_NONE] else []
    if bad or not wanted:
        what = (f": {', '.join(map(repr, bad))} "
                f"{'is not a kind' if len(bad) == 1 else 'are not kinds'}" if bad
                else " names no kind")
        raise TackValueError(
            f"{ENV}={value!r}{what} to check. {ENV} takes {' / '.join(_ALL)} (every "
            f"kind), {' / '.join(_OFF[1:])} or empty (off), {_NONE!r}, or a comma-separated "
            f"list of {', '.join(OPTIONS)} (singular forms too)")
    return {opt: opt in wanted or kind in wanted for opt, kind in OPTIONS.items()}


def _at_exit(session: Session) -> None:
    """TACK_CHECK's report: printed to stderr; exit status 1 when an error was found."""
    uninstall()
    print(session.summary(), file=sys.stderr)
    if session.failed:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(1)  # an atexit handler cannot set the status otherwise


def install_from_env() -> Session | None:
    """At `import tack`: TACK_CHECK set (not "0") installs a session reported at exit."""
    value = os.environ.get(ENV, "")
    if value.strip().lower() in _OFF:
        return None
    kinds, witnesses = kinds_of(options_from_env(value))
    session = install(Session(kinds, witnesses))
    atexit.register(_at_exit, session)
    _from_env.append(session)
    return session


_from_env: list[Session] = []  # the session TACK_CHECK installed at import, if any


def drop_env_session() -> None:
    """`python -m tack.check` reports itself: a TACK_CHECK session from the import is dropped."""
    while _from_env:
        atexit.unregister(_at_exit)
        _from_env.pop()
        uninstall()
