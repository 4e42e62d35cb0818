"""The checker's recorder: what the simulator reports during one launch, aggregated per source
location, and turned into findings when the launch finishes.

The simulator (tack.runtime.sim) calls these methods (the interface is
python/tack/runtime/sim/trace.py); bounds, uninitialized reads and barrier divergence come from
the simulator, which has the values; races are decided here from the recorded accesses
(check/races.py).
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ..ir.ops import WORKGROUP
from ..runtime.sim.trace import BufferInfo, Recorder, Site
from . import describe, mbarriers
from .findings import Finding, merge
from .pipelines import PipelineLog
from .races import AccessLog
from .wgmma import WgmmaLog


class _Seen:
    """One (location, array) of bounds failures or uninitialized reads: counts and witnesses."""

    def __init__(self):
        self.count = 0
        self.lanes: list[int] = []
        self.indices: list[int] = []
        self.elements: set = set()
        self.past_end: int | None = None  # the smallest index past the end
        self.negative: int | None = None  # the negative index closest to zero
        self.extent = 0

    def add(self, buffer: int, lanes, index, keep: int, extent: int | None = None) -> None:
        lanes, index = np.asarray(lanes), np.asarray(index)
        self.count += len(lanes)
        room = keep - len(self.lanes)
        if room > 0:
            self.lanes += [int(t) for t in lanes[:room]]
            self.indices += [int(i) for i in index[:room]]
        if extent is None:
            self.elements.update(zip([buffer] * len(index), index.tolist()))
            return
        self.extent = extent
        big, neg = index[index >= extent], index[index < 0]
        if len(big):
            m = int(big.min())
            self.past_end = m if self.past_end is None else min(self.past_end, m)
        if len(neg):
            m = int(neg.max())
            self.negative = m if self.negative is None else max(self.negative, m)


class _Diverged:
    """One (barrier, diverging branch): the workgroups where lanes did not all arrive."""

    def __init__(self):
        self.groups: list[int] = []
        self.arrived: list[int] = []  # launch indices, of the first group
        self.missing: list[int] = []
        self.live = 0
        self.warp: tuple[str, int] | None = None  # (collective, warp) for a warp collective


class CheckRecorder(Recorder):
    """Collects one launch; `findings` holds what was found once `finish` has run."""

    def __init__(self, kernel: str, kinds, witnesses: int = 3, decls: dict | None = None,
                 aliases: dict | None = None):
        self.kernel = kernel
        self.kinds = frozenset(kinds)
        self.keep = witnesses
        self.decls = decls or {}  # scratch or parameter name -> declaration Site
        self.aliases = aliases or {}  # array name -> the other names of the same memory
        self.log = AccessLog() if "race" in self.kinds else None
        self.pipes = PipelineLog() if "pipeline" in self.kinds else None
        self.wgmmas = WgmmaLog() if "pipeline" in self.kinds else None
        self.buffers: Mapping[int, BufferInfo] = {}
        self.n = self.groups = 0
        self.seen: dict[tuple, _Seen] = {}  # (what, site, array) -> _Seen
        self.diverged: dict[tuple, _Diverged] = {}
        self.findings: list[Finding] = []
        self.barrier_events: list[Finding] = []  # transaction barriers (check/mbarriers.py)

    def launch(self, name: str, n: int, groups: int, buffers: dict[int, BufferInfo]) -> None:
        self.n, self.groups = n, groups
        self.buffers = buffers  # not copied: one entry per shared declaration, not per group

    def access(self, kind, buffer, space, lanes, index, epoch, site) -> None:
        if self.log is not None:
            self.log.add(kind, buffer, space, lanes, index, epoch, site)

    def staged_access(self, kind, buffers, lanes, index, epoch, clock, site) -> None:
        if self.pipes is not None and len(lanes):
            self.pipes.touch(kind, buffers, lanes, index, epoch, clock, site)

    def async_copy(self, landed) -> None:
        if self.pipes is not None and len(landed.lanes):
            self.pipes.copy(landed)

    def wgmma(self, what, site, issue, lanes, name, detail, short) -> None:
        if self.wgmmas is not None and len(lanes):
            self.wgmmas.add(what, site, issue, lanes, name, detail, short)

    def mbarrier(self, event) -> None:
        if "pipeline" in self.kinds:
            self.barrier_events.append(mbarriers.finding(self.kernel, event))

    def deadlock(self, exc) -> None:
        """A deadlock stops the launch; a `barrier` finding (or, with barriers unchecked,
        `stopped`, which tack.check reports as an incomplete run)."""
        if "barrier" in self.kinds:
            self.barrier_events.append(mbarriers.finding(self.kernel, exc.event))
        else:
            self.stopped = str(exc)

    stopped: str | None = None

    def _name(self, buffer: int) -> str:
        info = self.buffers.get(buffer)
        return info.name if info is not None else f"buffer {buffer}"

    def bounds(self, buffer, space, lanes, index, extent, site) -> None:
        if "bounds" in self.kinds and len(lanes):
            key = ("bounds", site, self._name(buffer), space)
            self.seen.setdefault(key, _Seen()).add(buffer, lanes, index, self.keep, extent)

    def uninitialized(self, buffer, space, lanes, index, site) -> None:
        if "uninitialized" in self.kinds and len(lanes):
            key = ("uninitialized", site, self._name(buffer), space)
            self.seen.setdefault(key, _Seen()).add(buffer, lanes, index, self.keep)

    def barrier(self, site: Site, group: int, arrived, expected, diverged_at) -> None:
        if "barrier" not in self.kinds:
            return
        d = self.diverged.setdefault((site, diverged_at), _Diverged())
        d.groups.append(int(group))
        if len(d.groups) == 1:
            arrived, expected = np.asarray(arrived), np.asarray(expected)
            base = int(group) * WORKGROUP
            d.live = len(expected)
            d.arrived = [base + int(x) for x in arrived]
            d.missing = [base + int(x) for x in np.setdiff1d(expected, arrived)]

    def warp(self, site: Site, what: str, group: int, warp: int, arrived, expected,
             diverged_at) -> None:
        """A warp collective executed by some lanes of a warp only: a barrier-kind finding,
        recorded as `barrier` records one, naming the collective and the warp."""
        if "barrier" not in self.kinds:
            return
        self.barrier(site, group, arrived, expected, diverged_at)
        d = self.diverged[(site, diverged_at)]
        if len(d.groups) == 1:
            d.warp = (what, int(warp))

    def finish(self) -> None:
        out = []
        if self.log is not None:
            out += describe.races(self.kernel, self.log, self.buffers, self.keep, self.aliases)
        if self.pipes is not None:
            for c in self.pipes.conflicts(self.keep):
                out.append(describe.pipeline(self.kernel, c, self._name(c.buffer)))
        if self.wgmmas is not None:
            out += self.wgmmas.findings(self.kernel)
        for (what, site, array, space), s in self.seen.items():
            decl = self.decls.get(array)
            make = describe.bounds if what == "bounds" else describe.uninitialized
            out.append(make(self.kernel, site, array, space, s, decl, self.aliases))
        for (site, split), d in self.diverged.items():
            out.append(describe.barrier(self.kernel, site, split, d, self.keep))
        self.findings = merge(out + self.barrier_events)
        self.log = self.pipes = None  # the accesses are not needed any more
