"""Transaction barriers and bulk copies on the simulator (ir/ops.py, "Transaction barriers"),
run asynchronously.

Each barrier of a chunk's workgroups holds what PTX's mbarrier object holds: the current phase,
the expected arrival count, the arrivals still pending and the transaction count of bytes. A
phase completes when its pending arrivals and its transaction count are both 0.

`tack.async_bulk_copy` reads its source when it runs and holds the values in flight: its bytes
reach the barrier, and its elements shared memory, only when a wait needs the phase they
complete (the latest moment a GPU may deliver them), so a read that is not ordered after that
wait sees the old contents. A wait whose phase has not completed delivers the copies in flight
on its barrier; when the phase is still incomplete and every lane of the workgroup that has not
finished is waiting there, nothing can complete it: the run stops with a `Deadlock` that says who
waits and what is missing. Where other lanes of the workgroup are elsewhere (another branch, out
of a loop) and might arrive, the simulator, which runs a workgroup's lanes in step, cannot go on:
it raises `CapabilityError` (tack.check reports the run incomplete).

Under a checker (a recorder with `mbarrier`), the protocol is checked as it runs, by happens-
before, not by the order the simulator ran the lanes in (docs/checking.md, "Transaction
barriers"): each lane's waits (the phases it has observed, `seen`), each phase's first observation
epoch (a `tack.barrier()` after a wait publishes it to the workgroup), each lane's arrivals, and
for every element a bulk copy fills, the copy and the phase it completes on, and each lane's last
access since that fill.
"""
from __future__ import annotations

import numpy as np

from ...errors import CapabilityError, TackRuntimeError, TackValueError
from ...ir.ops import WORKGROUP, Op
from ...ir.walk import iter_stmts, stmt_exprs
from .lanes import Lanes, spread
from .trace import BarrierEvent, Recorder, Site

MAX_COUNT = (1 << 20) - 1  # PTX's limit on an expected arrival count and a transaction count
BULK_BYTES = 16
NEVER = np.iinfo(np.int64).max
# What the per-element access tracking of a checked run may take (elements × 256 lanes × 14 B).
TRACK_LIMIT = 1 << 29


class Deadlock(TackRuntimeError):
    """Lanes wait for a barrier phase that nothing can complete; `event` says who and what."""

    def __init__(self, message: str, event: BarrierEvent):
        super().__init__(message)
        self.event = event


def deadlock_text(kernel: str, ev: BarrierEvent) -> str:
    """The message of a deadlock (the exception's and tack.check's finding's)."""
    d = ev.detail
    missing = []
    if d["pending"] > 0:
        missing.append(f"{d['pending']} of its {d['expected']} expected arrivals never came "
                       f"({d['expected'] - d['pending']} arrived"
                       + (f", the last at {d['arrived_at']})" if d["arrived_at"] else ")"))
    if d["tx"] > 0:
        missing.append(f"{d['tx']} transaction bytes expected by tack.mbarrier_arrive_tx"
                       + (f" at {d['tx_at']}" if d["tx_at"] else "") + " are not covered by "
                       "any bulk copy in flight")
    if d["tx"] < 0:
        missing.append(f"its bulk copies delivered {-d['tx']} bytes more than were expected")
    others = (f"; the other {d['finished']} lanes of the workgroup have finished"
              if d["finished"] else "")
    return (f"Kernel '{kernel}': deadlock: {d['waiting']} lane(s) of workgroup {d['group']} "
            f"(lane {ev.lanes[0] % WORKGROUP} first, t={ev.lanes[0]}) wait at {ev.site} for phase "
            f"{d['phase']} (parity {d['phase'] % 2}) of barrier '{ev.barrier}', which never "
            f"completes: {'; '.join(missing) or 'nothing arrived'}{others}, so no lane is left "
            f"to complete it (the barrier was initialized at {d['init_at']} to expect "
            f"{d['expected']} arrivals per phase)")


class _Decl:
    """The barriers of one `tack.mbarriers(n)` declaration in every workgroup of a chunk."""

    def __init__(self, ident: int, name: str, size: int, groups: int, lanes: int, checking):
        self.ident, self.name, self.size = ident, name, size
        shape = (groups, size)
        self.inited = np.zeros(shape, bool)
        self.init_lane = np.full(shape, -1, np.int64)
        self.init_epoch = np.zeros(shape, np.int64)
        self.expected = np.zeros(shape, np.int64)
        self.pending = np.zeros(shape, np.int64)
        self.tx = np.zeros(shape, np.int64)
        self.phase = np.zeros(shape, np.int64)
        self.sites: dict[tuple, Site] = {}  # (what, g, s) -> where: "init", "arrive", "tx"
        self.seen = np.zeros((lanes, size), np.int64) if checking else None
        self.obs = np.full((groups, size, 4), NEVER, np.int64) if checking else None

    def observed(self, g, s, k, epoch) -> None:
        """Phases `k` of barriers (g, s) were observed by a wait in `epoch` (checking)."""
        need = int(k.max()) + 1 if len(k) else 0
        if need > self.obs.shape[2]:
            grown = np.full(self.obs.shape[:2] + (max(need, 2 * self.obs.shape[2]),), NEVER,
                            np.int64)
            grown[:, :, :self.obs.shape[2]] = self.obs
            self.obs = grown
        np.minimum.at(self.obs, (g, s, k), epoch)

    def obs_epoch(self, g, s, k) -> np.ndarray:
        out = np.full(len(k), NEVER, np.int64)
        inside = k < self.obs.shape[2]
        out[inside] = self.obs[g[inside], s[inside], k[inside]]
        return out


class _Copy:
    """One async_bulk_copy execution: its lanes (per lane: workgroup, barrier) and elements (per
    row: lane, destination), not delivered yet."""

    def __init__(self, site, decl, buffer, lanes, rows, nbytes, clock):
        self.site, self.decl, self.buffer, self.nbytes, self.clock = site, decl, buffer, nbytes, clock
        self.t, self.g, self.s = lanes  # per issuing lane
        self.owner, self.flat, self.values = rows  # per element: its lane's row in `t`
        self.left = np.ones(len(self.t), bool)  # lanes whose bytes are still in flight


class Barriers:
    """The transaction barriers and bulk copies of one chunk."""

    def __init__(self, kir, memory, lanes: int, base: int, epoch: np.ndarray, recorder,
                 exited):
        self.kir, self.memory, self.base, self.epoch = kir, memory, base, epoch
        self.recorder, self.exited = recorder, exited
        self.lanes, self.groups = lanes, -(-lanes // WORKGROUP)
        self.checking = type(recorder).mbarrier is not Recorder.mbarrier
        self.decls = {}
        for sc in kir.scratch.values():
            if sc.barriers:
                self.decls[sc.name] = _Decl(len(self.decls), sc.name, sc.size, self.groups,
                                            lanes, self.checking)
        self.by_ident = list(self.decls.values())
        self.flight: list[_Copy] = []
        self.tracked = {}
        if self.checking:
            self._track(kir)

    # ---- checking: per-lane arrivals and per-element fills and accesses ----------------------
    def _track(self, kir) -> None:
        targets = {x.arg[0] for st in iter_stmts(kir.body) for x in stmt_exprs(st)
                   if x.op is Op.ASYNC_BULK_COPY}
        elements = sum(self.memory.buffers[n].extent for n in targets) * self.groups
        if elements * WORKGROUP * 14 > TRACK_LIMIT:
            raise CapabilityError(
                f"Kernel '{kir.name}': checking the bulk copies of {self.groups} workgroups "
                f"would track {elements} shared elements per lane: check a launch of fewer "
                "workgroups (two or three exercise every ordering)")
        self.acount = np.zeros(self.lanes, np.int64)  # arrivals made by each lane
        self.alog = np.zeros((self.lanes, 8, 3), np.int64)  # (decl, barrier, phase) of each
        self.access_sites: list[Site] = []
        for name in targets:
            b = self.memory.buffers[name]
            n = b.extent * self.groups
            self.tracked[name] = {
                "decl": np.full(n, -1, np.int64), "s": np.zeros(n, np.int64),
                "phase": np.full(n, -1, np.int64), "site": np.zeros(n, np.int64),
                "lane": np.zeros(n, np.int64), "sites": [],
                "stamp": np.full((n, WORKGROUP), -1, np.int32),
                "epoch": np.zeros((n, WORKGROUP), np.int32),
                "who": np.zeros((n, WORKGROUP), np.int16)}
            b.watch = self.access

    def _event(self, what, site, barrier, lanes, count=1, other=(), detail=None, array=None,
               index=None) -> None:
        self.recorder.mbarrier(BarrierEvent(what, site, barrier, tuple(int(x) for x in lanes),
                                            int(count), tuple(other), detail, array, index))

    def _log_arrivals(self, d: _Decl, pos, s, phase) -> None:
        n = self.acount[pos]
        if n.max(initial=0) >= self.alog.shape[1]:
            grown = np.zeros((self.lanes, 2 * self.alog.shape[1], 3), np.int64)
            grown[:, :self.alog.shape[1]] = self.alog
            self.alog = grown
        self.alog[pos, n] = np.stack([np.full(len(pos), d.ident), s, phase], axis=1)
        self.acount[pos] += 1

    # ---- operands ----------------------------------------------------------------------------
    def _barriers(self, e, i, act: Lanes, site, use: bool = True):
        """(decl, lanes, barrier indices) of the lanes that name an existing barrier (an index
        outside the declaration is reported as a bounds failure and skips the lane); with `use`,
        less those whose barrier was never initialized (reported)."""
        name = e.arg[3] if e.op is Op.ASYNC_BULK_COPY else e.arg
        d = self.decls[name]
        _, a, s = self.memory.address(self.memory.buffers[name], i, act, site)
        if not use or a.count == 0:
            return d, a, s
        g = a.group_pos
        ok = d.inited[g, s] & ((d.init_lane[g, s] == a.t)
                               | (self.epoch[g] > d.init_epoch[g, s]))
        if self.checking and not ok.all():
            k = int(np.flatnonzero(~ok)[0])
            gk, sk = int(g[k]), int(s[k])
            never = not d.inited[gk, sk]
            init = d.sites.get(("init", gk, sk))
            self._event("uninitialized", site, f"{name}[{sk}]", a.t[~ok], int((~ok).sum()),
                        () if never else (init,),
                        {"never": never, "by": int(d.init_lane[gk, sk]), "op": e.op.name.lower()})
        keep = d.inited[g, s]
        return d, a.where(keep), s[keep]

    # ---- statements --------------------------------------------------------------------------
    def init(self, e, i, count, act: Lanes, site) -> None:
        d, a, s = self._barriers(e, i, act, site, use=False)
        if a.count == 0:
            return
        count = _sub(count, act, a)
        bad = (count < 1) | (count > MAX_COUNT)
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            raise TackValueError(f"Kernel '{self.kir.name}': tack.mbarrier_init at {site} (launch index {int(a.t[k])}) "
                                 f"expects {int(count[k])} arrivals per phase: the count is in "
                                 f"[1, {MAX_COUNT}]")
        g = a.group_pos
        key = g * d.size + s
        uniq, first, n = np.unique(key, return_index=True, return_counts=True)
        gs, ss = uniq // d.size, uniq % d.size
        if self.checking:
            for k in np.flatnonzero(n > 1):
                lanes = a.t[key == uniq[k]]
                self._event("reinitialized", site, f"{d.name}[{ss[k]}]", lanes[:2], n[k], (),
                            {"together": True, "lanes": int(n[k])})
            again = d.inited[gs, ss]
            for k in np.flatnonzero(again):
                self._event("reinitialized", site, f"{d.name}[{ss[k]}]",
                            [a.t[first[k]], d.init_lane[gs[k], ss[k]]], 1,
                            (d.sites[("init", int(gs[k]), int(ss[k]))],), {"together": False})
        c = count[first]
        d.inited[gs, ss] = True
        d.init_lane[gs, ss] = a.t[first]
        d.init_epoch[gs, ss] = self.epoch[gs]
        d.expected[gs, ss] = d.pending[gs, ss] = c
        d.tx[gs, ss] = d.phase[gs, ss] = 0
        for gk, sk in zip(gs.tolist(), ss.tolist()):
            d.sites[("init", gk, sk)] = site
        if self.checking:
            for gk, sk in zip(gs.tolist(), ss.tolist()):
                lo = gk * WORKGROUP
                d.seen[lo:lo + WORKGROUP, sk] = 0

    def arrive(self, e, i, nbytes, act: Lanes, site) -> None:
        """One arrival per lane of `act`, after growing the transaction count by `nbytes`
        (None for a plain arrive). Lanes arriving together on one barrier are unordered."""
        d, a, s = self._barriers(e, i, act, site)
        if a.count == 0:
            return
        g = a.group_pos
        key = g * d.size + s
        if nbytes is not None:
            nb = _sub(nbytes, act, a)
            bad = (nb < 0) | (nb > MAX_COUNT)
            if bad.any():
                k = int(np.flatnonzero(bad)[0])
                raise TackValueError(f"Kernel '{self.kir.name}': tack.mbarrier_arrive_tx at "
                                     f"{site} (launch index "
                                     f"{int(a.t[k])}) expects {int(nb[k])} bytes: a "
                                     f"transaction count is in [0, {MAX_COUNT}]")
            np.add.at(d.tx, (g, s), nb)
            for gk, sk in zip(g.tolist(), s.tolist()):
                d.sites[("tx", gk, sk)] = site
        order = np.argsort(key, kind="stable")
        phases = np.zeros(a.count, np.int64)
        for lo, hi in _runs(key[order]):
            rows = order[lo:hi]
            gk, sk = int(g[rows[0]]), int(s[rows[0]])
            self._arrivals(d, gk, sk, rows, phases, site, a)
        if self.checking:
            self._log_arrivals(d, a.pos, s, phases)

    def _arrivals(self, d: _Decl, g: int, s: int, rows, phases, site, a: Lanes) -> None:
        """`len(rows)` unordered arrivals on barrier (g, s); each row's phase into `phases`."""
        d.sites[("arrive", g, s)] = site
        done = 0
        spilled = False
        while done < len(rows):
            pending = int(d.pending[g, s])
            spilled = spilled or pending <= 0  # the phase has all its arrivals already
            take = len(rows) - done if pending <= 0 else min(len(rows) - done, pending)
            phases[rows[done:done + take]] = d.phase[g, s]
            d.pending[g, s] -= take
            done += take
            if d.pending[g, s] == 0 and d.tx[g, s] == 0:
                self._complete(d, g, s)
                spilled = spilled or done < len(rows)
            elif done < len(rows):  # the phase waits for bytes: the rest overflow it
                spilled = True
                phases[rows[done:]] = d.phase[g, s]
                d.pending[g, s] -= len(rows) - done
                done = len(rows)
        if spilled and self.checking:
            self._event("wrong-count", site, f"{d.name}[{s}]", a.t[rows[:2]], len(rows),
                        (d.sites[("init", g, s)],),
                        {"expected": int(d.expected[g, s]), "together": len(rows)})

    def _complete(self, d: _Decl, g: int, s: int) -> None:
        d.phase[g, s] += 1
        d.pending[g, s] = d.expected[g, s]

    def wait(self, e, i, parity, act: Lanes, site) -> None:
        d, a, s = self._barriers(e, i, act, site)
        if a.count == 0:
            return
        p = _sub(parity, act, a) & 1
        g = a.group_pos
        c = d.phase[g, s].copy()
        waits = (c % 2) == p
        if waits.any():
            for gk, sk in {(int(x), int(y)) for x, y in zip(g[waits], s[waits])}:
                self._deliver(d, gk, sk, site)
            blocked = waits & (d.phase[g, s] == c)
            if blocked.any():
                self._blocked(d, a, g, s, c, blocked, site)
        seen_phase = np.where(waits, c, c - 1)  # the phase each lane's wait observed
        if self.checking:
            self._check_wait(d, a, g, s, p, seen_phase, site)

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

    def _deliver(self, d: _Decl, g: int, s: int, site) -> None:
        """The copies in flight on barrier (g, s) land, one after the other; the phase
        completes as soon as its arrivals and bytes are in, and later bytes count toward the
        next phase (as on a GPU, where the bytes of an over-full phase spill over)."""
        for c in self.flight:
            if c.decl is not d:
                continue
            mine = c.left & (c.g == g) & (c.s == s)
            if not mine.any():
                continue
            rows = mine[c.owner]
            b = c.buffer
            b.data[c.flat[rows]] = c.values[rows]
            if b.written is not None:
                b.written[c.flat[rows]] = True
            d.tx[g, s] -= c.nbytes * int(mine.sum())
            c.left &= ~mine
            if self.checking:
                self.tracked[b.name]["phase"][c.flat[rows]] = d.phase[g, s]
                if d.tx[g, s] < 0:
                    self._event("wrong-count", site, f"{d.name}[{s}]",
                                [self.base + g * WORKGROUP], 1,
                                (d.sites.get(("tx", g, s), c.site),),
                                {"bytes": int(-d.tx[g, s]), "phase": int(d.phase[g, s])})
            if d.pending[g, s] <= 0 and d.tx[g, s] == 0:
                self._complete(d, g, s)
        self.flight = [c for c in self.flight if c.left.any()]
        if d.pending[g, s] <= 0 and d.tx[g, s] == 0:
            self._complete(d, g, s)

    def _blocked(self, d, a: Lanes, g, s, c, blocked, site) -> None:
        """Lanes wait for a phase that did not complete: a deadlock when no other lane of the
        workgroup can still arrive; else beyond what the simulator runs."""
        gk = int(g[blocked][0])
        sk = int(s[blocked][0])
        pos = a.pos[blocked & (g == gk)]
        size = min(WORKGROUP, self.lanes - gk * WORKGROUP)
        group = np.arange(gk * WORKGROUP, gk * WORKGROUP + size)
        done = self.exited()[group]
        live = group[~done]
        barrier = f"{d.name}[{sk}]"
        if not np.isin(live, pos).all():
            elsewhere = np.setdiff1d(live, pos)
            raise CapabilityError(
                f"Kernel '{self.kernel_name}': {len(pos)} lane(s) of workgroup "
                f"{self.base // WORKGROUP + gk} wait at {site} for phase {int(c[blocked][0])} of "
                f"barrier '{barrier}' while {len(elsewhere)} other lane(s) (lane "
                f"{int(elsewhere[0]) % WORKGROUP} first) are elsewhere in the kernel and might "
                "still arrive: the simulator runs a workgroup's lanes in step and cannot let "
                "them go ahead (docs/pipelines.md, \"What the simulator runs\")")
        t = pos + self.base
        detail = {"group": self.base // WORKGROUP + gk, "waiting": len(pos),
                  "phase": int(c[blocked][0]), "expected": int(d.expected[gk, sk]),
                  "pending": int(d.pending[gk, sk]), "tx": int(d.tx[gk, sk]),
                  "finished": int(done.sum()), "init_at": d.sites.get(("init", gk, sk)),
                  "arrived_at": d.sites.get(("arrive", gk, sk)),
                  "tx_at": d.sites.get(("tx", gk, sk))}
        others = tuple(x for x in (detail["init_at"], detail["arrived_at"], detail["tx_at"])
                       if x is not None)
        ev = BarrierEvent("deadlock", site, barrier, tuple(int(x) for x in t[:3]), len(pos),
                          others, detail)
        raise Deadlock(deadlock_text(self.kernel_name, ev), ev)

    @property
    def kernel_name(self) -> str:
        return self.kir.name

    def copy(self, e, j, i, bi, act: Lanes, site) -> None:
        dst, src, count, _ = e.arg
        mem = self.memory
        source, b = mem.buffers[src], mem.buffers[dst]
        item = b.data.dtype.itemsize
        j = spread(j, act.count, np.int64)
        i = spread(i, act.count, np.int64)
        bad = ((j * item) % BULK_BYTES != 0) | (((i + source.offset) * item) % BULK_BYTES != 0)
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            raise TackValueError(
                f"Kernel '{self.kir.name}': tack.async_bulk_copy at {site} (launch index {int(act.t[k])}) copies from "
                f"element {int(i[k])} of '{src}' to element {int(j[k])} of '{dst}': a bulk copy "
                f"needs both addresses 16-byte aligned, so both element indices multiples of "
                f"{BULK_BYTES // item} (and '{src}' a view starting at one)")
        d, a, s = self._barriers(e, bi, act, site)
        if a.count == 0:
            return
        keep = np.isin(act.pos, a.pos)
        j, i = j[keep], i[keep]
        rep = Lanes(np.repeat(a.pos, count), a.base, False)
        steps = np.tile(np.arange(count, dtype=np.int64), a.count)
        values = mem.load(src, np.repeat(i, count) + steps, rep, self.epoch, site, b.data.dtype)
        ok, r, idx = mem.address(b, np.repeat(j, count) + steps, rep, site)
        if ok is not None:
            values = values[ok]
        owner = np.searchsorted(a.pos, r.pos)
        flat = b.flat(idx, r)
        if self.checking:
            self._check_overwrite(b, a, r, idx, flat, site)
            tr = self.tracked[b.name]
            tr["decl"][flat], tr["s"][flat] = d.ident, s[owner]
            tr["phase"][flat] = -1
            tr["lane"][flat] = r.t
            tr["site"][flat] = self._site_id(site)
            tr["stamp"][flat] = -1
        self.flight.append(_Copy(site, d, b, (a.t, a.group_pos, s), (owner, flat, values),
                                 count * item, mem.tick()))

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

    def finish(self) -> None:
        """The chunk's lanes are done: a bulk copy still in flight is reported (checking)."""
        if self.checking:
            for c in self.flight:
                t = c.t[c.left]
                if len(t):
                    self._event("in-flight", c.site, f"{c.decl.name}[{int(c.s[c.left][0])}]",
                                t[:3], len(t), (), None, c.buffer.name)
        self.flight = []


def _sub(value, act: Lanes, a: Lanes) -> np.ndarray:
    """`value` (over the lanes of `act`, or one scalar) for the lanes of `a`, a subset."""
    v = spread(value, act.count, np.int64).astype(np.int64, copy=False)
    return v if a.count == act.count else v[np.isin(act.pos, a.pos)]


def _runs(sorted_keys: np.ndarray):
    """(lo, hi) of each run of equal keys."""
    cuts = np.flatnonzero(np.diff(sorted_keys)) + 1
    return zip(np.r_[0, cuts].tolist(), np.r_[cuts, len(sorted_keys)].tolist())
