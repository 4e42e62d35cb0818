"""Barriers on the simulator: all lanes run in lockstep, so a barrier is a point that the live
lanes of each workgroup must reach together.

When the statement sequence reaches a `Barrier`, the active lanes are the ones that arrived. A
workgroup some of whose lanes arrived and others not (they took the other branch, left the loop,
or will reach a different barrier) has diverged: the recorder hears about it with the lanes on
each side and the branch or loop that split them, and the barrier is released so the run goes
on. Every workgroup with arriving lanes completes one more barrier: its epoch, which orders the
accesses of its lanes for the race analysis (trace.py).
"""
from __future__ import annotations

import numpy as np

from ...ir.ops import WORKGROUP
from .lanes import Lanes
from .trace import Site


class Groups:
    """The workgroups of one chunk: their sizes, barrier epochs and the control stack."""

    def __init__(self, base: int, lanes: int):
        self.first = base // WORKGROUP
        count = -(-lanes // WORKGROUP)
        self.sizes = np.full(count, WORKGROUP, np.int64)
        self.sizes[-1] = lanes - (count - 1) * WORKGROUP
        self.epoch = np.zeros(count, np.int64)
        self.stack: list[tuple[Site, Lanes]] = []  # enclosing branches/loops and their lanes

    def barrier(self, act: Lanes, site: Site, recorder) -> None:
        gp = act.group_pos
        arrived = np.bincount(gp, minlength=len(self.sizes))
        present = arrived > 0
        for g in np.flatnonzero(present & (arrived != self.sizes)):
            lane = act.t[gp == g] % WORKGROUP
            recorder.barrier(site, int(self.first + g), lane,
                             np.arange(self.sizes[g], dtype=np.int64), self.split_at(act, g))
        self.epoch[present] += 1

    def split_at(self, act: Lanes, g: int) -> Site | None:
        """The innermost enclosing branch or loop that held more lanes of workgroup `g` than
        went on towards the barrier."""
        inner = np.count_nonzero(act.group_pos == g)
        for site, entry in reversed(self.stack):
            here = np.count_nonzero(entry.group_pos == g)
            if here > inner:
                return site
            inner = here
        return None
