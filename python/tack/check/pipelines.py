"""The pipeline analysis: accesses to shared memory that an asynchronous copy may overwrite.

An asynchronous copy (ir/ops.py, "Asynchronous copies") writes its element at some moment
between the `tack.async_copy` that starts it and the `tack.async_wait` of the same lane that
covers its group; nothing orders that moment against the other lanes until a barrier after the
wait. So an access to the element conflicts with the copy when it is

- by the issuing lane, after the copy and before that wait (its own clock orders both);
- by another lane of the workgroup in a barrier epoch from the copy's to the wait's, inclusive
  (no barrier separates it from the copy's start or from its landing).

As for races (check/races.py), the verdict comes from barrier epochs and each lane's own order,
never from the order the simulator ran the lanes in. Each conflict gets one of three findings:

- `overwrite`: another lane read (or wrote) the element earlier in the copy's epoch: the copy
  refills a buffer still in use (a barrier is missing between those reads and the copy);
- `wrong-wait`: the issuing lane ran a wait after committing the copy's group that left it
  pending, before the access: the wait's count is wrong;
- `unwaited`: otherwise: the copy is read (or written over) before a wait covers it, or, by
  another lane, before the barrier that follows that wait.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..runtime.sim.trace import Landed, Site, Wait

NEVER = np.iinfo(np.int64).max  # the epoch and clock of a copy no wait landed
_ROWS = 1 << 20  # pairs examined at once (bounds the memory of one step)


@dataclass
class Conflict:
    """One (class, copy, access) of conflicts: the elements and a few witnesses."""

    what: str  # "overwrite" | "wrong-wait" | "unwaited"
    copy: Site
    access: Site
    kind: str  # the access: "read" | "write" | "atomic"
    buffer: int
    wait: Wait | None = None  # wrong-wait: the wait that left the copy pending
    needed: int = 0  # wrong-wait: the count that would have covered it
    elements: set = field(default_factory=set)
    witnesses: list = field(default_factory=list)  # (index, copying lane, accessing lane)


class PipelineLog:
    """Every asynchronous copy and every access to the shared arrays they fill, of one launch."""

    def __init__(self):
        self.copies: list[Landed] = []
        self.touches: list[tuple] = []  # (kind, buffer ids, lanes, index, epoch, clock, site)

    def copy(self, landed: Landed) -> None:
        self.copies.append(landed)

    def touch(self, kind, buffer, lanes, index, epoch, clock, site) -> None:
        n = len(lanes)
        self.touches.append((kind, np.full(n, buffer, np.int64), np.asarray(lanes, np.int64),
                             np.asarray(index, np.int64), np.asarray(epoch, np.int64),
                             np.full(n, clock, np.int64), site))

    def conflicts(self, keep: int) -> list[Conflict]:
        if not self.copies or not self.touches:
            return []
        sites = [t[6] for t in self.touches]
        kinds = [t[0] for t in self.touches]
        cols = [np.concatenate([t[c] for t in self.touches]) for c in range(1, 6)]
        tpt = np.repeat(np.arange(len(self.touches)), [len(t[2]) for t in self.touches])
        tbuf, tlane, tidx, tep, tclk = cols
        span = int(max(tidx.max(), max(int(c.index.max()) for c in self.copies))) + 1
        tkey = tbuf * span + tidx
        order = np.argsort(tkey, kind="stable")
        tkey, tlane, tep, tclk, tpt = (a[order] for a in (tkey, tlane, tep, tclk, tpt))
        found: dict[tuple, Conflict] = {}
        for c in self.copies:
            self._one(c, span, tkey, tlane, tep, tclk, tpt, sites, kinds, found, keep)
        return list(found.values())

    def _one(self, c: Landed, span, tkey, tlane, tep, tclk, tpt, sites, kinds, found, keep):
        key = c.buffers * span + c.index
        lo = np.searchsorted(tkey, key, "left")
        hi = np.searchsorted(tkey, key, "right")
        counts = hi - lo
        if not counts.any():
            return
        landed = np.where(c.landed < 0, NEVER, c.landed)
        landed_at = NEVER if c.landed_at < 0 else c.landed_at
        for start in range(0, len(key), max(1, _ROWS // max(1, int(counts.max())))):
            sl = slice(start, start + max(1, _ROWS // max(1, int(counts.max()))))
            n = counts[sl]
            row = np.repeat(np.arange(len(n)) + start, n)
            if not len(row):
                continue
            first = np.repeat(lo[sl], n)
            t = first + (np.arange(len(row)) - np.repeat(np.cumsum(n) - n, n))
            same = tlane[t] == c.lanes[row]
            mine = same & (tclk[t] > c.issued_at) & (tclk[t] < landed_at)
            other = ~same & (tep[t] >= c.issued[row]) & (tep[t] <= landed[row])
            hit = mine | other
            if not hit.any():
                continue
            row, t, other = row[hit], t[hit], other[hit]
            before = other & (tep[t] == c.issued[row]) & (tclk[t] < c.issued_at)
            # the wait with the wrong count: the latest short one before the access, else the
            # first (column 1, 0; -1: none ran before it)
            col = np.full(len(row), -1, np.int64)
            if (c.short >= 0).any():
                clocks = np.array([w.clock for w in c.waits] + [NEVER], np.int64)
                for k in (0, 1):
                    ran = clocks[c.short[row, k]] < tclk[t]
                    col[(c.short[row, k] >= 0) & ran] = k
            # one pair per (problem, access point, wait, element): the rest adds nothing
            wid = np.where(col >= 0, c.short[row, np.maximum(col, 0)], -1)
            what = np.where(before, 0, np.where(col >= 0, 1, 2))
            sig = np.stack([what, tpt[t], wid + 1, c.index[row], c.buffers[row]], 1)
            _, first = np.unique(sig, axis=0, return_index=True)
            for j in np.sort(first):
                self._add(c, int(row[j]), int(t[j]), bool(before[j]), int(col[j]), tlane, tpt,
                          sites, kinds, found, keep)

    def _add(self, c, r, x, before, col, tlane, tpt, sites, kinds, found, keep) -> None:
        pt = int(tpt[x])
        what = "overwrite" if before else ("wrong-wait" if col >= 0 else "unwaited")
        wait = c.waits[int(c.short[r, col])] if what == "wrong-wait" else None
        key = (what, c.site, sites[pt], kinds[pt], wait.site if wait else None)
        f = found.get(key)
        if f is None:
            f = found[key] = Conflict(what, c.site, sites[pt], kinds[pt], int(c.buffers[r]),
                                      wait, int(c.needed[r, col]) if wait else 0)
        element = (int(c.buffers[r]), int(c.index[r]))
        if element not in f.elements:
            f.elements.add(element)
            if len(f.witnesses) < keep:
                f.witnesses.append((int(c.index[r]), int(c.lanes[r]), int(tlane[x])))
