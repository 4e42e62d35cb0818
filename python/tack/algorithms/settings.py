"""The algorithms' settings, which `tack.algorithms.tuning` changes for the code inside a `with`
block: which workgroup steps and which GPU scan the algorithms take, and the look-back scan's
tuning — CUB's tuning policies, chosen at run time rather than at compile time.

The defaults are chosen by the device and are the measured best (docs/algorithms.md, "Paths per
engine" and "Performance"); benchmarks and tests use a block to compare the paths and to reach
corners (a window of one tile, a patience of a few polls). A block holds in the thread or task
that enters it (a ContextVar), nests, and restores what it found. Values are checked on entry,
before any launch.

Bits: integer results never depend on these settings. Float sums and scans are a fixed function
of the inputs and of `warps`, `scan`, `window` and `sub` (never of `tickets`, `lean` or
`patience`), so deterministic mode's promise of the same bits on every engine holds between runs
made with the same settings of those four."""
from __future__ import annotations

import contextvars
import threading
from dataclasses import dataclass, replace

from ..errors import TackTypeError, TackValueError

__all__ = ["tuning"]

SCANS = (None, "look_back", "two_pass")


@dataclass(frozen=True)
class Tuning:
    """The settings in force (`tuning` changes them for a block).

    warps: None chooses by the device (warp shuffles where warps exchange registers, and in
    deterministic mode; shared memory elsewhere), True or False forces the warp-shuffle or the
    shared-memory workgroup steps of the reductions, scans and sorts. scan: None chooses by the
    device (the single-pass look-back where workgroups run concurrently in device memory, and in
    deterministic mode), "look_back" or "two_pass" forces one (a dtype wider than the
    look-back's 32-bit payload, or a device without 64-bit atomics, still takes the two passes).
    window: tiles per block, whose aggregates one look-back reads at once (1 to 256). sub: scan
    tiles per look-back tile (1, 2 or 4). tickets: tiles take their index from an atomic counter,
    so a tile only waits for running ones (False trusts the GPU to start workgroups in order).
    lean: a look-back tile's sub-tiles are written in a loop (fewer registers) rather than
    unrolled. patience: polls of a block's prefix before lane 0 computes it from the aggregates
    alone."""

    warps: bool | None = None
    scan: str | None = None
    window: int = 32
    sub: int = 2
    tickets: bool = True
    lean: bool = True
    patience: int = 4096


DEFAULT = Tuning()  # frozen: one object serves every context that has no block open
_current: contextvars.ContextVar = contextvars.ContextVar("tack_algorithms_tuning",
                                                          default=DEFAULT)


def current() -> Tuning:
    """The settings in force here: the innermost open `tuning` block's, else the defaults."""
    return _current.get()


def _int(name, value, ok, what):
    if type(value) is bool or not isinstance(value, int):
        raise TackTypeError(f"tack.algorithms.tuning {name} must be an int ({what}), got "
                            f"{value!r}")
    if not ok(value):
        raise TackValueError(f"tack.algorithms.tuning {name} must be {what}, got {value!r}")
    return value


def _flag(name, value, none=False):
    if (none and value is None) or value is True or value is False:
        return value
    if type(value) is int and value in (0, 1):  # as tack.set_debug takes them
        return bool(value)
    allowed = "True, False or None" if none else "True or False"
    raise TackTypeError(f"tack.algorithms.tuning {name} must be {allowed}, got {value!r}")


class tuning:
    """`with tack.algorithms.tuning(scan="two_pass"):` runs the block's algorithms with the given
    settings (`Tuning`: warps, scan, window, sub, tickets, lean, patience); a keyword left out
    keeps what is in force. Entering gives the settings now in force. Checked here, before any
    launch: a wrong type raises TypeError, a value out of range ValueError."""

    __slots__ = ("changes", "tokens")

    def __init__(self, *, warps: bool | None = ..., scan: str | None = ..., window: int = ...,
                 sub: int = ..., tickets: bool = ..., lean: bool = ..., patience: int = ...):
        changes = {}
        if warps is not ...:
            changes["warps"] = _flag("warps", warps, none=True)
        if scan is not ...:
            if scan not in SCANS:
                raise TackValueError("tack.algorithms.tuning scan must be None, 'look_back' or "
                                     f"'two_pass', got {scan!r}")
            changes["scan"] = scan
        if window is not ...:
            changes["window"] = _int("window", window, lambda v: 1 <= v <= 256, "1 to 256")
        if sub is not ...:
            changes["sub"] = _int("sub", sub, lambda v: v in (1, 2, 4), "1, 2 or 4")
        if patience is not ...:
            changes["patience"] = _int("patience", patience, lambda v: v >= 1, ">= 1")
        if tickets is not ...:
            changes["tickets"] = _flag("tickets", tickets)
        if lean is not ...:
            changes["lean"] = _flag("lean", lean)
        self.changes = changes
        self.tokens: dict = {}  # thread -> the tokens of its open blocks of this object

    def __enter__(self) -> Tuning:
        got = replace(_current.get(), **self.changes)
        self.tokens.setdefault(threading.get_ident(), []).append(_current.set(got))
        return got

    def __exit__(self, *exc) -> None:
        mine = self.tokens[threading.get_ident()]
        _current.reset(mine.pop())
        if not mine:
            del self.tokens[threading.get_ident()]
