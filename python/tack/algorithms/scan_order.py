"""The workgroup engines' float scans on an engine without workgroups, in deterministic mode
(docs/numerics.md, "Deterministic mode"): the additions of CUDA's paths, each workgroup's lanes
run one after the other by one iteration, so the CPU engine's scans have CUDA's bits.

- float32 (and the half types, scanned in float32): the single-pass look-back scan
  (lookback.py): tiles of `sub` tiles.py tiles; each lane's PER consecutive elements scanned in
  order, the 256 lane totals by `tiles.warp_inclusive`'s additions, a tile's aggregate the sum of
  its sub-tiles' totals, and a tile's carry the block prefixes Q and the Hillis–Steele scan of
  its block's aggregates (`lookback_carries`).
- float64: the two passes of scans.py (`tile_totals` with the warp tree, the scan of the tile
  totals, `tile_scan`).
"""
from __future__ import annotations

from ..arrays import Array, zeros
from ..frontend.inline import func
from ..intrinsics import local_array_like
from ..kernel import kernel
from ..lib.combine import add, in_dtype
from .reduce import warp_order
from .tiles import PER, TILE


@func
def hs_steps(s, at, width):
    """The Hillis–Steele inclusive scan of s[at : at + width] in place, each step from the top
    (s[i] = s[i - off] + s[i]: every read is of the step before), the additions of
    tiles.block_inclusive and tiles.warp_steps."""
    off = 1
    while off < width:
        i = width - 1
        while i >= off:
            s[at + i] = s[at + i - off] + s[at + i]
            i -= 1
        off = off * 2


@func
def lanes_inclusive(lanes, warps):
    """lanes[0:256] scanned as tiles.warp_inclusive scans them: each warp's 32 values, the
    eight warp totals (in `warps`), warp w > 0 adding the scanned total of the warps before."""
    for w in range(8):
        hs_steps(lanes, w * 32, 32)
        warps[w] = lanes[w * 32 + 31]
    hs_steps(warps, 0, 8)
    for w in range(1, 8):
        for i in range(32):
            lanes[w * 32 + i] = warps[w - 1] + lanes[w * 32 + i]


@func
def element(src, dst, n, j):
    """src[j] in dst's dtype, zero past n (as tiles.stage loads a tile)."""
    v = in_dtype(dst, 0)
    if j < n:
        v = in_dtype(dst, src[j])
    return v


@func
def lane_totals(src, dst, lanes, warps, n, base):
    """The lanes of the tile at `base` (lane l: elements l * PER … l * PER + PER - 1 added in
    order from zero), scanned by `lanes_inclusive`: the tile's total is lanes[255]."""
    for lane in range(256):
        acc = in_dtype(dst, 0)
        for i in range(PER):
            acc = acc + element(src, dst, n, base + lane * PER + i)
        lanes[lane] = acc
    lanes_inclusive(lanes, warps)


@func
def write_tile(src, dst, lanes, n, base, exclusive, c, first):
    """The tile's prefixes (tiles.prefixes_at: the lane's own from zero, after the lane offset
    lanes[l - 1]) written from offset c, nothing added to the `first` tile's."""
    for lane in range(256):
        acc = in_dtype(dst, 0)
        for i in range(PER):
            j = base + lane * PER + i
            v = element(src, dst, n, j)  # read before the write: in place is allowed
            before = acc
            acc = acc + v
            t = before if exclusive else acc
            if lane > 0:
                t = lanes[lane - 1] + t
            if j < n:
                dst[j] = t if first else c + t


@kernel
def lookback_aggregates(src, dst, aggs, n, sub):
    """aggs[g]: tile g's aggregate, its `sub` sub-tiles' totals added in order."""
    for g in range(aggs.shape[0]):
        lanes = local_array_like(dst, 256)
        warps = local_array_like(dst, 8)
        total = in_dtype(dst, 0)
        for s in range(sub):
            lane_totals(src, dst, lanes, warps, n, (g * sub + s) * (PER * 256))
            total = lanes[255] if s == 0 else total + lanes[255]
        aggs[g] = total


@kernel
def lookback_carries(aggs, carries, span):
    """carries[g]: tile g's exclusive prefix as lookback.tile_carry computes it (the block
    prefix Q_{m-1} = Q_{m-2} + B_{m-1}, Q_0 = B_0, plus the Hillis–Steele scan of the block's
    aggregates before the tile); carries[tiles]: the last tile's inclusive prefix, the total."""
    for _ in range(1):
        tiles = aggs.shape[0]
        block = local_array_like(aggs, 256)
        q = in_dtype(aggs, 0)
        for m in range((tiles + span - 1) // span):
            for i in range(span):
                block[i] = in_dtype(aggs, 0)
                if m * span + i < tiles:
                    block[i] = aggs[m * span + i]
            hs_steps(block, 0, span)
            for r in range(min(span, tiles - m * span)):
                p = q
                if r > 0:
                    p = q + block[r - 1] if m > 0 else block[r - 1]
                carries[m * span + r] = p
                carries[tiles] = q + block[r] if m > 0 else block[r]
            q = q + block[span - 1] if m > 0 else block[span - 1]


@kernel
def lookback_write(src, dst, carries, n, sub, exclusive):
    for g in range(carries.shape[0] - 1):
        lanes = local_array_like(dst, 256)
        warps = local_array_like(dst, 8)
        c = carries[g]
        for s in range(sub):
            base = (g * sub + s) * (PER * 256)
            lane_totals(src, dst, lanes, warps, n, base)
            first = g == 0 and s == 0
            write_tile(src, dst, lanes, n, base, exclusive, c, first)
            c = lanes[255] if first else c + lanes[255]


@kernel
def tile_total_lanes(src, dst, part, n):
    """scans.tile_totals with the warp tree: lane l adds elements l, l + 256, … of its tile from
    the first, the lanes in reduce.warp_order."""
    for g in range(part.shape[0]):
        acc = local_array_like(dst, 256)
        for lane in range(256):
            b = g * (PER * 256) + lane
            a = element(src, dst, n, b)
            for k in range(1, PER):
                a = a + element(src, dst, n, b + k * 256)
            acc[lane] = a
        part[g] = warp_order(acc, add)


@kernel
def tile_scan_lanes(src, dst, part, n, exclusive):
    """scans.tile_scan with tiles.warp_inclusive, tile g from part[g - 1] (the scanned totals)."""
    for g in range(part.shape[0]):
        lanes = local_array_like(dst, 256)
        warps = local_array_like(dst, 8)
        lane_totals(src, dst, lanes, warps, n, g * (PER * 256))
        c = in_dtype(dst, 0)
        if g > 0:
            c = part[g - 1]
        write_tile(src, dst, lanes, n, g * (PER * 256), exclusive, c, g == 0)


def look_back(src: Array, dst: Array, n: int, exclusive: int, sub: int, span: int):
    """The look-back scan's values for src[:n] into dst (float32); the total, a Python float."""
    tiles = -(-n // (TILE * sub))
    aggs = zeros(tiles, dst.dtype, device=dst.device)
    carries = zeros(tiles + 1, dst.dtype, device=dst.device)
    lookback_aggregates(src, dst, aggs, n, sub)
    lookback_carries(aggs, carries, span)
    lookback_write(src, dst, carries, n, sub, exclusive)
    return carries[tiles]


def two_pass(src: Array, dst: Array, n: int, exclusive: int, scan_totals):
    """The two passes' values for src[:n] into dst (float64): the tile totals scanned by
    `scan_totals(part)` (scans.py: the same path again when there are many)."""
    part = zeros(-(-n // TILE), dst.dtype, device=dst.device)
    tile_total_lanes(src, dst, part, n)
    scan_totals(part)
    tile_scan_lanes(src, dst, part, n, exclusive)
    return part[part.shape[0] - 1]
