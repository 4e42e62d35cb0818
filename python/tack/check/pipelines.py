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

import itertools
from dataclasses import dataclass, field

import numpy as np

from ..runtime.sim.trace import Landed, Site, Wait
from .races import reduce_rows

NEVER = np.iinfo(np.int64).max  # the epoch and clock of a copy no wait landed
_ROWS = 1 << 20  # pairs examined at once (bounds the memory of one step)
_COMPACT_AT = 1 << 21  # pending touch rows before they are merged
OVERWRITE, WRONG_WAIT, UNWAITED = 0, 1, 2
_WHAT = ("overwrite", "wrong-wait", "unwaited")


@dataclass
class Conflict:
    """One (problem, copy, access) of conflicts: the elements and a few witnesses."""

    what: str  # "overwrite" | "wrong-wait" | "unwaited"
    copy: Site
    access: Site
    kind: str  # the access: "read" | "write" | "atomic"
    buffer: int
    wait: Wait | None = None  # wrong-wait: the wait that left the copy pending
    needed: int = 0  # wrong-wait: the count that would have covered it
    elements: list = field(default_factory=list)  # arrays of (buffer, index) keys
    witnesses: list = field(default_factory=list)  # (index, copying lane, accessing lane)
    count: int = 0  # distinct elements, once `PipelineLog.conflicts` has run


class PipelineLog:
    """Every asynchronous copy and every access to the shared arrays they fill, of one launch.

    The accesses are kept as rows (clock, buffer, index, epoch, access point) with the smallest
    and largest launch index that made them: one execution of an access (one clock) by many
    lanes of a workgroup is one row per element. That decides every conflict exactly: a row
    whose only lane is the copier is the copier's own access; any other row has another lane,
    and a row inside the copy's window of the copier's clock is inside its epochs too."""

    def __init__(self):
        self.copies: list[Landed] = []
        self.points: dict[tuple, int] = {}  # (site, kind) -> access point
        self.keys: list[tuple] = []
        self.pending: list[tuple] = []
        self.size = 0
        self.cols: list[np.ndarray] | None = None

    def copy(self, landed: Landed) -> None:
        self.copies.append(landed)

    def touch(self, kind, buffers, lanes, index, epoch, clock, site) -> None:
        pt = self.points.get((site, kind))
        if pt is None:
            pt = self.points[(site, kind)] = len(self.keys)
            self.keys.append((site, kind))
        self.pending.append((clock, np.asarray(buffers, np.int64), pt,
                             np.asarray(lanes, np.int64), np.asarray(index, np.int64),
                             np.asarray(epoch, np.int64)))
        self.size += len(lanes)
        if self.size >= _COMPACT_AT:
            self.compact()

    def compact(self) -> None:
        if not self.pending:
            return
        n = [len(p[3]) for p in self.pending]
        lanes = np.concatenate([p[3] for p in self.pending])
        rows = [np.repeat(np.array([p[0] for p in self.pending], np.int64), n),
                np.concatenate([p[1] for p in self.pending]),
                np.concatenate([p[4] for p in self.pending]),
                np.concatenate([p[5] for p in self.pending]),
                np.repeat(np.array([p[2] for p in self.pending], np.int64), n), lanes, lanes]
        if self.cols is not None:
            rows = [np.concatenate([old, new]) for old, new in zip(self.cols, rows)]
        self.pending, self.size = [], 0
        self.cols = reduce_rows(rows, 5)

    def conflicts(self, keep: int) -> list[Conflict]:
        self.compact()
        if not self.copies or self.cols is None:
            return []
        clock, buf, idx, ep, pt, lmin, lmax = self.cols
        span = int(max(idx.max(), max(int(c.index.max()) for c in self.copies))) + 1
        key = buf * span + idx
        order = np.argsort(key, kind="stable")
        rows = [a[order] for a in (key, clock, ep, pt, lmin, lmax)]
        found: dict[tuple, Conflict] = {}
        for c in self.copies:
            self._one(c, span, rows, found, keep)
        for f in found.values():
            f.count = len(np.unique(np.concatenate(f.elements)))
            f.elements = []
        return list(found.values())

    def _one(self, c: Landed, span, rows, found, keep) -> None:
        tkey, tclk, tep, _, tlmin, tlmax = rows
        key = c.buffers * span + c.index
        lo = np.searchsorted(tkey, key, "left")
        counts = np.searchsorted(tkey, key, "right") - lo
        if not counts.any():
            return
        landed = np.where(c.landed < 0, NEVER, c.landed)
        landed_at = NEVER if c.landed_at < 0 else c.landed_at
        step = max(1, _ROWS // int(counts.max()))
        for start in range(0, len(key), step):
            n = counts[start:start + step]
            row = np.repeat(np.arange(len(n)) + start, n)
            if not len(row):
                continue
            t = np.repeat(lo[start:start + step], n) + (np.arange(len(row))
                                                        - np.repeat(np.cumsum(n) - n, n))
            copier = c.lanes[row]
            own = (tlmin[t] == copier) & (tlmax[t] == copier)
            mine = own & (tclk[t] > c.issued_at) & (tclk[t] < landed_at)
            other = ~own & (tep[t] >= c.issued[row]) & (tep[t] <= landed[row])
            hit = mine | other
            if hit.any():
                self._classify(c, row[hit], t[hit], other[hit], key, rows, found, keep)

    def _classify(self, c, row, t, other, key, rows, found, keep) -> None:
        _, tclk, tep, tpt, tlmin, tlmax = rows
        before = other & (tep[t] == c.issued[row]) & (tclk[t] < c.issued_at)
        # the wait with the wrong count: the latest one that left the copy pending before the
        # access, else the first (column 1, 0; -1: none ran before it)
        col = np.full(len(row), -1, np.int64)
        if (c.short >= 0).any():
            clocks = np.array([w.clock for w in c.waits] + [NEVER], np.int64)
            for k in (0, 1):
                ran = (c.short[row, k] >= 0) & (clocks[c.short[row, k]] < tclk[t])
                col[ran] = k
        wid = np.where(col >= 0, c.short[row, np.maximum(col, 0)], -1)
        what = np.where(before, OVERWRITE, np.where(col >= 0, WRONG_WAIT, UNWAITED))
        accessor = np.where(~other, c.lanes[row], np.where(tlmin[t] != c.lanes[row],
                                                           tlmin[t], tlmax[t]))
        group = (what * (len(self.keys) + 1) + tpt[t]) * (len(c.waits) + 2) + wid + 1
        order = np.lexsort((key[row], group))
        group, what, row, t, wid, col, accessor = (
            a[order] for a in (group, what, row, t, wid, col, accessor))
        cuts = np.flatnonzero(np.r_[True, group[1:] != group[:-1], True])
        for a, b in itertools.pairwise(cuts):
            self._add(c, int(what[a]), int(tpt[t[a]]), int(wid[a]), int(col[a]),
                      row[a:b], accessor[a:b], key, found, keep)

    def _add(self, c, what, pt, wid, col, row, accessor, key, found, keep) -> None:
        site, kind = self.keys[pt]
        wait = c.waits[wid] if what == WRONG_WAIT else None
        k = (what, c.site, site, kind, wait.site if wait else None)
        f = found.get(k)
        if f is None:
            f = found[k] = Conflict(_WHAT[what], c.site, site, kind, int(c.buffers[row[0]]),
                                    wait, int(c.needed[row[0], col]) if wait else 0)
        f.elements.append(key[row])
        firsts = np.flatnonzero(np.r_[True, key[row][1:] != key[row][:-1]])
        for j in firsts[:max(0, keep - len(f.witnesses))]:
            f.witnesses.append((int(c.index[row[j]]), int(c.lanes[row[j]]), int(accessor[j])))
