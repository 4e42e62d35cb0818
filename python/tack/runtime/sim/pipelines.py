"""Asynchronous copies on the simulator (ir/ops.py, "Asynchronous copies"), run asynchronously.

`tack.async_copy` reads its source when it runs (a global read, bounds-checked and recorded like
any load) and holds the values in flight with the lane's group number: the count of groups the
lane had committed when it issued the copy. `tack.async_commit` adds one to the lane's count.
`tack.async_wait(n)` lands, for the lanes that run it, every copy whose group is older than their
n newest committed ones: only then are the values written into shared memory. A read before that
sees the old contents, as on a GPU, where nothing says when a copy lands before its wait.

What the checker needs comes with each landing (trace.Landed): when the copy started and landed
(the workgroup's barrier epochs and the clock that orders a lane's events), and the first and the
latest wait of the issuing lane that ran after the copy's group was committed but left it pending
(a wait with the wrong count). Copies no wait covered are reported when the chunk ends, never
landed.
"""
from __future__ import annotations

import numpy as np

from ...errors import TackValueError
from ...ir.ops import WORKGROUP
from .lanes import Lanes, spread
from .trace import Landed, Site, Wait


class InFlight:
    """One element of one async_copy execution on its lanes, not landed yet."""

    __slots__ = ("buffer", "clock", "epoch", "flat", "group", "index", "needed", "pos",
                 "short", "site", "values")
    _ROWS = ("pos", "index", "flat", "values", "group", "epoch", "short", "needed")

    def __init__(self, site, buffer, pos, index, flat, values, group, epoch, clock):
        self.site, self.buffer, self.clock = site, buffer, clock
        self.pos, self.index, self.flat, self.values = pos, index, flat, values
        self.group, self.epoch = group, epoch
        # the first and the latest wait that left it pending, and the n that would cover it
        self.short = np.full((len(pos), 2), -1, np.int64)
        self.needed = np.zeros((len(pos), 2), np.int64)

    def take(self, mask: np.ndarray) -> InFlight:
        """The lanes of `mask` (as a new record; the arrays are copies)."""
        out = InFlight.__new__(InFlight)
        out.site, out.buffer, out.clock = self.site, self.buffer, self.clock
        for name in self._ROWS:
            setattr(out, name, getattr(self, name)[mask])
        return out


class Pipelines:
    """The asynchronous copies of one chunk: each lane's committed groups and what is in flight."""

    def __init__(self, memory, lanes: int, base: int, epoch: np.ndarray, recorder):
        self.memory, self.base, self.epoch, self.recorder = memory, base, epoch, recorder
        self.lanes = lanes
        self.committed = np.zeros(lanes, np.int64)
        self.flight: list[InFlight] = []
        self.waits: list[Wait] = []

    def copy(self, e, j, i, act: Lanes, site: Site) -> None:
        dst, src, count = e.arg
        mem = self.memory
        j = spread(j, act.count, np.int64)
        i = spread(i, act.count, np.int64)
        source = mem.buffers[src]
        bad = (j % count != 0) | ((i + source.offset) % count != 0)
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            size = count * source.data.itemsize
            raise TackValueError(
                f"tack.async_copy at {site} (launch index {int(act.t[k])}) copies {size} bytes "
                f"from element {int(i[k])} of '{src}' to element {int(j[k])} of '{dst}': an "
                f"asynchronous copy of {size} bytes needs both addresses {size}-byte aligned, "
                f"so both element indices multiples of {count} (and '{src}' a view starting "
                "at one)")
        b = mem.buffers[dst]
        clock = mem.tick()
        for k in range(count):
            values = mem.load(src, i + k, act, self.epoch, site, b.data.dtype)
            ok, a, idx = mem.address(b, j + k, act, site)
            if ok is not None:
                values = values[ok]
            if a.count == 0:
                continue
            self.flight.append(InFlight(site, b, a.pos.copy(), idx, b.flat(idx, a), values,
                                        self.committed[a.pos], self.epoch[a.group_pos], clock))

    def commit(self, act: Lanes) -> None:
        self.committed[act.pos] += 1

    def wait(self, pending: int, act: Lanes, site: Site) -> None:
        """Land the copies of the lanes `act` whose group is older than their `pending` newest."""
        clock = self.memory.tick()
        wait = Wait(site, pending, clock)
        here = np.zeros(self.lanes, bool)
        here[act.pos] = True
        keep = []
        noted = False
        for f in self.flight:
            on = here[f.pos]
            if not on.any():
                keep.append(f)
                continue
            committed = self.committed[f.pos]
            due = on & (f.group < committed - pending)
            short = on & ~due & (f.group < committed)
            if short.any():
                if not noted:
                    self.waits.append(wait)
                    noted = True
                needed = committed[short] - f.group[short] - 1
                first = short & (f.short[:, 0] < 0)
                f.short[first, 0] = len(self.waits) - 1
                f.needed[first, 0] = committed[first] - f.group[first] - 1
                f.short[short, 1] = len(self.waits) - 1
                f.needed[short, 1] = needed
            if due.any():
                self.land(f.take(due), wait)
            if not due.all():
                keep.append(f.take(~due))
        self.flight = keep

    def land(self, f: InFlight, wait: Wait) -> None:
        b = f.buffer
        b.data[f.flat] = f.values
        if self.memory.watcher is not None:  # a tile a pending wgmma reads (sim/wgmma.py)
            self.memory.watcher(b, f.flat, Lanes(f.pos, self.base, False), f.site)
        if b.written is not None:
            b.written[f.flat] = True
        self.report(f, self.epoch[f.pos // WORKGROUP], wait)

    def finish(self) -> None:
        """The chunk's lanes are done: what no wait covered never landed."""
        for f in self.flight:
            self.report(f, np.full(len(f.pos), -1, np.int64), None)
        self.flight = []

    def report(self, f: InFlight, landed: np.ndarray, wait: Wait | None) -> None:
        self.recorder.async_copy(Landed(
            f.site, f.buffer.ident + (self.base + f.pos) // WORKGROUP, f.pos + self.base,
            f.index, f.epoch, f.clock, landed, wait.clock if wait is not None else -1, wait,
            f.short, f.needed, self.waits))
