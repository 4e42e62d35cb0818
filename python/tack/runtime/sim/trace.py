"""What the simulator tells a checker while it runs: source sites, buffers and the Recorder hooks.

The simulator (tack.runtime.sim) calls a Recorder at every memory access, bounds failure,
uninitialized read and barrier; the base class does nothing, so a plain `sim` launch pays one
method call per access site. A checker subclasses Recorder and analyses what it is told: the
race analysis (barrier epochs) lives with the checker, not here. Lane and index arguments are
int64 NumPy arrays over the active lanes of one vectorized step, in launch order.
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ...ir.nodes import Loc

SPACES = ("global", "shared", "local")
KINDS = ("read", "write", "atomic")


@dataclass(frozen=True)
class Site:
    """A source position of the kernel (from the IR node's Loc)."""

    file: str
    line: int
    col: int

    @classmethod
    def of(cls, loc: Loc | None) -> Site:
        if loc is None:
            return UNKNOWN
        return cls(loc.file, loc.line, loc.col)

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


UNKNOWN = Site("<unknown>", 0, 0)

# How lanes came to miss a barrier (Split.how).
BRANCH, LOOP, BREAK, CONTINUE, EXIT = "branch", "loop", "break", "continue", "exit"


@dataclass(frozen=True)
class Split:
    """Where the lanes that missed a barrier parted from those that reached it.

    `branch` is the `if` whose condition sent them the other way (`how` "branch"; also the `if`
    that holds a `break`, a `continue` or a device function's early `return`), or the loop whose
    condition or trip count ended for them first (`how` "loop"). For lanes that left by a
    `break`, a `continue` of the enclosing loop, or a `continue` of the parallel loop that ends
    their iteration (`how` "exit"), `statement` is that `break`/`continue` and `loop` the loop it
    left (None for the parallel loop); `branch` is then the `if` it was taken under, or the
    statement itself when every lane there took it."""

    branch: Site
    how: str = BRANCH
    statement: Site | None = None
    loop: Site | None = None

    def __str__(self) -> str:
        if self.how == BRANCH:
            return f"the branch at {self.branch}"
        if self.how == LOOP:
            return f"the loop at {self.branch} (its condition or trip count differs by lane)"
        word = "break" if self.how == BREAK else "continue"
        what = {BREAK: f"left the loop at {self.loop}",
                CONTINUE: f"skipped the rest of an iteration of the loop at {self.loop}",
                EXIT: "ended their iteration of the parallel loop"}[self.how]
        under = f" under the branch at {self.branch}" if self.branch != self.statement else ""
        return f"the `{word}` at {self.statement}{under} (they {what})"


@dataclass(frozen=True)
class BufferInfo:
    """One buffer of a launch, under the id the recorder's methods use."""

    name: str  # the kernel parameter or scratch name
    space: str  # "global" | "shared" | "local" | "constant" (a constant table)
    extent: int  # elements
    uninitialized: bool  # global: the caller asked that reads before writes be reported


class Buffers(Mapping):
    """The buffers of a launch by recorder id, read-only. A shared declaration has one id per
    workgroup of the launch, consecutive: it is stored once, as that range, so a launch of
    millions of workgroups costs nothing per workgroup here."""

    def __init__(self):
        self._one: dict[int, BufferInfo] = {}
        self._ranges: list[tuple[int, int, BufferInfo]] = []  # (first id, count, info)
        self.next_id = 0  # the id the next buffer gets

    def add(self, info: BufferInfo, count: int = 1) -> int:
        """Give `info` the next `count` ids; returns the first."""
        first = self.next_id
        if count == 1:
            self._one[first] = info
        elif count > 1:
            self._ranges.append((first, count, info))
        self.next_id += count
        return first

    def __getitem__(self, ident: int) -> BufferInfo:
        info = self._one.get(ident)
        if info is not None:
            return info
        for first, count, info in self._ranges:
            if first <= ident < first + count:
                return info
        raise KeyError(ident)

    def __iter__(self) -> Iterator[int]:
        yield from self._one
        for first, count, _ in self._ranges:
            yield from range(first, first + count)

    def __len__(self) -> int:
        return len(self._one) + sum(count for _, count, _ in self._ranges)


@dataclass(frozen=True)
class Wait:
    """One execution of `tack.async_wait(n)` (ir/ops.py, "Asynchronous copies")."""

    site: Site
    pending: int  # its n: how many of the newest committed groups it leaves pending
    clock: int  # when it ran (Landed.issued_at's clock)


@dataclass(frozen=True)
class Landed:
    """Elements of one `tack.async_copy` execution that landed in shared memory at one wait, or
    that no wait ever covered (`wait` None). One row per element; arrays of one length.

    The clock orders every event on a shared array that copies fill (copies, waits, reads and
    writes, `Recorder.staged_access`) as each lane executes them; the epochs are the
    workgroups' barrier counts, which order events of different lanes (trace.py's races)."""

    site: Site  # the async_copy
    buffers: np.ndarray  # recorder ids (a shared declaration has one per workgroup)
    lanes: np.ndarray  # launch indices t of the lanes that issued them
    index: np.ndarray  # element index in the shared array
    issued: np.ndarray  # the workgroup's barrier epoch when the copy started
    issued_at: int  # the clock when it started
    landed: np.ndarray  # the epoch at the wait that landed it (-1: never waited for)
    landed_at: int  # the clock of that wait (-1: never)
    wait: Wait | None  # the wait that landed it
    # The first and the latest wait of the issuing lane that ran after the copy's group was
    # committed and left it pending (indices into `waits`, -1: none; two columns), and the n
    # that would have covered it at each.
    short: np.ndarray
    needed: np.ndarray
    waits: Sequence[Wait] = ()  # the chunk's waits that left copies pending (append-only)


@dataclass(frozen=True)
class BarrierEvent:
    """A misuse of a transaction barrier or of a bulk copy, or a deadlock, as the simulator saw
    it (runtime/sim/mbarriers.py). `what` names the problem: "uninitialized" (a barrier used
    before an initialization ordered before the use), "reinitialized" (initialized again, or by
    several lanes at once), "wrong-count" (more arrivals, or more bytes, reached one phase than
    it expects), "wrong-parity" (a wait naming a phase the lane has already waited for, or one
    a whole round away), "unwaited" (shared memory read or written while a bulk copy into it
    may not have landed), "overwrite" (a bulk copy into elements that other lanes may still be
    reading), "in-flight" (a bulk copy that no wait covered when the workgroup finished) and
    "deadlock" (lanes wait for a phase that can no longer complete)."""

    what: str
    site: Site  # the statement at fault
    barrier: str  # the barrier, "full[1]" (the declaration's name and index)
    lanes: tuple[int, ...]  # launch indices of witnesses: the lane at fault first
    count: int = 1  # lanes (or elements) it stands for
    other: tuple[Site, ...] = ()  # the statements it involves (the init, the copy, a wait, ...)
    detail: dict | None = None  # the numbers of the message (phase, expected, arrived, ...)
    array: str | None = None  # the shared array, for accesses and copies
    index: int | None = None  # its element


class Recorder:
    """The simulator's observer: every method a no-op.

    Buffer ids: the same id for the same memory, so an array passed twice (or two views of one
    NumPy array) gives one id, with indices counted from the start of the underlying array;
    shared scratch has one id per (declaration, workgroup); local scratch one id per
    declaration, its index counted within the lane's own copy (local memory is private to its
    lane: it never races, but its bounds and uninitialized reads are reported)."""

    def launch(self, name: str, n: int, groups: int, buffers: Buffers) -> None:
        """A launch of kernel `name` over `n` lanes in `groups` workgroups begins. `buffers`
        maps every id the launch may use to its buffer: the global arrays, each shared
        declaration per workgroup, each local declaration (keep the mapping, not a copy: it
        holds a shared declaration once for all its workgroups)."""

    def access(self, kind: str, buffer: int, space: str, lanes: np.ndarray, index: np.ndarray,
               epoch: np.ndarray, site: Site) -> None:
        """Lanes `lanes` (launch indices t) did a `kind` ("read" | "write" | "atomic") of the
        flat elements `index` of `buffer`; `epoch[i]` is the number of barriers the workgroup
        of lane i had completed. Only in-bounds accesses are reported here."""

    def bounds(self, buffer: int, space: str, lanes: np.ndarray, index: np.ndarray, extent: int,
               site: Site) -> None:
        """Lanes `lanes` indexed `buffer` out of [0, extent) at flat `index`: the access is
        skipped (a read gives zero), as debug mode does."""

    def uninitialized(self, buffer: int, space: str, lanes: np.ndarray, index: np.ndarray,
                      site: Site) -> None:
        """Lanes `lanes` read elements `index` of `buffer` never written in this launch (local
        or shared scratch; global arrays marked uninitialized by the caller): they read zero."""

    def barrier(self, site: Site, group: int, arrived: np.ndarray, expected: np.ndarray,
                diverged_at: Split | None) -> None:
        """Workgroup `group` reached the barrier at `site` with lanes `arrived` (t % WORKGROUP)
        while lanes `expected` were still live, or its lanes reached different barriers;
        `diverged_at` says where the first lane that did not arrive parted from the others,
        when known. The simulator releases the barrier and keeps going."""

    def warp(self, site: Site, what: str, group: int, warp: int, arrived: np.ndarray,
             expected: np.ndarray, diverged_at: Split | None) -> None:
        """Warp `warp` of workgroup `group` executed the warp collective `what` (`shfl`,
        `warp_sum`, ...) at `site` with lanes `arrived` (t % WORKGROUP) of its `expected`;
        `diverged_at` as for `barrier`. Absent lanes' values read as 0 and the run goes on."""

    def staged_access(self, kind: str, buffers: np.ndarray, lanes: np.ndarray,
                      index: np.ndarray, epoch: np.ndarray, clock: int, site: Site) -> None:
        """An access to a shared array that asynchronous copies fill, reported by `access` too
        (`buffers`: each lane's recorder id, its workgroup's copy), with the clock that orders
        it against the copies (`Landed`)."""

    def async_copy(self, landed: Landed) -> None:
        """Asynchronous copies landed at a wait, or were never waited for (at the end of the
        lanes' run)."""

    def wgmma(self, what: str, site: Site, issue: Site, lanes: np.ndarray, name: str,
              detail, short: tuple | None) -> None:
        """The warpgroup MMA's protocol broken (runtime/sim/wgmma.py) at `site` by lanes
        `lanes`, against the `tack.wgmma` at `issue` still pending: `what` is "read" (its
        accumulator `name` read before a wait covered it; `detail` says how), "write" (assigned
        meanwhile) or "overwrite" (element `detail` of the shared array `name`, which it reads,
        written meanwhile). `short`: (site, n, the n that covers it) of the last wait that left
        it pending, or None."""

    def mbarrier(self, event: BarrierEvent) -> None:
        """A transaction barrier or bulk copy was misused (not a deadlock: the run goes on)."""

    def deadlock(self, exc: Exception) -> None:
        """Lanes wait for a barrier phase that cannot complete (`exc.event`, a BarrierEvent):
        the launch stops there. Unless a checker records it, the launch raises `exc`."""
        raise exc

    def finish(self) -> None:
        """The launch is over (every access has been reported)."""


NO_RECORDER = Recorder()
