"""The warpgroup MMA on the simulator (ir/ops.py, "Warpgroup matrix multiply-accumulate"), run
asynchronously, as a GPU may run it.

`tack.wgmma` takes each lane's accumulator elements (or, for an element another wgmma has not
delivered yet, a reference to that wgmma: the chained accumulation PTX allows between wgmmas of
one shape), sets the locals to NaN and marks them pending. Nothing is read from shared memory
then: the A and B tiles are read at the `tack.wgmma_wait` that covers the wgmma's group, the
latest moment the hardware may read them, so a tile restaged too early gives the wrong product
here too. D = A @ B + C is computed there in the warp MMA's order (runtime/sim/mma.py,
`multiply_accumulate`) and written into the locals of the lanes that waited.

What `tack.check` needs is reported as it happens (trace.Recorder.wgmma): a pending accumulator
element read or assigned by anything but a wgmma of the same shape, and a write into an element
of a shared tile that a pending wgmma reads (Memory.watcher). The operand reads go through the
memory (bounds, uninitialized elements, and the race analysis, at the barrier epoch of the
issue and again at that of the wait).
"""
from __future__ import annotations

import numpy as np

from ...errors import TackValueError
from ...ir.ops import WORKGROUP, Op
from ...ir.walk import iter_stmts, stmt_exprs
from ...ir.wgmma import VARIANTS, WARPGROUP, M, acc_coords, address
from .lanes import Lanes, spread
from .mma import multiply_accumulate

_I = np.arange(WARPGROUP)


def accumulator_names(kir) -> list[str]:
    """Every local a WGMMA updates."""
    out: dict[str, None] = {}
    for st in iter_stmts(kir.body):
        for x in stmt_exprs(st):
            if x.op is Op.WGMMA:
                out.update(dict.fromkeys(a.arg for a in x.args[2:]))
    return list(out)


class Issue:
    """One execution of a `tack.wgmma` by the warpgroups of a chunk."""

    def __init__(self, ident, e, site, pos, names, inputs, chain, starts, group):
        self.ident, self.e, self.site = ident, e, site
        self.pos, self.names = pos, names
        self.inputs, self.chain = inputs, chain  # (lanes, N/2): values; the feeding issue or -1
        self.starts = starts  # {chunk warpgroup: (a start, b start)}
        self.group = group  # each lane's committed groups when it issued
        self.result: np.ndarray | None = None
        self.landed = np.zeros(len(pos), bool)
        self.watched: list = []  # (buffer, flat indices) counted in the watch
        self.short: tuple | None = None  # (wait site, n, the n that covers it) that left it


class WgmmaUnit:
    """The wgmmas of one chunk: what is pending, per lane and accumulator local."""

    def __init__(self, ex, names: list[str]):
        self.ex = ex  # the executor: locals, memory, epochs, recorder
        self.names = names
        self.pending: dict[str, np.ndarray] = {}
        self.issues: list[Issue] = []
        self.committed = np.zeros(0, np.int64)
        self.watch: dict[str, np.ndarray] = {}

    def start_chunk(self, lanes: int) -> None:
        self.pending = {n: np.full(lanes, -1, np.int64) for n in self.names}
        self.issues = []
        self.committed = np.zeros(lanes, np.int64)
        self.watch = {}

    # ---- issue, commit, wait -------------------------------------------------------------------
    def issue(self, e, act: Lanes) -> None:
        ex = self.ex
        site = ex.site(e)
        self.complete(e, act)
        a_arr, b_arr = e.arg[3:5]
        a, b = (spread(ex.ev(x, act), act.count, np.int64) for x in e.args[:2])
        names = tuple(x.arg for x in e.args[2:])
        starts = {}
        wgs = act.pos // WARPGROUP
        for w in np.unique(wgs):
            on = wgs == w
            sa, sb = np.unique(a[on]), np.unique(b[on])
            if len(sa) > 1 or len(sb) > 1:
                t = int(act.t[on][0])
                raise TackValueError(
                    f"tack.wgmma at {site}: the lanes of warpgroup {t % WORKGROUP // WARPGROUP} "
                    f"of workgroup {t // WORKGROUP} name different tiles (A at {sa.tolist()}, "
                    f"B at {sb.tolist()}): a warpgroup multiplies one A and one B, so every "
                    "lane of it passes the same starts")
            starts[int(w)] = (int(sa[0]), int(sb[0]))
        self.aligned(site, starts, a_arr, b_arr)
        inputs = np.stack([ex.locals[nm][act.pos] for nm in names], 1).astype(np.float32)
        chain = np.stack([self.pending[nm][act.pos] for nm in names], 1)
        for src in np.unique(chain[chain >= 0]):
            other = self.issues[int(src)]
            if (VARIANTS[other.e.arg[0]].k, other.e.arg[1]) != (VARIANTS[e.arg[0]].k, e.arg[1]):
                # PTX orders accumulator accesses only between wgmmas of one shape (m64nNkK)
                self.read_pending(e, names[0], act, self.pending[names[0]][act.pos], site,
                                  "as the accumulator of a tack.wgmma of another shape")
                chain[chain == src] = -1
        ident = len(self.issues)
        issue = Issue(ident, e, site, act.pos.copy(), names, inputs, chain, starts,
                      self.committed[act.pos].copy())
        self.issues.append(issue)
        for nm in names:
            ex.locals[nm][act.pos] = np.nan
            self.pending[nm][act.pos] = ident
        for arr, which in ((a_arr, 0), (b_arr, 1)):
            for w in starts:
                idx = self.elements(issue, w, which)
                self.touch(issue, arr, w, idx, watch=True)

    def commit(self, e, act: Lanes) -> None:
        self.complete(e, act)
        self.committed[act.pos] += 1

    def wait(self, e, act: Lanes) -> None:
        self.complete(e, act)
        pending = e.arg
        here = np.zeros(len(self.committed), bool)
        here[act.pos] = True
        for issue in self.issues:
            if issue.landed.all():
                continue
            on = here[issue.pos] & ~issue.landed
            if not on.any():
                continue
            committed = self.committed[issue.pos]
            due = on & (issue.group < committed - pending)
            short = on & ~due & (issue.group < committed)
            if short.any():
                k = int(np.flatnonzero(short)[0])
                issue.short = (self.ex.site(e), pending, int(committed[k] - issue.group[k] - 1))
            if due.any():
                self.land(issue, due)

    def land(self, issue: Issue, due: np.ndarray) -> None:
        """Deliver D to the lanes `due` of `issue` (computing it first, from shared memory as
        it is now)."""
        if issue.result is None:
            issue.result = self.compute(issue)
        pos = issue.pos[due]
        for j, nm in enumerate(issue.names):
            mine = self.pending[nm][pos] == issue.ident
            self.ex.locals[nm][pos[mine]] = issue.result[due, j][mine]
            self.pending[nm][pos[mine]] = -1
        issue.landed |= due
        if issue.landed.all():
            for buf, flat in issue.watched:
                self.watch[buf][flat] -= 1
            issue.watched = []

    def finish(self) -> None:
        """The chunk is done: a wgmma never waited for stops watching its tiles."""
        self.issues = []
        self.watch = {}

    # ---- the product --------------------------------------------------------------------------
    def compute(self, issue: Issue) -> np.ndarray:
        """Every issuing lane's N/2 elements of D = A @ B + C, C with chained inputs resolved."""
        variant, n, _, a_arr, b_arr = issue.e.arg
        v = VARIANTS[variant]
        inputs = issue.inputs.copy()
        for src in np.unique(issue.chain[issue.chain >= 0]):
            other = self.issues[int(src)]
            if other.result is None:
                other.result = self.compute(other)
            at = issue.chain == src
            rows = np.searchsorted(other.pos, issue.pos)
            inputs[at] = other.result[rows][at]
        out = np.full(inputs.shape, np.nan, np.float32)
        wgs = issue.pos // WARPGROUP
        for w in issue.starts:
            on = wgs == w
            a = self.touch(issue, a_arr, w, self.elements(issue, w, 0)).reshape(M, v.k)
            b = self.touch(issue, b_arr, w, self.elements(issue, w, 1)).reshape(n, v.k)
            a, b = self.as_f32(a, v), self.as_f32(b, v)
            lanes = issue.pos[on] % WARPGROUP
            d = np.zeros((1, M, n), np.float32)
            for j in range(n // 2):
                r, c = acc_coords(lanes, j)
                d[0, r, c] = inputs[on, j]
            d = multiply_accumulate(a[None].astype(np.float64), b.T[None].astype(np.float64),
                                    d, v.k)
            for j in range(n // 2):
                r, c = acc_coords(lanes, j)
                out[on, j] = d[0, r, c]
        return out

    def as_f32(self, x: np.ndarray, v) -> np.ndarray:
        x = x.astype(np.float32)
        if v.ptx == "tf32":  # the hardware drops the low 13 significand bits
            x = (x.view(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32)
        return x

    def elements(self, issue: Issue, w: int, which: int) -> np.ndarray:
        """The element indices (in the shared array) of A (`which` 0: 64×K) or B (1: N×K) of
        warpgroup `w`, row-major, as the hardware addresses them from the descriptor."""
        variant, n, layout = issue.e.arg[:3]
        v = VARIANTS[variant]
        size = v.dtype.itemsize
        rows = M if which == 0 else n
        r, k = np.meshgrid(np.arange(rows), np.arange(v.k), indexing="ij")
        start = issue.starts[w][which] * size
        return (address(layout, start, r.reshape(-1), k.reshape(-1), size) // size).astype(
            np.int64)

    def touch(self, issue: Issue, arr: str, w: int, idx: np.ndarray, watch: bool = False):
        """Read the elements `idx` of the shared array `arr` for warpgroup `w` through the
        memory, attributed to its lanes in turn (at issue: recorded for the race analysis and
        watched; at the wait: read, and recorded again)."""
        ex, mem = self.ex, self.ex.memory
        buf = mem.buffers[arr]
        first = int(w) * WARPGROUP
        lanes = Lanes(first + _I[np.arange(len(idx)) % WARPGROUP], ex.lanes_base, False)
        order = np.argsort(lanes.pos, kind="stable")
        lanes, idx = Lanes(lanes.pos[order], ex.lanes_base, False), idx[order]
        if not watch:
            vals = mem.load(arr, idx, lanes, ex.epoch, issue.site, buf.data.dtype)
            back = np.empty_like(vals)
            back[order] = vals
            return back
        ok = (idx >= 0) & (idx < buf.extent)
        inside = Lanes(lanes.pos[ok], ex.lanes_base, False)
        mem.record("read", buf, inside, idx[ok], ex.epoch, issue.site)
        flat = buf.flat(idx[ok], inside)
        count = self.watch.get(arr)
        if count is None:
            count = self.watch[arr] = np.zeros(len(buf.data), np.int32)
        np.add.at(count, flat, 1)
        issue.watched.append((arr, flat))
        return None

    # ---- protocol checks ------------------------------------------------------------------------
    def aligned(self, site, starts: dict, a_arr: str, b_arr: str) -> None:
        for which, arr in ((0, a_arr), (1, b_arr)):
            size = self.ex.memory.buffers[arr].data.dtype.itemsize
            for st in starts.values():
                if st[which] * size % 16:
                    raise TackValueError(
                        f"tack.wgmma at {site}: the {'AB'[which]} tile starts at element "
                        f"{st[which]} of '{arr}', {st[which] * size} bytes in: a matrix "
                        "descriptor addresses 16-byte units, so a tile starts at a multiple "
                        f"of {16 // size} elements (tack.wgmma_index of a row that is a "
                        "multiple of 8 and a k that is a multiple of the wgmma's K)")

    def complete(self, e, act: Lanes) -> None:
        """Report the warps of each warpgroup that did not execute `e` with the others."""
        present = np.zeros(len(self.committed), bool)
        present[act.pos] = True
        wgs = present.reshape(-1, WARPGROUP)
        touched = wgs.any(1)
        missing = np.flatnonzero((touched[:, None] & ~wgs).reshape(-1))
        if len(missing):
            self.ex.diverged_warps(e, act, missing)

    def read_pending(self, e, name: str, act: Lanes, ids: np.ndarray, site, how: str) -> None:
        bad = ids >= 0
        issue = self.issues[int(ids[bad][0])]
        self.ex.recorder.wgmma("read", site, issue.site, act.t[bad], name.rpartition(".")[0],
                               how, issue.short)

    def on_read(self, e, act: Lanes) -> None:
        """A VAR read of an accumulator local by something other than a wgmma."""
        p = self.pending.get(e.arg)
        if p is None:
            return
        ids = p[act.pos]
        if (ids >= 0).any():
            self.read_pending(e, e.arg, act, ids, self.ex.site(e), "read")

    def on_assign(self, name: str, act: Lanes, site) -> None:
        p = self.pending.get(name)
        if p is None:
            return
        ids = p[act.pos]
        bad = ids >= 0
        if bad.any():
            issue = self.issues[int(ids[bad][0])]
            self.ex.recorder.wgmma("write", site, issue.site, act.t[bad],
                                   name.rpartition(".")[0], "assigned", issue.short)
            p[act.pos[bad]] = -1  # the wgmma's result no longer lands there

    def on_write(self, buf, flat: np.ndarray, act: Lanes, site) -> None:
        """Memory.watcher: shared elements written while a pending wgmma may read them."""
        count = self.watch.get(buf.name)
        if count is None or not len(flat):
            return
        hit = count[flat] > 0
        if not hit.any():
            return
        for issue in self.issues:
            if issue.landed.all():
                continue
            mine = np.isin(flat[hit], np.concatenate(
                [f for b, f in issue.watched if b == buf.name] or [np.zeros(0, np.int64)]))
            if mine.any():
                lanes = act.t[hit][mine] if len(act.t) == len(flat) else act.t[:1]
                self.ex.recorder.wgmma("overwrite", site, issue.site, lanes, buf.name,
                                       int(flat[hit][mine][0] % buf.extent), issue.short)
                return
