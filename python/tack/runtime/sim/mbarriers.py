"""Transaction barriers and bulk copies on the simulator (ir/ops.py, "Transaction barriers"),
run asynchronously.

Each barrier of a chunk's workgroups holds what PTX's mbarrier object holds: the current phase,
the expected arrival count, the arrivals still pending and the transaction count of bytes. A
phase completes when its pending arrivals and its transaction count are both 0.

`tack.async_bulk_copy` (and `tack.async_tensor_copy`, whose box reads zeros outside its array
and lands where ir/tma.py places each element) reads its source when it runs and holds the
values in flight: its bytes
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
from ...ir import tma
from ...ir.ops import BARRIER_COPIES, WORKGROUP
from .lanes import Lanes, spread
from .mbarrier_checks import ProtocolChecks
from .trace import BarrierEvent, Recorder, Site

MAX_COUNT = (1 << 20) - 1  # PTX's limit on an expected arrival count and a transaction count
BULK_BYTES = 16
NEVER = np.iinfo(np.int64).max


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

    def __init__(self, site, decl, buffer, lanes, rows, nbytes, serial):
        self.site, self.decl, self.buffer, self.nbytes = site, decl, buffer, nbytes
        self.serial = serial  # which copy last filled an element (checking)
        self.t, self.g, self.s = lanes  # per issuing lane
        self.phase = decl.phase[self.g, self.s].copy()  # per lane: the phase at the issue
        self.owner, self.flat, self.values = rows  # per element: its lane's row in `t`
        self.left = np.ones(len(self.t), bool)  # lanes whose bytes are still in flight


class Barriers(ProtocolChecks):
    """The transaction barriers and bulk copies of one chunk."""

    def __init__(self, kir, memory, lanes: int, base: int, epoch: np.ndarray, recorder,
                 exited):
        self.kir, self.memory, self.base, self.epoch = kir, memory, base, epoch
        self.recorder, self.exited = recorder, exited
        self.lanes, self.groups = lanes, -(-lanes // WORKGROUP)
        # checked only in kernels that have barriers (nothing is allocated for the others)
        self.checking = type(recorder).mbarrier is not Recorder.mbarrier and any(
            sc.barriers for sc in kir.scratch.values())
        self.decls = {}
        for sc in kir.scratch.values():
            if sc.barriers:
                self.decls[sc.name] = _Decl(len(self.decls), sc.name, sc.size, self.groups,
                                            lanes, self.checking)
        self.by_ident = list(self.decls.values())
        self.flight: list[_Copy] = []
        self.serial = 0
        self.tracked = {}
        if self.checking:
            self._track(kir)

    # ---- operands ----------------------------------------------------------------------------
    def _barriers(self, e, i, act: Lanes, site, use: bool = True):
        """(decl, lanes, barrier indices) of the lanes that name an existing barrier (an index
        outside the declaration is reported as a bounds failure and skips the lane); with `use`,
        less those whose barrier was never initialized (reported)."""
        name = e.arg[3] if e.op in BARRIER_COPIES else e.arg
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
            raise TackValueError(f"Kernel '{self.kir.name}': tack.mbarrier_init at {site} "
                                 f"(launch index {int(a.t[k])}) expects {int(count[k])} "
                                 f"arrivals per phase: the count is in [1, {MAX_COUNT}]")
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
        # barriers whose phase already has its arrivals and waits for bytes in flight
        early = {(int(x), int(y)): int(d.tx[x, y]) for x, y in zip(g, s) if d.pending[x, y] <= 0}
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
            self._arrivals(d, gk, sk, rows, phases, site, a, early.get((gk, sk)))
        if self.checking:
            self._log_arrivals(d, a.pos, s, phases)

    def _arrivals(self, d: _Decl, g: int, s: int, rows, phases, site, a: Lanes, early) -> None:
        """`len(rows)` unordered arrivals on barrier (g, s); each row's phase into `phases`.
        `early`: the bytes the phase waited for when it already had all its arrivals (whether
        these count toward it or the next then depends on when the bytes land), else None."""
        d.sites[("arrive", g, s)] = site
        done = 0
        early_phase = int(d.phase[g, s])
        spilled = False
        while done < len(rows):
            pending = int(d.pending[g, s])
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
        if (spilled or early is not None) and self.checking:
            self._event("wrong-count", site, f"{d.name}[{s}]", a.t[rows[:2]], len(rows),
                        (d.sites[("init", g, s)],),
                        {"expected": int(d.expected[g, s]), "together": len(rows),
                         "early": early, "phase": early_phase})

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

    def _deliver(self, d: _Decl, g: int, s: int, site) -> None:
        """The copies in flight on barrier (g, s) land, one lane's copy after another. The phase
        completes as soon as its arrivals and bytes are in: a copy of more bytes than the phase
        still expects completes it with its first ones, and the rest count toward the next phase
        (as on a GPU, where nothing orders the bytes of one copy)."""
        for c in self.flight:
            if c.decl is not d:
                continue
            for lane in np.flatnonzero(c.left & (c.g == g) & (c.s == s)):
                rows = np.flatnonzero(c.owner == lane)
                expected = int(d.tx[g, s])
                phase = int(d.phase[g, s])
                if phase > c.phase[lane]:  # its phase completed without these bytes
                    self._over(d, g, s, c, site, c.nbytes, int(c.phase[lane]))
                if d.pending[g, s] <= 0 and 0 < expected < c.nbytes:
                    cut = expected // c.buffer.data.itemsize  # the bytes that complete it
                    self._land(c, d, g, s, rows[:cut], expected)
                    self._land(c, d, g, s, rows[cut:], c.nbytes - expected)
                    self._over(d, g, s, c, site, c.nbytes - expected, phase)
                else:
                    self._land(c, d, g, s, rows, c.nbytes)
                    if d.tx[g, s] < 0 and d.pending[g, s] <= 0:  # no expect_tx can follow
                        self._over(d, g, s, c, site, -int(d.tx[g, s]), phase)
                c.left[lane] = False
        self.flight = [c for c in self.flight if c.left.any()]
        if d.pending[g, s] <= 0 and d.tx[g, s] == 0:
            self._complete(d, g, s)

    def _land(self, c: _Copy, d: _Decl, g: int, s: int, rows, nbytes: int) -> None:
        """Elements `rows` of copy `c` land, their bytes counted on the current phase."""
        b, flat = c.buffer, c.flat[rows]
        b.data[flat] = c.values[rows]
        if b.written is not None:
            b.written[flat] = True
        if self.checking:
            tr = self.tracked[b.name]
            mine = tr["copy"][flat] == c.serial  # not filled again since
            tr["phase"][flat[mine]] = d.phase[g, s]
        d.tx[g, s] -= nbytes
        if d.pending[g, s] <= 0 and d.tx[g, s] == 0:
            self._complete(d, g, s)

    def _over(self, d: _Decl, g: int, s: int, c: _Copy, site, extra: int, phase: int) -> None:
        """Copies brought `extra` bytes more than phase `phase` expects (checking)."""
        if self.checking:
            self._event("wrong-count", site, f"{d.name}[{s}]", [self.base + g * WORKGROUP], 1,
                        (d.sites.get(("tx", g, s), c.site),), {"bytes": extra, "phase": phase})

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
                f"Kernel '{self.kir.name}': tack.async_bulk_copy at {site} (launch index "
                f"{int(act.t[k])}) copies from element {int(i[k])} of '{src}' to element "
                f"{int(j[k])} of '{dst}': a bulk copy needs both addresses 16-byte aligned, "
                f"so both element indices multiples of "
                f"{BULK_BYTES // item} (and '{src}' a view starting at one)")
        d, a, s = self._barriers(e, bi, act, site)
        if a.count == 0:
            return
        keep = np.isin(act.pos, a.pos)
        j, i = j[keep], i[keep]
        rep = Lanes(np.repeat(a.pos, count), a.base, False)
        steps = np.tile(np.arange(count, dtype=np.int64), a.count)
        values = mem.load(src, np.repeat(i, count) + steps, rep, self.epoch, site, b.data.dtype)
        self._start(b, d, a, s, np.repeat(j, count) + steps, rep, values, count * item, site)

    def tensor_copy(self, e, j, row, col, bi, act: Lanes, site) -> None:
        """`tack.async_tensor_copy`: the box's elements read now (zeros outside the array),
        each placed where ir/tma.py's `place` puts it, its bytes in flight as a bulk copy's."""
        dst, src, (rows, cols, layout), _ = e.arg
        mem = self.memory
        source, b = mem.buffers[src], mem.buffers[dst]
        item = b.data.dtype.itemsize
        height, width = self.kir.param(src).shape  # baked by the typechecker
        j, row, col = (spread(x, act.count, np.int64) for x in (j, row, col))
        bad = (j * item) % tma.ALIGN[layout] != 0
        if bad.any() or (source.offset * item) % tma.STRIDE_BYTES:
            k = int(np.flatnonzero(bad)[0]) if bad.any() else 0
            raise TackValueError(
                f"Kernel '{self.kir.name}': tack.async_tensor_copy at {site} (launch index "
                f"{int(act.t[k])}) copies into element {int(j[k])} of '{dst}' from '{src}': a "
                f"tensor copy in the {layout} layout needs its destination "
                f"{tma.ALIGN[layout]}-byte aligned, so the element index a multiple of "
                f"{tma.ALIGN[layout] // item}, and its array's address 16-byte aligned ('{src}' "
                f"a view starting at a multiple of {tma.STRIDE_BYTES // item} elements)")
        d, a, s = self._barriers(e, bi, act, site)
        if a.count == 0:
            return
        keep = np.isin(act.pos, a.pos)
        j, row, col = j[keep], row[keep], col[keep]
        n = rows * cols
        r, c = np.divmod(np.arange(n, dtype=np.int64), cols)
        y, x = np.repeat(row, n) + np.tile(r, a.count), np.repeat(col, n) + np.tile(c, a.count)
        rep = Lanes(np.repeat(a.pos, n), a.base, False)
        inside = (y >= 0) & (y < height) & (x >= 0) & (x < width)
        values = np.zeros(len(y), b.data.dtype)
        if inside.any():
            values[inside] = mem.load(src, (y * width + x)[inside], rep.where(inside),
                                      self.epoch, site, b.data.dtype)
        at = np.repeat(j, n) + np.tile(tma.place(layout, item, cols, r, c), a.count)
        self._start(b, d, a, s, at, rep, values, n * item, site)

    def _start(self, b, d, a: Lanes, s, at, rep: Lanes, values, nbytes: int, site) -> None:
        """A copy by each lane of `a` on barriers `s` of `d` is in flight: `values` (per
        lane of `rep`, `a`'s lanes repeated) for elements `at` of shared array `b`."""
        ok, r, idx = self.memory.address(b, at, rep, site)
        if ok is not None:
            values = values[ok]
        owner = np.searchsorted(a.pos, r.pos)
        flat = b.flat(idx, r)
        self.serial += 1
        serial = self.serial
        if self.checking:
            self._check_overwrite(b, a, r, idx, flat, site)
            tr = self.tracked[b.name]
            tr["copy"][flat] = serial
            tr["decl"][flat], tr["s"][flat] = d.ident, s[owner]
            tr["phase"][flat] = -1
            tr["lane"][flat] = r.t
            tr["site"][flat] = self._site_id(site)
            tr["stamp"][flat] = -1
        self.flight.append(_Copy(site, d, b, (a.t, a.group_pos, s), (owner, flat, values),
                                 nbytes, serial))

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
