"""The race analysis: which recorded accesses of one launch may happen in either order.

Ordering is decided from barrier epochs, never from the order the simulator ran the lanes in
(docs/checking.md, "What a verdict covers"). Two accesses to one element of one buffer by
different lanes, at least one a write, not both atomic, race iff the lanes are in different
workgroups (global memory: workgroups are never ordered within a launch) or in one workgroup
with the same epoch (no barrier between them). Reads of one element never race with each other.

Accesses are kept per buffer as rows (element, workgroup, epoch, access point) with the smallest
and largest launch index that made them: that is enough to decide every race exactly (two points
conflict in a row group unless both were made by one and the same lane), and it shrinks a
broadcast read by a whole workgroup to one row. Rows are compacted as they accumulate, so a long
loop costs memory in proportion to the distinct rows, not to the accesses.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..ir.ops import WORKGROUP

READ, WRITE, ATOMIC = 0, 1, 2
KINDS = {"read": READ, "write": WRITE, "atomic": ATOMIC}
_COMPACT_AT = 1 << 21  # pending rows per buffer before they are merged into its table


@dataclass(frozen=True)
class Witness:
    """One element on which two access points race, and a lane of each."""

    index: int
    lane_a: int  # launch index t of the access at point a
    lane_b: int
    epoch: int | None  # the barrier interval, for a race inside one workgroup; None across groups


@dataclass(frozen=True)
class RacePair:
    """Every race between two access points (a <= b) on one buffer."""

    buffer: int
    a: int
    b: int
    count: int  # distinct elements on which they race
    witnesses: tuple[Witness, ...]
    within: bool = True  # some race is inside one workgroup (a barrier would order it)
    across: bool = False  # some race is between workgroups (nothing in a launch orders it)


def conflicting(ka: int, kb: int) -> bool:
    """At least one write, not both atomic (reads never conflict with reads)."""
    return not (ka == kb and ka != WRITE)


class _Table:
    """The reduced rows of one buffer: columns elem, grp, ep, pt, tmin, tmax (int64)."""

    def __init__(self):
        self.cols = None
        self.pending: list[tuple] = []
        self.size = 0
        self.points: set[int] = set()  # the access points seen on this buffer

    def add(self, pt: int, lanes: np.ndarray, index: np.ndarray, epoch: np.ndarray) -> None:
        self.pending.append((pt, lanes, index, epoch))
        self.points.add(pt)
        self.size += len(lanes)
        if self.size >= _COMPACT_AT:
            self.compact()

    def compact(self) -> None:
        if not self.pending:
            return
        lanes = np.concatenate([p[1] for p in self.pending]).astype(np.int64, copy=False)
        rows = [np.concatenate([p[2] for p in self.pending]).astype(np.int64, copy=False),
                lanes // WORKGROUP,
                np.concatenate([p[3] for p in self.pending]).astype(np.int64, copy=False),
                np.repeat(np.array([p[0] for p in self.pending], np.int64),
                          [len(p[1]) for p in self.pending]),
                lanes, lanes]
        if self.cols is not None:
            rows = [np.concatenate([old, new]) for old, new in zip(self.cols, rows)]
        self.pending, self.size = [], 0
        self.cols = reduce_rows(rows, 4)


def _order(keys: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """A permutation sorting rows by `keys` (most significant first, all >= 0), and the sorted
    rows' group starts (a row starts a group where any key changes)."""
    n = len(keys[0])
    if n == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    spans = [int(k.max()) + 1 for k in keys]
    total = 1
    for s in spans:
        total *= s
    if total < (1 << 62):  # one combined key: a single sort
        combined = np.zeros(n, np.int64)
        for k, s in zip(keys, spans):
            combined = combined * s + k
        order = np.argsort(combined, kind="stable")
        c = combined[order]
        starts = np.flatnonzero(np.r_[True, c[1:] != c[:-1]])
    else:
        order = np.lexsort(keys[::-1])
        change = np.zeros(n, bool)
        change[0] = True
        for k in keys:
            ks = k[order]
            change[1:] |= ks[1:] != ks[:-1]
        starts = np.flatnonzero(change)
    return order, starts


def reduce_rows(cols: list[np.ndarray], nkeys: int) -> list[np.ndarray]:
    """Merge rows equal in their first `nkeys` columns; the last two columns are the smallest
    and largest launch index (min and max over the merged rows). Result sorted by the keys."""
    order, starts = _order(cols[:nkeys])
    if len(starts) == len(order):  # every row distinct (an elementwise access): no merging
        return [c[order] for c in cols]
    keys = [c[order][starts] for c in cols[:nkeys]]
    return keys + [np.minimum.reduceat(cols[-2][order], starts),
                   np.maximum.reduceat(cols[-1][order], starts)]


def _segment_pairs(seg: np.ndarray, pt, kinds, tmin, tmax, same, elem, ep):
    """Conflicting pairs of rows within runs of equal `seg` (rows sorted by seg, then pt).

    `same(x, y)` says whether two launch indices count as one party (the same lane inside a
    workgroup; the same workgroup across groups). Yields (pt_a, pt_b, elem, t_a, t_b, ep)."""
    n = len(seg)
    if n == 0:
        return
    starts = np.flatnonzero(np.r_[True, seg[1:] != seg[:-1]])
    longest = int(np.diff(np.r_[starts, n]).max())
    k = kinds[pt]
    # A point with itself: writes by two parties.
    m = (k == WRITE) & ~same(tmin, tmax)
    if m.any():
        yield pt[m], pt[m], elem[m], tmin[m], tmax[m], ep[m]
    for d in range(1, longest):
        i = np.arange(n - d)
        j = i + d
        m = (seg[i] == seg[j]) & ((k[i] == WRITE) | (k[j] == WRITE) | (k[i] != k[j]))
        single = same(tmin[i], tmax[i]) & same(tmin[j], tmax[j]) & same(tmin[i], tmin[j])
        m &= ~single
        if not m.any():
            continue
        i, j = i[m], j[m]
        tb = np.where(~same(tmin[j], tmin[i]), tmin[j], tmax[j])
        ta = np.where(~same(tb, tmin[i]), tmin[i], tmax[i])
        yield pt[i], pt[j], elem[i], ta, tb, ep[i]


def _same_lane(x, y):
    return x == y


def _same_group(x, y):
    return (x // WORKGROUP) == (y // WORKGROUP)


def buffer_races(cols, kinds: np.ndarray, cross_groups: bool):
    """Conflicting accesses in one buffer's reduced rows: (pt_a, pt_b, elem, t_a, t_b, ep)
    arrays, ep = -1 for a race between workgroups."""
    elem, grp, ep, pt, tmin, tmax = cols
    out = []
    # Within a workgroup and a barrier interval: rows are sorted by (elem, grp, ep, pt), so
    # each (elem, grp, ep) is one run of rows.
    change = np.ones(len(elem), bool)
    change[1:] = (elem[1:] != elem[:-1]) | (grp[1:] != grp[:-1]) | (ep[1:] != ep[:-1])
    seg = np.cumsum(change)
    out += list(_segment_pairs(seg, pt, kinds, tmin, tmax, _same_lane, elem, ep))
    if cross_groups:
        e, p, lo, hi = reduce_rows([elem, pt, tmin, tmax], 2)
        for a, b, el, ta, tb, _ in _segment_pairs(e, p, kinds, lo, hi, _same_group, e, e):
            out.append((a, b, el, ta, tb, np.full(len(el), -1, np.int64)))
    if not out:
        return None
    return [np.concatenate([o[c] for o in out]) for c in range(6)]


def group_pairs(buffer: int, found, npoints: int, witnesses: int) -> list[RacePair]:
    """One `RacePair` per pair of access points, with its element count and a few witnesses
    (races inside a workgroup first: they are the ones a barrier fixes)."""
    a, b, elem, ta, tb, ep = found
    pair = a * npoints + b
    order = np.lexsort((ep < 0, elem, pair))
    pair, elem = pair[order], elem[order]
    a, b, ta, tb, ep = a[order], b[order], ta[order], tb[order], ep[order]
    starts = np.flatnonzero(np.r_[True, pair[1:] != pair[:-1]])
    ends = np.r_[starts[1:], len(pair)]
    out = []
    for s, e in zip(starts, ends):
        el = elem[s:e]
        firsts = s + np.flatnonzero(np.r_[True, el[1:] != el[:-1]])
        w = tuple(Witness(int(elem[x]), int(ta[x]), int(tb[x]),
                          None if ep[x] < 0 else int(ep[x])) for x in firsts[:witnesses])
        out.append(RacePair(buffer, int(a[s]), int(b[s]), len(firsts), w,
                            bool((ep[s:e] >= 0).any()), bool((ep[s:e] < 0).any())))
    return out


class AccessLog:
    """Every shared and global access of one launch, reduced per buffer, and the races in it."""

    def __init__(self):
        self.points: dict[tuple, int] = {}  # (site, kind) -> access point id
        self.keys: list[tuple] = []  # access point id -> (site, kind)
        self.kinds: list[int] = []
        self.tables: dict[int, _Table] = {}
        self.spaces: dict[int, str] = {}

    def point(self, site, kind: str) -> int:
        key = (site, kind)
        p = self.points.get(key)
        if p is None:
            p = self.points[key] = len(self.kinds)
            self.keys.append(key)
            self.kinds.append(KINDS[kind])
        return p

    def add(self, kind: str, buffer: int, space: str, lanes, index, epoch, site) -> None:
        """One access site executed by the lanes `lanes` (local arrays are private: no races)."""
        if space == "local" or len(lanes) == 0:
            return
        pt = self.point(site, kind)
        table = self.tables.get(buffer)
        if table is None:
            table = self.tables[buffer] = _Table()
            self.spaces[buffer] = space
        table.add(pt, np.asarray(lanes), np.asarray(index), np.asarray(epoch))

    def site_of(self, pt: int) -> tuple:
        """(site, kind) of an access point."""
        return self.keys[pt]

    def races(self, witnesses: int = 3) -> list[RacePair]:
        kinds = np.array(self.kinds, np.int64)
        out = []
        for buffer, table in self.tables.items():
            if all(kinds[p] == READ for p in table.points):
                continue  # only reads: nothing to race with
            table.compact()
            if table.cols is None:
                continue
            found = buffer_races(table.cols, kinds, self.spaces[buffer] == "global")
            if found is not None:
                out += group_pairs(buffer, found, len(self.kinds), witnesses)
        return out
