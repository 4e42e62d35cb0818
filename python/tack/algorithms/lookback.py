"""A single-pass GPU scan with decoupled look-back: each element is read once and written once.

A workgroup takes a ticket (an atomic counter, so tiles start in ticket order and a tile only
ever waits for tiles that are already running), scans its tile in shared memory (`sub` tiles.py
tiles, one after the other: `stage_at` and `prefixes_at`) and publishes the tile's aggregate A_g.
Every published value is one 64-bit word, `1 << 32 | payload`, written and read by atomics: a
relaxed atomic on one word needs no fence, which the kernel language does not have
(docs/language.md, "Atomics"). So the payload is 32 bits: dst dtypes of at most 32 bits
(integers by their low 32 bits, f32 by its bits through `tack.bitcast`); 64-bit dtypes take
scans.py's two-pass path.

Deterministic, and parallel: tiles are grouped in blocks of `span` tiles (the window, up to one
per lane). B_b, a block's sum, is the Hillis–Steele inclusive scan (tiles.block_inclusive's tree) of
its aggregates at its last tile, and Q_b = Q_{b-1} + B_b (Q_0 = B_0) is the block's inclusive
prefix, published in its own word. Tile g = m * span + r scans the aggregates of the tiles before
it in its block the same way (the scan at lane r-1 is the same tree whichever tile computes it)
and of block m-1 (B_{m-1}), each word read by a lane of its own, so its exclusive prefix
Q_{m-1} + E_r needs only Q_{m-1}: published already, or Q_{m-2} + B_{m-1}. Every value is a
fixed function of the aggregates, so the bits depend on n (and span, sub) only. A tile publishes
each Q it computes (atomic max: every writer writes the same word). Waiting is only ever for
words that tiles already running will publish: aggregates at once, Q_{m-2} after its own
look-back (bounded by `patience` polls, after which lane 0 computes it from the aggregates alone,
as on an engine that runs workgroups in lockstep: the simulator). The window, sub-tiles per tile,
tickets, lean writes and patience are `tack.algorithms.tuning` settings (settings.py);
docs/algorithms.md ("Performance") has the measurements behind their defaults."""
from __future__ import annotations

import numpy as np

from .. import dtypes as dt
from ..constants import constant
from ..frontend.inline import func
from ..intrinsics import (
    atomic_add,
    atomic_max,
    barrier,
    bitcast,
    local_array_like,
    shared_like,
    thread_id,
    unroll,
)
from ..kernel import kernel
from ..lib.combine import in_dtype
from .tiles import PER, SLOTS, prefixes_at, slot, stage_at, warp_steps

LOW = constant(4294967295)  # 2^32 - 1: the payload's bits
READY = constant(4294967296)  # 1 << 32: the flag of a published word


@func
def int_bits(like, v):
    return dt.u64(v) & dt.u64(LOW)


@func
def int_value(like, w):
    return in_dtype(like, w & dt.u64(LOW))  # narrowing wraps: the low bits are the value


@func
def f32_bits(like, v):
    """The IEEE bit pattern of f32 `v`, as a payload."""
    return dt.u64(bitcast(v, dt.u32))


@func
def f32_value(like, w):
    """The f32 whose bit pattern is the low 32 bits of `w` (the inverse of f32_bits)."""
    return bitcast(dt.u32(w & dt.u64(LOW)), dt.f32)


@func
def pair_scan(like, s, u, lane, span):
    """tiles.block_inclusive's tree over s[0:span] and u[0:span] at once, in place (the lanes
    below span, which wrote them, after a barrier; the steps of span and more change nothing)."""
    barrier()
    off = 1
    while off < span:
        x = in_dtype(like, 0)
        y = in_dtype(like, 0)
        if lane < span:
            x = s[lane]
            y = u[lane]
            if lane >= off:
                x = s[lane - off] + x
                y = u[lane - off] + y
        barrier()
        if lane < span:
            s[lane] = x
            u[lane] = y
        barrier()
        off = off * 2


@func
def warp_pair_scan(like, s, u, lane, span):
    """pair_scan's values (the same additions: tiles.warp_steps) by the shuffles of warp 0 when
    span <= 32, which reads and writes s and u alone (two barriers, not 2 log2(span) + 1);
    pair_scan itself for longer blocks. For engines whose warps exchange registers."""
    if span <= 32:
        barrier()  # the lanes that wrote s and u are done
        x = in_dtype(like, 0)
        y = in_dtype(like, 0)
        if lane < span:
            x = s[lane]
            y = u[lane]
        x = warp_steps(x, 32)  # every warp takes part; the others scan zeros
        y = warp_steps(y, 32)
        if lane < span:
            s[lane] = x
            u[lane] = y
        barrier()
    else:
        pair_scan(like, s, u, lane, span)


@func
def wait_word(words, i):
    """Word i once published (a tile that is running publishes it without waiting)."""
    w = atomic_add(words, i, 0)
    while w < dt.u64(READY):
        w = atomic_add(words, i, 0)
    return w


@func
def block_total(dst, words, s, b, span, value):
    """B_b by lane 0 alone: block b's aggregates scanned serially in s by the Hillis–Steele
    steps (each s[l] = s[l - off] + s[l], from the top, so every read is of the step before)."""
    for i in range(span):
        s[i] = value(dst, wait_word(words, b * span + i))
    off = 1
    while off < span:
        i = span - 1
        while i >= off:
            s[i] = s[i - off] + s[i]
            i -= 1
        off = off * 2
    return s[span - 1]


@func
def prefix_alone(dst, words, s, k, span, tiles, bits, value):
    """Q_k by lane 0 alone: from the nearest published Q_j (j <= k, if any), adding B_{j+1}, …,
    B_k in order and publishing each Q on the way."""
    j = k
    w = atomic_add(words, tiles + j, 0)
    while j >= 0 and w < dt.u64(READY):
        j -= 1
        if j >= 0:
            w = atomic_add(words, tiles + j, 0)
    q = in_dtype(dst, 0)
    if j >= 0:
        q = value(dst, w)
    for b in range(j + 1, k + 1):
        bs = block_total(dst, words, s, b, span, value)
        q = q + bs if b > 0 else bs
        atomic_max(words, tiles + b, dt.u64(READY) | bits(dst, q))
    return q


@func
def block_prefix(dst, words, seen, prev, s, m, span, tiles, bits, value, patience):
    """Q_{m-1} (m > 0; lane 0): published (seen[0]), or Q_{m-2} + B_{m-1} with Q_{m-2} published
    (seen[1]), polled for, or computed alone; published when computed here."""
    q = in_dtype(dst, 0)
    if seen[0] >= dt.u64(READY):
        q = value(dst, seen[0])
    else:
        bm = prev[span - 1]
        if m == 1:
            q = bm
        else:
            w = seen[1]
            tries = 0
            while w < dt.u64(READY) and tries < patience:
                w = atomic_add(words, tiles + m - 2, 0)
                tries += 1
            if w >= dt.u64(READY):
                q = value(dst, w) + bm
            else:
                q = prefix_alone(dst, words, s, m - 2, span, tiles, bits, value) + bm
        atomic_max(words, tiles + m - 1, dt.u64(READY) | bits(dst, q))
    return q


@func
def tile_carry(dst, words, seen, prev, mine, s, g, m, r, span, tiles, bits, value, patience):
    """Tile g's exclusive prefix (lane 0; unused for g = 0), publishing Q_m at its block's
    last tile and the whole total at the last tile."""
    q = in_dtype(dst, 0)
    if m > 0:
        q = block_prefix(dst, words, seen, prev, s, m, span, tiles, bits, value, patience)
    p = q
    upto = mine[r]  # the block-canonical inclusive prefix through tile g
    if m > 0:
        upto = q + mine[r]
    if r > 0:
        p = q + mine[r - 1] if m > 0 else mine[r - 1]
    if r == span - 1:
        atomic_max(words, tiles + m, dt.u64(READY) | bits(dst, upto))
    if g == tiles - 1:
        blocks = (tiles + span - 1) // span
        atomic_max(words, tiles + blocks + 1, dt.u64(READY) | bits(dst, upto))
    return p


def _kernel(bits, value, sub, lean):
    """The look-back scan for one payload encoding (`bits`, `value`: integers or f32) over
    tiles of `sub` tiles.py tiles (staged and scanned one after the other, published as one);
    `lean` writes the sub-tiles in a loop instead of unrolled (ptxas: 40 registers instead of
    72 for sub = 2, so 6 workgroups per multiprocessor instead of 3: tuning's `lean`)."""
    rolls = constant(1 if lean else sub)  # the unroll factor of the write: 1 is a loop
    sub = constant(sub)  # a compile-time value of the kernel (a closure's int is not one)

    @kernel
    def scan_lookback(src, dst, words, n, tiles, exclusive, span, patience, ticketed, scan,
                      pairs):
        for t in range(tiles * 256):
            tile = shared_like(dst, sub * SLOTS)
            lanes = shared_like(dst, 256)
            mine = shared_like(dst, 256)  # this block's aggregates before this tile, scanned
            prev = shared_like(dst, 256)  # the previous block's, scanned: B_{m-1} at span - 1
            seen = shared_like(words, 2)  # the words of Q_{m-1} and Q_{m-2}
            carry = shared_like(dst, 1)
            subs = local_array_like(dst, sub)  # the sub-tiles' totals
            lane = thread_id()
            g = tile_index(words, seen, t, tiles, span, lane, ticketed)
            m = g // span
            r = g - m * span
            base = g * (sub * PER * 256)
            for s in unroll(range(sub)):  # read before any write: in place is allowed
                stage_at(src, dst, tile, s * SLOTS, n, base + s * (PER * 256), lane)
            for s in unroll(range(sub)):
                prefixes_at(tile, s * SLOTS, lanes, lane, dst, exclusive, scan)
                subs[s] = lanes[255]
                barrier()  # before the next sub-tile's scan writes lanes again
            total = subs[0]
            for s in unroll(range(1, sub)):
                total = total + subs[s]
            if lane == 0:
                atomic_add(words, g, dt.u64(READY) | bits(dst, total))
            read_back(dst, words, mine, prev, seen, total, lane, m, r, span, tiles, value)
            pairs(dst, mine, prev, lane, span)
            if lane == 0:
                carry[0] = tile_carry(dst, words, seen, prev, mine, lanes, g, m, r, span,
                                      tiles, bits, value, patience)
            barrier()
            c = carry[0]  # then the totals of the sub-tiles before, in order
            for s in unroll(range(sub), rolls):
                write_sub(dst, tile, c, n, base, g, lane, s)
                c = c + subs[s] if g > 0 or s > 0 else subs[s]
    return scan_lookback


@func
def read_back(dst, words, mine, prev, seen, total, lane, m, r, span, tiles, value):
    """The words a tile looks back at, each read by its own lane, every warp's round trips at
    once: this block's aggregates before tile r into mine (lanes 0 …, zero from r + 1), the
    previous block's into prev (lanes 128 …, or the same lanes for a span above 128), the
    words of Q_{m-1} and Q_{m-2} into seen (lanes 255 and 254)."""
    if lane < span:
        a = in_dtype(dst, 0)
        if lane < r:
            a = value(dst, wait_word(words, m * span + lane))
        elif lane == r:
            a = total
        mine[lane] = a
    i = lane - 128 if span <= 128 else lane
    if i >= 0 and i < span:
        b = in_dtype(dst, 0)
        if m > 0:
            b = value(dst, wait_word(words, (m - 1) * span + i))
        prev[i] = b
    back = 255 - lane
    if back < 2 and m > back:
        seen_w = atomic_add(words, tiles + m - 1 - back, 0)
        seen[back] = seen_w


@func
def tile_index(words, seen, t, tiles, span, lane, ticketed):
    """The tile this workgroup scans: its ticket (tiles start in ticket order), or with
    `ticketed` 0 its own index, trusting the GPU to start workgroups in index order."""
    if lane == 0 and ticketed:
        blocks = (tiles + span - 1) // span
        mine_t = atomic_add(words, tiles + blocks, 1)
        seen[0] = mine_t  # (through a local: the simulator runs an atomic stored straight into
        # shared memory on every lane, not only on those in the branch)
    barrier()
    g = t // 256
    if ticketed:
        g = dt.i64(seen[0])  # (seen is written again after the barriers of the tile's scan)
    return g


@func
def write_sub(dst, tile, c, n, base, g, lane, s):
    """Sub-tile s's scanned elements from its offset c (nothing to add to the first of tile 0)."""
    for k in unroll(range(PER)):
        j = base + s * (PER * 256) + k * 256 + lane
        if j < n:
            v = tile[s * SLOTS + slot(k * 256 + lane)]
            dst[j] = c + v if g > 0 or s > 0 else v


@kernel
def clear(words):
    for i in range(words.shape[0]):
        words[i] = 0


_CODES = {"int": (int_bits, int_value), "f32": (f32_bits, f32_value)}
_SCANS: dict = {}


def scan_kernel(enc: str, sub: int, lean: bool = False):
    """The look-back kernel for payload `enc` over tiles of `sub` sub-tiles (made once)."""
    key = (enc, sub, bool(lean))
    if key not in _SCANS:
        _SCANS[key] = _kernel(*_CODES[enc], sub, bool(lean))
    return _SCANS[key]


def encoding(dtype) -> str | None:
    """Which payload carries a scan into `dtype`: None for 64-bit dtypes (the two-pass path)."""
    if dtype == dt.f32:
        return "f32"
    if dtype.itemsize <= 4 and not dtype.is_float:
        return "int"
    return None


def layout(tiles: int, span: int) -> tuple[int, int]:
    """(words needed, index of the total): the tiles' aggregates, the blocks' prefixes, the
    ticket counter, the total."""
    blocks = -(-tiles // span)
    return tiles + blocks + 2, tiles + blocks + 1


def decode(word: int, dtype):
    """The host's reading of a published word's payload as `dtype` (a Python number)."""
    low = np.array([word & int(LOW)], np.uint32)
    if dtype == dt.f32:
        return low.view(np.float32)[0].item()
    return low.astype(dtype.np)[0].item()
