"""Statements of the final IR over lane masks: structured control flow in lockstep.

`If` runs its two arms on the lanes that chose each; `While` and `For` iterate while any lane
continues, each iteration on the lanes still in the loop. `Break` and `Continue` set per-lane
flags of the innermost loop (or, outside any loop, of the kernel body: that launch index is
done); after a statement that may have raised them, the lanes flagged leave the block. A `For`
runs on a hidden counter from `start` to `stop` (both per lane, `stop` evaluated at entry), so
a body that assigns the loop variable does not change the trip count, as on the other engines.
"""
from __future__ import annotations

import numpy as np

from ...ir import nodes as N
from ...ir.ops import WARP, WARP_COLLECTIVES, WGMMA_OPS, WORKGROUP, Op, public_name
from ...ir.walk import iter_stmts, stmt_exprs
from .expr import Evaluator
from .lanes import Lanes, npdtype
from .mbarriers import Barriers
from .mma import MmaUnit
from .pipelines import Pipelines
from .trace import BREAK, CONTINUE, EXIT, BufferInfo, Site
from .warps import collective
from .wgmma import WgmmaUnit, accumulator_names
from .workgroups import Groups


class Frame:
    """Exit flags of one loop over the chunk's lanes."""

    __slots__ = ("broken", "site", "stopped")

    def __init__(self, lanes: int, site: Site | None = None):
        self.broken = np.zeros(lanes, bool)  # left the loop
        self.stopped = np.zeros(lanes, bool)  # done with this iteration (break or continue)
        self.site = site  # the loop (None: the kernel body, one launch index per lane)


def exits(body: list, out: dict) -> bool:
    """Fill `out[id(stmt)]` with whether each statement may break/continue its enclosing loop."""
    any_exit = False
    for st in body:
        if isinstance(st, (N.Break, N.Continue)):
            e = True
        elif isinstance(st, N.If):
            e = exits(st.then, out) | exits(st.orelse, out)
        else:
            if isinstance(st, (N.While, N.For)):
                exits(st.body, out)
            e = False
        out[id(st)] = e
        any_exit |= e
    return any_exit


class Executor(Evaluator):
    def __init__(self, kir, params: dict, memory, recorder, may_exit: dict,
                 track_exits: bool = False):
        super().__init__(params, memory)
        self.kir, self.recorder, self.may_exit = kir, recorder, may_exit
        self.track_exits = track_exits  # note how lanes leave (barrier findings name it)
        self.frames: list[Frame] = []
        self.groups: Groups | None = None
        self.stmts = {N.Assign: Executor.assign, N.Store: Executor.store, N.If: Executor.if_,
                      N.While: Executor.while_, N.For: Executor.for_,
                      N.Break: Executor.break_, N.Continue: Executor.continue_,
                      N.ExprStmt: Executor.expr_stmt, N.Barrier: Executor.barrier}
        for op in WARP_COLLECTIVES:
            self.handlers[op] = Executor.warp
        self.handlers.update({Op.ASYNC_COPY: Executor.async_copy,
                              Op.ASYNC_COMMIT: Executor.async_commit,
                              Op.ASYNC_WAIT: Executor.async_wait,
                              Op.MBARRIER_INIT: Executor.mbarrier_init,
                              Op.MBARRIER_ARRIVE: Executor.mbarrier_arrive,
                              Op.MBARRIER_ARRIVE_TX: Executor.mbarrier_arrive,
                              Op.MBARRIER_WAIT: Executor.mbarrier_wait,
                              Op.ASYNC_BULK_COPY: Executor.bulk_copy,
                              Op.ASYNC_TENSOR_COPY: Executor.tensor_copy})
        self.lanes = 0
        self.lanes_base = 0
        self.pipes: Pipelines | None = None
        uses = any(x.op in WGMMA_OPS for st in iter_stmts(kir.body) for x in stmt_exprs(st))
        self.wg = WgmmaUnit(self, accumulator_names(kir)) if uses else None
        self.handlers.update({Op.WGMMA: Executor.wgmma, Op.WGMMA_COMMIT: Executor.wgmma,
                              Op.WGMMA_WAIT: Executor.wgmma})
        if self.wg is not None:  # reads of an accumulator a wgmma has not delivered
            self.handlers[Op.VAR] = Executor.watched_var
            memory.watcher = self.wg.on_write
        self.bars: Barriers | None = None
        self.mma = MmaUnit()
        # Checking uninitialized reads: the locals an MMA reads (fragment elements, `acc.0`,
        # ...), each with the recorder id of its fragment and its element number, and per
        # chunk which lanes have assigned it (a fragment assigned on some paths only).
        self.fragments = _mma_operands(kir, memory) if memory.tracks_init else {}
        self.assigned: dict[str, np.ndarray] = {}

    def run_chunk(self, base: int, lanes: int) -> None:
        """Run the kernel body for launch indices [base, base + lanes) (whole workgroups)."""
        self.locals = {name: np.zeros(lanes, npdtype(t)) for name, t in self.kir.locals.items()}
        self.lanes, self.lanes_base = lanes, base
        if self.wg is not None:
            self.wg.start_chunk(lanes)
        self.assigned = {name: np.zeros(lanes, bool) for name in self.fragments}
        self.groups = Groups(base, lanes, self.track_exits)
        self.epoch = self.groups.epoch
        self.frames = [Frame(lanes)]
        self.pipes = Pipelines(self.memory, lanes, base, self.epoch, self.recorder)
        body = self.frames[0]
        self.bars = Barriers(self.kir, self.memory, lanes, base, self.epoch, self.recorder,
                             lambda: body.stopped)
        self.block(self.kir.body, Lanes.all(base, lanes))
        self.pipes.finish()
        if self.wg is not None:
            self.wg.finish()
        self.bars.finish()

    def block(self, body: list, act: Lanes) -> None:
        for st in body:
            if act.count == 0:
                return
            if isinstance(st, (N.Break, N.Continue)):
                self.stmts[type(st)](self, st, act)
                return
            self.stmts[type(st)](self, st, act)
            if self.may_exit[id(st)]:
                act = act.without(self.frames[-1].stopped)

    # ---- simple statements -------------------------------------------------------------------
    def assign(self, st, act):
        value = self.ev(st.value, act)
        if self.wg is not None:
            self.wg.on_assign(st.name, act, self.site(st))
        self.set_local(st.name, value, act)

    def set_local(self, name: str, value, act: Lanes) -> None:
        if name in self.assigned:
            self.assigned[name][act.pos] = True
        arr = self.locals[name]
        if act.full and isinstance(value, np.ndarray) and value.base is None \
                and value.dtype == arr.dtype and value.shape == arr.shape:
            self.locals[name] = value  # a fresh result: keep it instead of copying it
        else:
            arr[act.sel] = value

    def store(self, st, act):
        idx = self.ev(st.indices[0], act)
        value = self.ev(st.value, act)
        self.memory.store(st.array, idx, value, act, self.epoch, self.site(st))

    def expr_stmt(self, st, act):
        self.ev(st.value, act)

    def barrier(self, st, act):
        self.groups.barrier(act, self.site(st), self.recorder)

    def warp(self, e, act):
        """A warp collective (runtime/sim/warps.py); a warp whose lanes did not all execute it
        is reported with the lanes that did and where the first other one parted."""
        args = [self.ev(a, act) for a in e.args]
        if self.assigned and e.op is Op.MMA:
            self.unassigned_operands(e, act)
        unit = self.mma.value if e.op is Op.MMA else collective
        out, missing = unit(e, args, act, self.lanes)
        if len(missing):
            self.diverged_warps(e, act, missing)
        return out

    # ---- the warpgroup MMA (runtime/sim/wgmma.py) ----------------------------------------------
    def wgmma(self, e, act):
        {Op.WGMMA: self.wg.issue, Op.WGMMA_COMMIT: self.wg.commit,
         Op.WGMMA_WAIT: self.wg.wait}[e.op](e, act)
        return np.int32(0)

    def watched_var(self, e, act):
        self.wg.on_read(e, act)
        return self.locals[e.arg][act.sel]

    # ---- asynchronous copies (runtime/sim/pipelines.py) ---------------------------------------
    def async_copy(self, e, act):
        j, i = (self.ev(a, act) for a in e.args)
        self.pipes.copy(e, j, i, act, self.site(e))
        return np.int32(0)

    def async_commit(self, e, act):
        self.pipes.commit(act)
        return np.int32(0)

    def async_wait(self, e, act):
        self.pipes.wait(e.arg, act, self.site(e))
        return np.int32(0)

    # ---- transaction barriers and bulk copies (runtime/sim/mbarriers.py) ------------------------
    def mbarrier_init(self, e, act):
        i, count = (self.ev(a, act) for a in e.args)
        self.bars.init(e, i, count, act, self.site(e))
        return np.int32(0)

    def mbarrier_arrive(self, e, act):
        vals = [self.ev(a, act) for a in e.args]
        self.bars.arrive(e, vals[0], vals[1] if len(vals) > 1 else None, act, self.site(e))
        return np.int32(0)

    def mbarrier_wait(self, e, act):
        i, phase = (self.ev(a, act) for a in e.args)
        self.bars.wait(e, i, phase, act, self.site(e))
        return np.int32(0)

    def bulk_copy(self, e, act):
        j, i, b = (self.ev(a, act) for a in e.args)
        self.bars.copy(e, j, i, b, act, self.site(e))
        return np.int32(0)

    def tensor_copy(self, e, act):
        j, row, col, b = (self.ev(a, act) for a in e.args)
        self.bars.tensor_copy(e, j, row, col, b, act, self.site(e))
        return np.int32(0)

    def unassigned_operands(self, e, act) -> None:
        """Report the fragment elements an MMA reads on lanes that never assigned them (they
        read 0 here, garbage on a GPU), as an uninitialized read of the fragment."""
        for a in e.args:
            seen = self.assigned.get(a.arg) if a.op is Op.VAR else None
            if seen is not None:
                miss = ~seen[act.pos]
                if miss.any():
                    ident, k = self.fragments[a.arg]
                    self.recorder.uninitialized(ident, "fragment", act.t[miss],
                                                np.full(int(miss.sum()), k), self.site(e))

    def diverged_warps(self, e, act, missing: np.ndarray) -> None:
        site = self.site(e)
        for w in np.unique(missing // WARP):
            g = int(w * WARP // WORKGROUP)
            first = int(w * WARP % WORKGROUP)
            in_group = act.pos[act.group_pos == g] % WORKGROUP
            arrived = in_group[(in_group >= first) & (in_group < first + WARP)]
            others = np.setdiff1d(np.arange(WORKGROUP), np.arange(first, first + WARP))
            split = self.groups.split_at(np.union1d(arrived, others), g)
            self.recorder.warp(site, public_name(e), int(self.groups.first + g),
                               int(w % (WORKGROUP // WARP)), arrived,
                               np.arange(first, first + WARP), split)

    def break_(self, st, act):
        frame = self.frames[-1]
        frame.broken[act.pos] = True
        frame.stopped[act.pos] = True
        self.groups.exit(act, self.site(st), BREAK, frame.site)

    def continue_(self, st, act):
        frame = self.frames[-1]
        frame.stopped[act.pos] = True
        how = CONTINUE if frame.site is not None else EXIT
        self.groups.exit(act, self.site(st), how, frame.site)

    # ---- control flow ------------------------------------------------------------------------
    def if_(self, st, act):
        c = self.ev(st.cond, act)
        if np.ndim(c) == 0:
            self.block(st.then if c else st.orelse, act)
            return
        self.groups.stack.append((self.site(st), act, False))
        self.block(st.then, act.where(c))
        if st.orelse:
            self.block(st.orelse, act.where(~c))
        self.groups.stack.pop()

    def while_(self, st, act):
        def step(live):
            return live.where(self.ev(st.cond, live))
        self.loop(st, act, step, lambda live: None)

    def for_(self, st, act):
        dtype = npdtype(self.kir.locals[st.var])
        n = len(self.frames[0].broken)
        counter, stop = np.zeros(n, dtype), np.zeros(n, dtype)
        counter[act.sel] = self.ev(st.start, act)
        stop[act.sel] = self.ev(st.stop, act)

        def step(live):
            live = live.where(counter[live.pos] < stop[live.pos])
            if live.count:
                self.set_local(st.var, counter[live.pos], live)
            return live

        def advance(live):
            counter[live.pos] += dtype.type(1)
        self.loop(st, act, step, advance)

    def loop(self, st, act: Lanes, step, advance) -> None:
        """Iterate `st.body` while `step(live)` keeps lanes; `advance` ends each iteration."""
        site = self.site(st)
        frame = Frame(len(self.frames[0].broken), site)
        self.frames.append(frame)
        self.groups.stack.append((site, act, True))
        live = act
        while True:
            live = step(live)
            if live.count == 0:
                break
            self.block(st.body, live)
            frame.stopped[live.pos] = False
            live = live.without(frame.broken)
            self.groups.rejoin(live)  # those that took a `continue` go on
            advance(live)
        self.groups.stack.pop()
        self.groups.rejoin(act)  # those that took a `break` go on after the loop
        self.frames.pop()


def _mma_operands(kir, memory) -> dict[str, tuple[int, int]]:
    """The locals MMAs read, by name: (the recorder id of the fragment local they are an
    element of, registered with the memory's buffers, and their element number). The
    typechecker names element k of fragment `acc` `acc.k` (passes/names.py, `member`)."""
    out: dict[str, tuple[int, int]] = {}
    ids: dict[str, int] = {}
    for st in iter_stmts(kir.body):
        for x in stmt_exprs(st):
            if x.op is not Op.MMA:
                continue
            for a in x.args:
                if a.op is not Op.VAR or a.arg in out:
                    continue
                base, _, k = a.arg.rpartition(".")
                if not base or not k.isdigit():
                    continue  # a temporary bound just before the MMA: always assigned
                if base not in ids:
                    ids[base] = memory.infos.add(BufferInfo(base, "fragment", 8, True))
                out[a.arg] = (ids[base], int(k))
    return out
