"""Barriers on the simulator: all lanes run in lockstep, so a barrier is a point that the live
lanes of each workgroup must reach together.

When the statement sequence reaches a `Barrier`, the active lanes are the ones that arrived. A
workgroup some of whose lanes arrived and others not (they took the other branch, left the loop,
or will reach a different barrier) has diverged: the recorder hears about it with the lanes on
each side and where the first missing lane parted from the others (trace.Split), and the barrier
is released so the run goes on. Every workgroup with arriving lanes completes one more barrier:
its epoch, which orders the accesses of its lanes for the race analysis (trace.py).

Where lanes parted: the enclosing branches and loops are a stack of (site, lanes that entered);
a missing lane still inside one of them parted at the innermost one it entered (the other arm
of an `if`, or the end of its trips through a loop). Lanes that left by `break` or `continue`
are no longer inside the construct that holds the statement, so the statement they took, and
the `if` they took it under, are noted per lane when they leave (`exit`) and forgotten when they
rejoin (`rejoin`: the next iteration, or the end of the loop). Kernels without barriers skip
this bookkeeping.
"""
from __future__ import annotations

import numpy as np

from ...ir.ops import WORKGROUP
from .lanes import Lanes
from .trace import BRANCH, LOOP, Site, Split


class Groups:
    """The workgroups of one chunk: their sizes, barrier epochs and the control stack."""

    def __init__(self, base: int, lanes: int, track_exits: bool = False):
        self.first = base // WORKGROUP
        count = -(-lanes // WORKGROUP)
        self.sizes = np.full(count, WORKGROUP, np.int64)
        self.sizes[-1] = lanes - (count - 1) * WORKGROUP
        self.epoch = np.zeros(count, np.int64)
        # enclosing branches and loops: (site, the lanes that entered, whether it is a loop)
        self.stack: list[tuple[Site, Lanes, bool]] = []
        # per lane of the chunk: the index in `splits` of how it left, -1 while it runs
        self.exited = np.full(lanes, -1, np.int32) if track_exits else None
        self.splits: list[Split] = []
        self._split_ids: dict[Split, int] = {}

    def barrier(self, act: Lanes, site: Site, recorder) -> None:
        gp = act.group_pos
        arrived = np.bincount(gp, minlength=len(self.sizes))
        present = arrived > 0
        for g in np.flatnonzero(present & (arrived != self.sizes)):
            lane = act.t[gp == g] % WORKGROUP
            recorder.barrier(site, int(self.first + g), lane,
                             np.arange(self.sizes[g], dtype=np.int64),
                             self.split_at(lane, int(g)))
        self.epoch[present] += 1

    def split_at(self, arrived: np.ndarray, g: int) -> Split | None:
        """Where the first lane of workgroup `g` that is not among `arrived` (lane ids, sorted)
        parted from them."""
        missing = np.setdiff1d(np.arange(self.sizes[g]), arrived, assume_unique=True)
        pos = g * WORKGROUP + int(missing[0])  # its position in the chunk
        if self.exited is not None and self.exited[pos] >= 0:
            return self.splits[self.exited[pos]]
        for site, entry, loop in reversed(self.stack):
            if _holds(entry, pos):
                return Split(site, LOOP if loop else BRANCH)
        return None

    def exit(self, act: Lanes, statement: Site, how: str, loop: Site | None) -> None:
        """Lanes `act` leave by the `break`/`continue` at `statement` (of the loop at `loop`,
        None for the parallel loop): note the innermost `if` of that loop that held lanes which
        did not take it, or the statement itself when all of them did."""
        if self.exited is None:
            return
        branch = statement
        for site, entry, is_loop in reversed(self.stack):
            if is_loop:
                break
            if entry.count > act.count:
                branch = site
                break
        split = Split(branch, how, statement, loop)
        ident = self._split_ids.get(split)
        if ident is None:
            ident = self._split_ids[split] = len(self.splits)
            self.splits.append(split)
        self.exited[act.pos] = ident

    def rejoin(self, act: Lanes) -> None:
        """Lanes `act` run again (the next iteration of their loop, or after it)."""
        if self.exited is not None:
            self.exited[act.pos] = -1


def _holds(lanes: Lanes, pos: int) -> bool:
    if lanes.full:
        return True
    k = int(np.searchsorted(lanes.pos, pos))
    return k < lanes.count and int(lanes.pos[k]) == pos
