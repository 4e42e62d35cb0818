"""One pass of the radix sort on an engine with workgroups: a stable 8-bit digit pass that ranks
each tile of STILE keys in shared memory, so that the global writes land in runs per digit.

A pass is three launches: `radix_counts` (each workgroup counts the digits of 8 tiles with
shared-memory atomics and writes them into columns b … b+7 of a digit-major table),
an exclusive scan of that table (scans.py: the offset of digit d of tile b is the number of keys
with a smaller digit, plus those with digit d in the tiles before b), and `radix_scatter`.
The scatter sorts its tile by the digit in two stable 4-bit steps (`rank_nibble`: per-lane
counters of the 16 nibble values in shared memory, scanned in nibble-major, lane-major order by
tiles.py's `tile_prefixes`; each lane holds STILE / 256 consecutive keys, so that order is the
input order), then writes key k of digit d to `offset(d, b) + (its rank among the tile's keys of
digit d)`. Equal digits keep their input order (stable), so the permutation, which is unique for
a stable sort, is the same bits on every engine (docs/algorithms.md, "Paths per engine").
SPL and the pads are sized so that 64-bit keys fit CUDA's 48 KB of static shared memory.
"""
from __future__ import annotations

from .. import dtypes as dt
from ..constants import constant
from ..frontend.inline import func
from ..intrinsics import atomic_add, barrier, local_array_like, shared_like, thread_id, unroll
from ..kernel import kernel
from ..lib.combine import in_dtype
from .tiles import SLOTS, slot, tile_prefixes

SPL = constant(8)  # keys per lane of a tile
STILE = constant(8 * 256)  # keys per tile (one workgroup)
XSLOTS = constant(8 * 256 + 8 * 256 // 32)  # a tile of keys in shared memory, with pad slots


@func
def digit(k, shift):
    """The 8-bit digit of key k at `shift` (an i32; `int` keeps the low 32 bits of a u64)."""
    return int(k >> shift) & 255


@func
def ukey(src, like, low, j):
    """Key j as an unsigned offset from the minimum (like's dtype): the first pass reads the
    caller's keys and subtracts low[0], the later ones read offsets and subtract zero."""
    return in_dtype(like, src[j]) - low[0]


@func
def counts_tile(src, like, low, hist, c, n, base, lane, shift, row):
    """Add the digits of keys base … base + STILE - 1 (those below n) into shared counts
    c[row + d], every load first, so that SPL of them are in flight per lane."""
    ds = local_array_like(hist, SPL)
    for k in unroll(range(SPL)):
        ds[k] = -1
        if base + k * 256 + lane < n:
            ds[k] = digit(ukey(src, like, low, base + k * 256 + lane), shift)
    for k in unroll(range(SPL)):
        if ds[k] >= 0:
            atomic_add(c, row + ds[k], 1)


@kernel
def radix_counts(src, like, low, hist, n, shift, groups):
    """hist[d * m8 + b] = how many keys of tile b have digit d (m8 = 8 * groups, the tiles
    rounded up to a multiple of 8). Each workgroup counts 8 tiles, so that lane d writes its
    digit's 8 counts as one 32-byte run (a run per lane, not a scattered word)."""
    for t in range(groups * 256):
        c = shared_like(hist, 8 * 256)
        lane = thread_id()
        w = t // 256
        for i in unroll(range(8)):
            c[i * 256 + lane] = 0
        barrier()
        for i in range(8):
            counts_tile(src, like, low, hist, c, n, (w * 8 + i) * STILE, lane, shift, i * 256)
        barrier()
        for i in unroll(range(8)):
            hist[lane * (groups * 8) + w * 8 + i] = c[i * 256 + lane]


@func
def rank_nibble(perm, kx, px, lanes, kv, pv, lane, shift, scan):
    """Sort the tile held in registers (lane l holds keys l*SPL … l*SPL + SPL-1 in kv, their
    permutation entries in pv) stably by the 4 bits of the key at `shift`, into kx and px.
    px first serves as the counters: entry v*256 + l counts lane l's keys of nibble v. The
    lane counts in a register, 4 bits per nibble value (at most SPL = 8 keys each), rather
    than by a chain of loads and stores of its shared counters, one per key."""
    r = local_array_like(perm, SPL)
    counts = dt.u64(0)
    for i in unroll(range(SPL)):
        at = dt.u64((int(kv[i] >> shift) & 15) * 4)
        r[i] = int((counts >> at) & dt.u64(15))  # the lane's keys of this nibble before key i
        counts = counts + (dt.u64(1) << at)
    barrier()  # every lane is done reading kx and px
    for v in unroll(range(16)):
        px[slot(v * 256 + lane)] = int((counts >> dt.u64(4 * v)) & dt.u64(15))
    barrier()
    tile_prefixes(px, lanes, lane, perm, 1, scan)  # exclusive: where each (nibble, lane) run
    # starts; `scan` (tiles.block_inclusive or warp_inclusive) gives the lanes' offsets
    for i in unroll(range(SPL)):
        r[i] = r[i] + px[slot((int(kv[i] >> shift) & 15) * 256 + lane)]
    barrier()
    for i in unroll(range(SPL)):
        kx[slot(r[i])] = kv[i]
        px[slot(r[i])] = pv[i]
    barrier()


@func
def load_tile(src, low, perm, okeys, kx, px, kv, pv, n, base, lane, first):
    """Keys and entries of the tile into kv and pv, lane l holding elements l*SPL … (loaded
    coalesced through shared memory); past n, keys of all ones (the last digit everywhere),
    which stay behind every real key of the tile. The first pass's entries are the indices."""
    for k in unroll(range(SPL)):
        j = base + k * 256 + lane
        kv[k] = in_dtype(okeys, -1)
        pv[k] = 0
        if j < n:
            kv[k] = ukey(src, okeys, low, j)
            pv[k] = j if first else perm[j]
    for k in unroll(range(SPL)):
        kx[slot(k * 256 + lane)] = kv[k]
        px[slot(k * 256 + lane)] = pv[k]
    barrier()
    for i in unroll(range(SPL)):
        kv[i] = kx[slot(lane * SPL + i)]
        pv[i] = px[slot(lane * SPL + i)]


@func
def scatter_tile(kx, px, okeys, operm, kout, klow, goff, start, n, base, lane, shift, keys_out):
    """Write the tile, sorted by digit in kx and px, to its places: position p of digit d goes
    to goff[d] + p - (the tile's first position of digit d). Keys go to okeys (keys_out 1), or
    plus klow[0] to kout, converted by the store (keys_out 2: the last pass of `sort`)."""
    for k in unroll(range(SPL)):
        p = k * 256 + lane
        d = digit(kx[slot(p)], shift)
        before = -1
        if p > 0:
            before = digit(kx[slot(p - 1)], shift)
        if d != before:
            start[d] = p
    barrier()
    for k in unroll(range(SPL)):
        p = k * 256 + lane
        if base + p < n:  # the tile's real keys are its first n - base positions
            key = kx[slot(p)]
            d = digit(key, shift)
            g = goff[d] + (p - start[d])
            if keys_out == 1:
                okeys[g] = key
            elif keys_out == 2:
                kout[g] = key + klow[0]  # wraps back to the key's bits on the store
            operm[g] = px[slot(p)]


@kernel
def radix_scatter(src, low, perm, okeys, operm, kout, klow, hist, n, shift, groups, first,
                  keys_out, scan):
    """One stable pass by the digit at `shift`; hist holds the scanned table of radix_counts.
    The first pass reads the caller's keys (src, minus low[0]) and no perm; keys_out says
    where the keys go: nowhere (0, the last pass of an argsort), okeys (1), kout (2)."""
    for t in range(groups * (8 * 256)):
        kx = shared_like(okeys, XSLOTS)
        px = shared_like(perm, SLOTS)  # the nibble counters (SLOTS), then the entries
        lanes = shared_like(perm, 256)
        goff = shared_like(hist, 256)
        start = shared_like(hist, 256)
        lane = thread_id()
        b = t // 256
        kv = local_array_like(okeys, SPL)
        pv = local_array_like(perm, SPL)
        goff[lane] = hist[lane * (groups * 8) + b]
        load_tile(src, low, perm, okeys, kx, px, kv, pv, n, b * STILE, lane, first)
        rank_nibble(perm, kx, px, lanes, kv, pv, lane, shift, scan)
        for i in unroll(range(SPL)):
            kv[i] = kx[slot(lane * SPL + i)]
            pv[i] = px[slot(lane * SPL + i)]
        rank_nibble(perm, kx, px, lanes, kv, pv, lane, shift + 4, scan)
        scatter_tile(kx, px, okeys, operm, kout, klow, goff, start, n, b * STILE, lane, shift,
                     keys_out)
