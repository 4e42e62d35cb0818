"""`exclusive_scan` and `inclusive_scan`: prefix sums in the output's dtype, as Tack kernels.

Every addition happens in dst's dtype (each term converted on a store, so integer sums wrap at
the output width) in an order fixed by n. Without workgroups: chunk totals, a one-iteration scan
of those, then each chunk rescanned from its offset (three passes, two over the data). With
workgroups, on a GPU (device memory) for dtypes of at most 32 bits: the single pass of
lookback.py. Otherwise with workgroups (the simulator, 64-bit dtypes): tiles of TILE elements;
a tile's total, the scan of the tile totals (the same algorithm, applied to them when there are
many), then each tile scanned in shared memory from its offset (docs/algorithms.md, "Scans").
In deterministic mode every engine with workgroups takes the look-back where CUDA does, and an
engine without workgroups computes a float scan with the same additions (scan_order.py)."""
from __future__ import annotations

import numpy as np

from .. import dtypes as dt
from ..arrays import Array
from ..devices import deterministic_mode
from ..intrinsics import local_array_like, shared_like, thread_id, unroll
from ..ir.ops import WORKGROUP
from ..kernel import kernel
from ..lib.combine import add, in_dtype
from ..lib.reductions import group_reduce
from ..lib.warp_reductions import warp_group_reduce
from . import _views as V
from . import lookback as LB
from . import scan_order as SO
from ._scratch import kept, unfilled
from .copy_fill import copy_elements, detached
from .settings import current as tuned
from .tiles import PER, SLOTS, TILE, block_inclusive, slot, stage, tile_prefixes, warp_inclusive

__all__ = ["exclusive_scan", "inclusive_scan"]

CHUNK = 1 << 16  # elements per CPU iteration


@kernel
def chunk_totals(src, dst, part, n, chunk):
    for c in range(part.shape[0]):
        lo = c * chunk
        hi = min(n, lo + chunk)
        acc = in_dtype(dst, 0)
        for j in range(lo, hi):
            acc += in_dtype(dst, src[j])
        part[c] = acc


@kernel
def scan_totals(part):
    """An inclusive scan of the chunk totals, in place and in order."""
    for _ in range(1):
        acc = part[0]
        for c in range(1, part.shape[0]):
            acc += part[c]
            part[c] = acc


@kernel
def chunk_scan(src, dst, part, n, chunk, exclusive):
    for c in range(part.shape[0]):
        lo = c * chunk
        hi = min(n, lo + chunk)
        acc = in_dtype(dst, 0)
        if c > 0:
            acc = part[c - 1]
        if exclusive:
            for j in range(lo, hi):
                v = in_dtype(dst, src[j])  # read before the write: in place is allowed
                dst[j] = acc
                acc += v
        else:
            for j in range(lo, hi):
                acc += in_dtype(dst, src[j])
                dst[j] = acc


@kernel
def tile_totals(src, dst, part, n, tree):
    """part[g]: the total of tile g, each lane's PER elements added in order, the lanes by the
    workgroup's `tree` (group_reduce or warp_group_reduce)."""
    for t in range(part.shape[0] * 256):
        lane = thread_id()
        base = (t // 256) * (PER * 256) + lane
        vals = local_array_like(dst, PER)
        for k in unroll(range(PER)):  # every load first: PER of them in flight per lane
            vals[k] = in_dtype(dst, 0)
            if base + k * 256 < n:
                vals[k] = in_dtype(dst, src[base + k * 256])
        acc = vals[0]
        for k in unroll(range(1, PER)):
            acc += vals[k]
        r = tree(dst, acc, add)
        if lane == 0:
            part[t // 256] = r


@kernel
def tile_scan(src, dst, part, n, exclusive, scan):
    for t in range(part.shape[0] * 256):
        tile = shared_like(dst, SLOTS)
        lanes = shared_like(dst, 256)
        lane = thread_id()
        g = t // 256
        base = g * (PER * 256)
        stage(src, dst, tile, n, base, lane)  # read before any write: in place is allowed
        tile_prefixes(tile, lanes, lane, dst, exclusive, scan)
        carry = in_dtype(dst, 0)
        if g > 0:
            carry = part[g - 1]
        for k in unroll(range(PER)):
            j = base + k * 256 + lane
            if j < n:
                dst[j] = carry + tile[slot(k * 256 + lane)] if g > 0 else tile[
                    slot(k * 256 + lane)]


def _look_back(dev, dtype) -> bool:
    """The single pass where workgroups run concurrently in device memory (a GPU: not the
    simulator, which runs them in lockstep on the host) and 64-bit atomics publish its words;
    dst's dtype must fit the 32-bit payload (docs/algorithms.md, "Paths per engine"). In
    deterministic mode on every engine with workgroups (the simulator and Julia's CPU backend
    too, where a look-back that waits too long computes its prefix from the aggregates), so that
    their float scans have CUDA's bits (docs/numerics.md, "Deterministic mode"). A
    `tack.algorithms.tuning(scan=...)` block forces one path."""
    path = tuned().scan
    want = (not dev.is_host or deterministic_mode()) if path is None else path == "look_back"
    return bool(want and LB.encoding(dtype) and dt.u64 in dev.supported_atomic_dtypes)


def steps(a: Array) -> tuple:
    """The workgroup steps of the GPU scans on a's device: (the reduction of a tile's lane
    totals, their scan, the look-back's scan of tile totals), by warp shuffles where warps
    exchange registers (_views.warp_paths), else through shared memory."""
    if V.warp_paths(a):
        return warp_group_reduce, warp_inclusive, LB.warp_pair_scan
    return group_reduce, block_inclusive, LB.pair_scan


def _scan(src: Array, dst: Array, n: int, exclusive: int):
    """Scan src[:n] into dst[:n] (flat views, n > 0); the total, a Python number."""
    enc = LB.encoding(dst.dtype)
    tree, scan, pairs = steps(dst)
    cfg = tuned()
    if V.workgroups(src) and n > WORKGROUP and _look_back(dst.device, dst.dtype):
        tiles = -(-n // (TILE * cfg.sub))
        size, total = LB.layout(tiles, cfg.window)
        words = kept(dst.device, dt.u64, "look-back", size)
        LB.clear(words)
        LB.scan_kernel(enc, cfg.sub, cfg.lean)(src, dst, words, n, tiles, exclusive, cfg.window,
                                               cfg.patience, int(cfg.tickets), scan, pairs)
        return LB.decode(words[total], dst.dtype)
    if V.emulated_groups(src) and n > WORKGROUP and dst.dtype.is_float:
        # deterministic mode without workgroups: CUDA's additions (integers: any order is exact)
        if enc is not None:
            return SO.look_back(src, dst, n, exclusive, cfg.sub, cfg.window)
        return SO.two_pass(src, dst, n, exclusive, _scan_tile_totals)
    if V.workgroups(src) and n > WORKGROUP:
        part = kept(dst.device, dst.dtype, "tile totals", -(-n // TILE))  # written, then read
        tile_totals(src, dst, part, n, tree)
        _scan_tile_totals(part)
        tile_scan(src, dst, part, n, exclusive, scan)
    else:
        part = kept(dst.device, dst.dtype, "chunk totals", -(-n // CHUNK))
        chunk_totals(src, dst, part, n, CHUNK)
        scan_totals(part)
        chunk_scan(src, dst, part, n, CHUNK, exclusive)
    return part[part.shape[0] - 1]  # the scanned totals end with the whole total


def _scan_tile_totals(part: Array) -> None:
    """The inclusive scan of the two passes' tile totals, in place: many tiles' totals by the
    same algorithm, else in order."""
    if part.shape[0] > WORKGROUP:
        _scan(part, part, part.shape[0], 0)
    else:
        scan_totals(part)


def _run(name: str, src, dst, n, exclusive: int):
    V.need_array(name, "src", src)
    V.need_writable(name, "dst", V.need_array(name, "dst", dst))
    for a in (src, dst):
        if V.scalar_dtype(a) not in V.INTEGERS + V.FLOATS:
            raise V.TackTypeError(f"{name}: arrays must hold numbers, got {a.dtype!r}")
    s, d = V.flat(src), V.flat(dst)
    V.same_device(name, s, d)
    n = V.count(name, n, src=s, dst=d)
    if n == 0:
        return d.dtype.np.type(0).item()
    if d.dtype in V.HALVES:  # running sums in f32, each prefix rounded once to dst's dtype
        wide = unfilled(d.device, dt.f32, n)
        total = _scan(s, wide, n, exclusive)
        copy_elements(wide, d, n)
        with np.errstate(over="ignore"):  # f16 overflows to inf, as the stored prefixes do
            return d.dtype.np.type(total)
    return _scan(detached(s, n, d), d, n, exclusive)


def exclusive_scan(src: Array, dst: Array, n=None):
    """dst[i] = src[0] + … + src[i-1] for i < n (dst[0] = 0); returns the total of src[:n] in
    dst's dtype (integer sums wrap at its width). n defaults to src's length, which dst must
    hold. In place (src is dst) is allowed; arrays that overlap otherwise scan a copy of src."""
    return _run("exclusive_scan", src, dst, n, 1)


def inclusive_scan(src: Array, dst: Array, n=None):
    """dst[i] = src[0] + … + src[i] for i < n; returns the total (dst[n-1]). n and overlap as
    in exclusive_scan."""
    return _run("inclusive_scan", src, dst, n, 0)
