"""The buffers of one simulated launch: global arrays, shared scratch per workgroup, local
scratch per lane and constant tables, addressed by flat element index with bounds and
initialization checks.

Global arrays are flat views of the caller's NumPy arrays (written in place, as on the CPU
engine). A chunk of workgroups gets fresh zeroed scratch: `shared` arrays hold one copy per
workgroup, `local` arrays one per lane. Every access goes through `address`, which reports an
index outside [0, extent) to the recorder and drops that lane from the access (a read gives 0),
so one run finds every bad index; without a checker the launch then raises (engine.py).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...errors import TackValueError
from ...ir.nodes import KernelIR
from ...ir.ops import WORKGROUP, Op
from ...ir.walk import iter_stmts, stmt_exprs
from .lanes import Lanes, npdtype, spread
from .trace import BufferInfo, Buffers, Recorder

# What no GPU launches, from the CUDA C++ Programming Guide's "Technical Specifications per
# Compute Capability" (SPECS): shared memory per thread block is at most 227 KiB (compute
# capability 9.0, the largest of any), local memory per thread 512 KiB (every capability).
SPECS = ("https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html"
         "#features-and-technical-specifications-technical-specifications-per-compute-capability")
SHARED_LIMIT = 227 * 1024  # bytes of `shared` arrays per workgroup


@dataclass
class Buffer:
    """One array as the kernel addresses it."""

    name: str
    space: str  # "global" | "shared" | "local" | "constant" (a table: read-only)
    extent: int  # elements one lane (local), one workgroup (shared) or the launch sees
    ident: int  # recorder id (shared: of the launch's first workgroup)
    offset: int = 0  # global: elements from the start of the underlying memory
    data: np.ndarray | None = None  # flat storage (scratch: every copy of the chunk)
    written: np.ndarray | None = None  # per element of `data`, when initialization is tracked
    staged: bool = False  # shared: asynchronous copies fill it (accesses are clocked)
    # shared, under a checker: bulk copies fill it, and this sees every access (sim/mbarriers.py)
    watch: object = None

    def flat(self, idx: np.ndarray, act: Lanes) -> np.ndarray:
        """Indices into `data` of element `idx` of each active lane's copy."""
        if self.space == "shared":
            return act.group_pos * self.extent + idx
        if self.space == "local":
            return act.pos * self.extent + idx
        return idx


def check_limits(kir: KernelIR) -> None:
    """Refuse scratch memory that no GPU can give a launch: more shared memory per workgroup
    than the largest device allows (SPECS). Refused before anything is allocated, at the largest
    declaration. (Local memory per lane is every engine's capability, `local_bytes`, refused
    before compiling: capabilities.check_local_bytes.)"""
    for space, limit, per, unit in (("shared", SHARED_LIMIT, "workgroup", "thread block"),):
        # local arrays: capabilities.check_local_bytes refuses them on every engine, at compile
        decls = [(sc.size * npdtype(sc.dtype).itemsize, sc) for sc in kir.scratch.values()
                 if sc.space == space]
        total = sum(b for b, _ in decls)
        if total <= limit:
            continue
        nbytes, big = max(decls, key=lambda d: d[0])
        call = "tack.shared" if space == "shared" else "tack.local_array"
        others = f", {_bytes(total)} with the others" if len(decls) > 1 else ""
        raise TackValueError.at(
            big.loc, f"Kernel '{kir.name}': {call} '{big.name}' takes {_bytes(nbytes)} per "
                     f"{per} ({big.size} elements of {big.dtype}{others}), above the {_bytes(limit)} "
                     f"({limit} bytes) of {space} memory per {unit} that the largest GPU "
                     f"allows: no GPU can launch this kernel (CUDA C++ Programming Guide, "
                     f"{SPECS})",
            f"use fewer elements per {per}")


def _bytes(n: int) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:.4g} {unit}"
    return f"{n} bytes"


def _root(a: np.ndarray) -> np.ndarray:
    while isinstance(a.base, np.ndarray):
        a = a.base
    return a


class Memory:
    """Every buffer of one launch, and the recorder that hears about their accesses."""

    def __init__(self, kir: KernelIR, values: list, n: int, recorder: Recorder,
                 uninitialized=()):
        self.recorder = recorder
        cls = type(recorder)
        self.tracing = cls.access is not Recorder.access
        self.tracks_init = cls.uninitialized is not Recorder.uninitialized
        self.tracks_staged = cls.staged_access is not Recorder.staged_access
        # Orders the events on shared arrays that asynchronous copies fill (trace.Landed).
        self.clock = 0
        # Told of every write into shared memory, (buffer, flat indices, lanes, site): the
        # warpgroup MMA watches the tiles its pending wgmmas read (runtime/sim/wgmma.py).
        self.watcher = None
        staged = {x.arg[0] for st in iter_stmts(kir.body) for x in stmt_exprs(st)
                  if x.op is Op.ASYNC_COPY}
        self.groups = -(-n // WORKGROUP)
        self.buffers: dict[str, Buffer] = {}
        self.infos = Buffers()  # nothing per workgroup: scratch is allocated per chunk
        roots: dict[int, int] = {}
        for p, v in zip(kir.params, values):
            if p.kind == "array":
                self._global(p.name, v, roots, p.name in uninitialized)
        for sc in kir.scratch.values():
            copies = self.groups if sc.space == "shared" else 1
            ident = self.infos.add(BufferInfo(sc.name, sc.space, sc.size, True), copies)
            self.buffers[sc.name] = Buffer(sc.name, sc.space, sc.size, ident,
                                           staged=sc.name in staged)
        self.scratch = [(self.buffers[s.name], npdtype(s.dtype)) for s in kir.scratch.values()]
        for tb in kir.tables.values():  # read-only: no races, always initialized
            ident = self.infos.add(BufferInfo(tb.name, "constant", tb.size, False))
            data = np.array(tb.values, npdtype(tb.dtype))
            self.buffers[tb.name] = Buffer(tb.name, "constant", tb.size, ident, data=data)

    def _global(self, name: str, a: np.ndarray, roots: dict, uninit: bool) -> None:
        root = _root(a)
        ident = roots.get(id(root))
        if ident is None:  # the first name of this memory gives it its id
            ident = roots[id(root)] = self.infos.add(
                BufferInfo(name, "global", root.nbytes // max(a.itemsize, 1), uninit))
        offset = (a.ctypes.data - root.ctypes.data) // a.itemsize if a.size else 0
        flat = a.reshape(-1)
        b = Buffer(name, "global", flat.size, ident, offset, flat)
        if uninit and self.tracks_init:
            b.written = np.zeros(flat.size, bool)
        self.buffers[name] = b

    def new_chunk(self, lanes: int, groups: int) -> None:
        """Fresh zeroed scratch for a chunk of `groups` workgroups (`lanes` lanes)."""
        for b, dtype in self.scratch:
            copies = groups if b.space == "shared" else lanes
            b.data = np.zeros(copies * b.extent, dtype)
            if self.tracks_init:
                b.written = np.zeros(copies * b.extent, bool)

    # ---- addressing -------------------------------------------------------------------------
    def address(self, b: Buffer, idx, act: Lanes, site):
        """(in-bounds mask or None when all are, the lanes and indices that access)."""
        idx = spread(idx, act.count, np.int64)
        if act.count == 0 or (idx.min() >= 0 and idx.max() < b.extent):
            return None, act, idx
        ok = (idx >= 0) & (idx < b.extent)
        bad = act.where(~ok)
        self._per_buffer(b, bad, idx[~ok], lambda ident, lanes, index: self.recorder.bounds(
            ident, b.space, lanes.t, index + b.offset, b.extent, site))
        return ok, act.where(ok), idx[ok]

    def _per_buffer(self, b: Buffer, act: Lanes, idx: np.ndarray, report) -> None:
        """Call `report(id, lanes, indices)` once per recorder buffer the lanes touch (one per
        workgroup for shared scratch)."""
        if b.space != "shared":
            report(b.ident, act, idx)
            return
        gp = act.group_pos
        cuts = np.flatnonzero(np.diff(gp)) + 1
        for lo, hi in zip(np.r_[0, cuts], np.r_[cuts, len(gp)]):
            sub = Lanes(act.pos[lo:hi], act.base, False)
            report(b.ident + act.base // WORKGROUP + int(gp[lo]), sub, idx[lo:hi])

    def tick(self) -> int:
        self.clock += 1
        return self.clock

    def record(self, kind: str, b: Buffer, act: Lanes, idx: np.ndarray, epoch, site) -> None:
        if self.watcher is not None and kind != "read" and b.space == "shared" and act.count:
            self.watcher(b, b.flat(idx, act), act, site)
        if b.watch is not None:
            b.watch(kind, b, act, idx, site)
        if b.staged and self.tracks_staged and act.count:  # shared: ids per workgroup
            gp = act.group_pos
            self.recorder.staged_access(kind, b.ident + act.base // WORKGROUP + gp, act.t, idx,
                                        epoch[gp], self.tick(), site)
        if not self.tracing or act.count == 0 or b.space == "constant":
            return
        self._per_buffer(b, act, idx, lambda ident, lanes, index: self.recorder.access(
            kind, ident, b.space, lanes.t, index + b.offset, epoch[lanes.group_pos], site))

    # ---- loads and stores ---------------------------------------------------------------------
    def load(self, name: str, idx, act: Lanes, epoch, site, dtype) -> np.ndarray:
        b = self.buffers[name]
        ok, a, i = self.address(b, idx, act, site)
        flat = b.flat(i, a)
        vals = b.data[flat]
        self.record("read", b, a, i, epoch, site)
        if b.written is not None and a.count:
            fresh = ~b.written[flat]
            if fresh.any():
                self._per_buffer(b, a.where(fresh), i[fresh], lambda ident, lanes, index:
                                 self.recorder.uninitialized(ident, b.space, lanes.t,
                                                             index + b.offset, site))
                vals[fresh] = 0
        if ok is None:
            return vals
        out = np.zeros(act.count, dtype)
        out[ok] = vals
        return out

    def store(self, name: str, idx, value, act: Lanes, epoch, site) -> None:
        b = self.buffers[name]
        ok, a, i = self.address(b, idx, act, site)
        if ok is not None and np.ndim(value):
            value = value[ok]
        flat = b.flat(i, a)
        b.data[flat] = value
        if b.written is not None:
            b.written[flat] = True
        self.record("write", b, a, i, epoch, site)
