"""The protocol checks of transaction barriers and bulk copies on the simulator, under a checker
(runtime/sim/mbarriers.py runs them; docs/checking.md, "Transaction barriers", states the rules).

Decided by happens-before, never by the order the simulator ran the lanes in: each lane's waits
(`_Decl.seen`, the phases it has observed) and each phase's first observation epoch (a
`tack.barrier()` after a wait publishes it to the workgroup); each lane's arrivals, numbered, with
the phase each counted toward; and for every element a bulk copy fills, the copy and the phase it
completed, and each lane's last access since (its arrival count then, its epoch, where).
"""
from __future__ import annotations

import numpy as np

from ...errors import CapabilityError
from ...ir.ops import BARRIER_COPIES, WORKGROUP
from ...ir.walk import iter_stmts, stmt_exprs
from .lanes import Lanes
from .trace import BarrierEvent, Site

# What the per-element access tracking of a checked run may take (elements × 256 lanes × 14 B).
TRACK_LIMIT = 1 << 29


class ProtocolChecks:
    """Barriers' checking half: what it records and what it reports (`BarrierEvent`s)."""

    def _track(self, kir) -> None:
        targets = {x.arg[0] for st in iter_stmts(kir.body) for x in stmt_exprs(st)
                   if x.op in BARRIER_COPIES}
        elements = sum(self.memory.buffers[n].extent for n in targets) * self.groups
        if elements * WORKGROUP * 14 > TRACK_LIMIT:
            raise CapabilityError(
                f"Kernel '{kir.name}': checking the bulk copies of {self.groups} workgroups "
                f"would track {elements} shared elements per lane: check a launch of fewer "
                "workgroups (two or three exercise every ordering)")
        self.acount = np.zeros(self.lanes, np.int64)  # arrivals made by each lane
        self.alog = np.zeros((self.lanes, 2, 3), np.int64)  # (decl, barrier, phase) of each
        self.access_sites: list[Site] = []
        for name in targets:
            b = self.memory.buffers[name]
            n = b.extent * self.groups
            self.tracked[name] = {
                "decl": np.full(n, -1, np.int64), "s": np.zeros(n, np.int64),
                "phase": np.full(n, -1, np.int64), "site": np.zeros(n, np.int64),
                "copy": np.zeros(n, np.int64),
                "lane": np.zeros(n, np.int64), "sites": [],
                "stamp": np.full((n, WORKGROUP), -1, np.int32),
                "epoch": np.zeros((n, WORKGROUP), np.int32),
                "who": np.zeros((n, WORKGROUP), np.int16)}
            b.watch = self.access

    def _event(self, what, site, barrier, lanes, count=1, other=(), detail=None, array=None,
               index=None) -> None:
        self.recorder.mbarrier(BarrierEvent(what, site, barrier, tuple(int(x) for x in lanes),
                                            int(count), tuple(other), detail, array, index))

    def _log_arrivals(self, d, pos, s, phase) -> None:
        n = self.acount[pos]
        if n.max(initial=0) >= self.alog.shape[1]:
            grown = np.zeros((self.lanes, 2 * self.alog.shape[1], 3), np.int64)
            grown[:, :self.alog.shape[1]] = self.alog
            self.alog = grown
        self.alog[pos, n] = np.stack([np.full(len(pos), d.ident), s, phase], axis=1)
        self.acount[pos] += 1

    def _check_wait(self, d, a, g, s, p, k, site) -> None:
        seen = d.seen[a.pos, s]
        again = (p != seen % 2) & (seen > 0)
        skipped = k > seen
        for bad, how in ((again, "again"), (skipped & ~again, "skipped")):
            if bad.any():
                j = int(np.flatnonzero(bad)[0])
                self._event("wrong-parity", site, f"{d.name}[{s[j]}]", a.t[bad][:3],
                            int(bad.sum()), (), {"how": how, "next": int(seen[j]),
                                                 "parity": int(p[j]), "observed": int(k[j])})
        d.seen[a.pos, s] = np.maximum(seen, k + 1)
        ok = k >= 0
        if ok.any():
            d.observed(g[ok], s[ok], k[ok], self.epoch[g[ok]])

    def _site_id(self, site) -> int:
        try:
            return self.access_sites.index(site)
        except ValueError:
            self.access_sites.append(site)
            return len(self.access_sites) - 1

    def _check_overwrite(self, b, a: Lanes, r: Lanes, idx, flat, site) -> None:
        """A copy by each lane of `a` into elements `flat`: every other lane's access to them
        since their last fill must be ordered before it (a tack.barrier() between, or an arrival
        after the access on a phase the copying lane has waited for)."""
        tr = self.tracked[b.name]
        for k, issuer in enumerate(a.pos):
            rows = np.flatnonzero(r.pos == issuer)
            if not len(rows):
                continue
            stamps, epochs = tr["stamp"][flat[rows]], tr["epoch"][flat[rows]]
            m0, ep = stamps.max(axis=0), epochs.max(axis=0)
            g = int(a.group_pos[k])
            for lane in np.flatnonzero(m0 >= 0):
                who = g * WORKGROUP + lane
                if who == issuer or ep[lane] < self.epoch[g]:
                    continue
                if self._released(issuer, who, int(m0[lane])):
                    continue
                at = rows[int(np.argmax(stamps[:, lane]))]
                self._event("overwrite", site, "", [a.t[k], who + self.base], 1,
                            (self.access_sites[tr["who"][flat[at], lane]],), None, b.name,
                            int(idx[at]))

    def _released(self, issuer: int, reader: int, stamp: int) -> bool:
        """Whether an arrival of `reader` after its arrival number `stamp` is on a phase that
        `issuer` has observed by a wait."""
        for m in range(stamp, int(self.acount[reader])):
            decl, s, phase = self.alog[reader, m]
            if self.by_ident[decl].seen[issuer, s] > phase:
                return True
        return False

    def access(self, kind: str, b, act: Lanes, idx, site) -> None:
        """A read or write of a shared array that bulk copies fill (checking): it must be
        ordered after the landing of the copy that last filled the element; noted for the
        copies that refill it."""
        if act.count == 0:
            return
        tr = self.tracked[b.name]
        flat = b.flat(idx, act)
        decl = tr["decl"][flat]
        filled = decl >= 0
        if filled.any():
            bad = np.zeros(act.count, bool)
            phase = tr["phase"][flat]
            for d in self.by_ident:
                on = filled & (decl == d.ident)
                if not on.any():
                    continue
                g, s, k = act.group_pos[on], tr["s"][flat[on]], phase[on]
                ok = k >= 0
                kk = np.maximum(k, 0)
                seen = d.seen[act.pos[on], s] > kk
                published = self.epoch[g] > d.obs_epoch(g, s, kk)
                bad[on] = ~(ok & (seen | published))
            if bad.any():
                j = int(np.flatnonzero(bad)[0])
                copier = int(tr["lane"][flat[j]])
                copy_site = self.access_sites[tr["site"][flat[j]]]
                d = self.by_ident[int(decl[j])]
                self._event("unwaited", site, f"{d.name}[{int(tr['s'][flat[j]])}]",
                            [act.t[j], copier], int(bad.sum()), (copy_site,),
                            {"kind": kind, "landed": bool(phase[j] >= 0),
                             "phase": int(phase[j])}, b.name, int(idx[j]))
        lane = act.pos % WORKGROUP
        tr["stamp"][flat, lane] = self.acount[act.pos]
        tr["epoch"][flat, lane] = self.epoch[act.group_pos]
        tr["who"][flat, lane] = self._site_id(site)
