"""The tile of the GPU scans, shared by the two-pass scan (scans.py), the single-pass scan
with look-back (lookback.py) and the radix sort's scan of its nibble counters (radix.py): PER
elements per lane of a 256-lane workgroup, staged in shared memory with coalesced loads,
scanned serially by each lane over its PER consecutive elements, then across the lanes by a
scan of the lane totals: the Hillis–Steele scan in shared memory (`block_inclusive`), or on
engines whose warps exchange registers (`Capabilities.register_warps`: CUDA and the simulator)
a scan by warp shuffles that groups the additions otherwise (`warp_inclusive`), passed to the
kernels as their `scan`. The order of the additions is fixed (it depends on the tile's
position, n and the `scan` only)."""
from __future__ import annotations

from ..constants import constant
from ..frontend.inline import func
from ..intrinsics import barrier, lane_id, local_array_like, shfl, shfl_up, unroll, warp_id
from ..ir.ops import WORKGROUP
from ..lib.combine import in_dtype

PER = constant(16)  # elements per lane of a GPU tile (read by the kernels)
SLOTS = constant(16 * 256 + 16 * 256 // 32)  # a tile in shared memory, with its pad slots
TILE = PER * WORKGROUP


@func
def block_inclusive(s, lane, v):
    """Hillis–Steele inclusive scan of one value per lane in shared `s`."""
    s[lane] = v
    barrier()
    off = 1
    while off < 256:
        x = s[lane]
        if lane >= off:
            x = s[lane - off] + x
        barrier()
        s[lane] = x
        barrier()
        off = off * 2
    return s[lane]


@func
def warp_steps(x, width):
    """The Hillis–Steele inclusive scan of x over each run of `width` lanes of a warp (a power
    of two up to 32) by shuffles: x = shfl_up(x, off) + x on lanes at or past off, for off =
    1, 2, …; the same additions as block_inclusive's over those lanes."""
    i = lane_id()
    off = 1
    while off < width:
        y = shfl_up(x, off)
        if i >= off:
            x = y + x
        off = off * 2
    return x


@func
def warp_inclusive(s, lane, v):
    """What block_inclusive gives (the inclusive scan of one value per lane, in s[lane] and
    returned) by warps: each warp scans its 32 values by shuffles (`warp_steps`), warp w's
    total goes to s[w], every warp scans the eight totals the same way (lane l takes s[l % 8])
    and adds those of the warps before it. Three barriers, not seventeen; the grouping of the
    additions differs from block_inclusive's past the first warp (integers: the same values)."""
    i = lane_id()
    w = warp_id()
    x = warp_steps(v, 32)
    if i == 31:
        s[w] = x
    barrier()
    t = warp_steps(s[i % 8], 8)
    before = shfl(t, w - 1)  # the totals of warps 0 … w-1 (for warp 0 unused)
    if w > 0:
        x = before + x
    barrier()  # every warp has read the totals before s is written again
    s[lane] = x
    barrier()
    return x


@func
def slot(e):
    """Where element e of a tile sits in shared memory: one pad slot per 32, so that the lanes
    of a warp reading their PER consecutive elements hit 32 different banks."""
    return e + e // 32


@func
def stage(src, dst, tile, n, base, lane):
    """Element e of the tile (from `base`) into tile[slot(e)], loaded coalesced (lane l reads
    base + k*256 + l), converted to dst's dtype, zero past n."""
    stage_at(src, dst, tile, 0, n, base, lane)


@func
def stage_at(src, dst, tile, at, n, base, lane):
    """`stage` into the tile that starts at tile[at] (one of several in one shared array)."""
    vals = local_array_like(dst, PER)
    for k in unroll(range(PER)):  # every load first: PER of them in flight per lane
        vals[k] = in_dtype(dst, 0)
        if base + k * 256 + lane < n:
            vals[k] = in_dtype(dst, src[base + k * 256 + lane])
    for k in unroll(range(PER)):
        tile[at + slot(k * 256 + lane)] = vals[k]
    barrier()


@func
def tile_prefixes(tile, lanes, lane, like, exclusive, scan):
    """Replace each staged element by its prefix within the tile: lane l scans elements
    l*PER … l*PER + PER-1 serially, `scan` (block_inclusive or warp_inclusive) over `lanes`
    gives the lanes' offsets, and element e becomes offset + (its prefix within the lane)."""
    prefixes_at(tile, 0, lanes, lane, like, exclusive, scan)


@func
def prefixes_at(tile, at, lanes, lane, like, exclusive, scan):
    """`tile_prefixes` of the tile that starts at tile[at]; the tile's total ends in lanes[255]."""
    vals = local_array_like(like, PER)
    acc = in_dtype(like, 0)
    for i in unroll(range(PER)):
        v = tile[at + slot(lane * PER + i)]
        before = acc
        acc = acc + v
        vals[i] = before if exclusive else acc
    scan(lanes, lane, acc)
    off = in_dtype(like, 0)
    if lane > 0:
        off = lanes[lane - 1]
    for i in unroll(range(PER)):
        tile[at + slot(lane * PER + i)] = off + vals[i] if lane > 0 else vals[i]
    barrier()
