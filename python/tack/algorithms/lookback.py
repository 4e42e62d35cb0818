"""A single-pass GPU scan with decoupled look-back: each element is read once and written once.

A workgroup takes a ticket (an atomic counter, so tiles start in ticket order and a tile only
ever waits for tiles that are already running), scans its tile in shared memory (tiles.py's
`stage` and `tile_prefixes`), publishes the tile's aggregate, and looks back over its
predecessors for the nearest one that has published its inclusive prefix. Every published value
is one 64-bit word, `1 << 32 | payload`, written and read by atomics: a relaxed atomic on one
word needs no fence, which the kernel language does not have (docs/language.md, "Atomics").
So the payload is 32 bits: dst dtypes of at most 32 bits only (integers by their low 32 bits,
f32 by its bit pattern, computed with exact arithmetic since there is no bit cast); 64-bit
dtypes take scans.py's two-pass path.

Deterministic: after finding the prefix P_j, the tile adds the aggregates A_{j+1}, …, A_{g-1}
left to right, so P_g = (…(P_j + A_{j+1}) + …) + A_g, which by induction is the left fold
A_0 + A_1 + … + A_g whichever j was found: the bits depend on n only. The 256 lanes read the
words of the 256 tiles before their own in parallel (one atomic each), so lane 0's look-back
runs over shared memory."""
from __future__ import annotations

import math

import numpy as np

from .. import dtypes as dt
from ..constants import constant
from ..frontend.inline import func
from ..intrinsics import atomic_add, barrier, select, shared_like, thread_id, unroll
from ..kernel import kernel
from .combine import in_dtype
from .tiles import PER, SLOTS, slot, stage, tile_prefixes

LOW = constant(4294967295)  # 2^32 - 1: the payload's bits
READY = constant(4294967296)  # 1 << 32: the flag of a published word
WINDOW = 32  # predecessors whose words a tile reads at once (1 … 256): one atomic each


@func
def int_bits(like, v):
    return dt.u64(v) & dt.u64(LOW)


@func
def int_value(like, w):
    return in_dtype(like, w & dt.u64(LOW))  # narrowing wraps: the low bits are the value


@func
def normal_bits(a):
    """The exponent and mantissa bits of a positive normal f32 `a`: `a` scaled into [1, 2) by
    exact powers of two (2^64, 2^32, … 2, then up from below 1), counting the exponent."""
    m = a
    e = 0
    if m >= 1.8446744073709552e19:  # scale m into [1, 2): 2^64, 2^32, ... down to 2
        m = m * 5.421010862427522e-20
        e += 64
    if m >= 4294967296.0:
        m = m * 2.3283064365386963e-10
        e += 32
    if m >= 65536.0:
        m = m * 1.52587890625e-05
        e += 16
    if m >= 256.0:
        m = m * 0.00390625
        e += 8
    if m >= 16.0:
        m = m * 0.0625
        e += 4
    if m >= 4.0:
        m = m * 0.25
        e += 2
    if m >= 2.0:
        m = m * 0.5
        e += 1
    if m < 5.421010862427522e-20:  # and up from below 1
        m = m * 1.8446744073709552e19
        e -= 64
    if m < 2.3283064365386963e-10:
        m = m * 4294967296.0
        e -= 32
    if m < 1.52587890625e-05:
        m = m * 65536.0
        e -= 16
    if m < 0.00390625:
        m = m * 256.0
        e -= 8
    if m < 0.0625:
        m = m * 16.0
        e -= 4
    if m < 0.25:
        m = m * 4.0
        e -= 2
    if m < 0.5:
        m = m * 2.0
        e -= 1
    if m < 1.0:
        m = m * 2.0
        e -= 1
    return (dt.u64(e + 127) << dt.u64(23)) | dt.u64((m - 1.0) * 8388608.0)


@func
def f32_bits(like, v):
    """The IEEE bit pattern of f32 `v` (NaN as the quiet NaN), by exact scalings by powers of 2."""
    a = abs(v)
    sign = dt.u64(0)
    if copysign(1.0, v) < 0.0:  # noqa: F821 - a kernel builtin
        sign = dt.u64(2147483648)
    out = dt.u64(2143289344)  # 0x7FC00000
    if a == math.inf:
        out = sign | dt.u64(2139095040)  # 0x7F800000
    elif a < 1.1754943508222875e-38:  # below 2^-126: zero or subnormal, a multiple of 2^-149
        out = sign | dt.u64(a * 3.777893186295716e22 * 1.888946593147858e22)  # 2^75 * 2^74
    elif a == a:  # noqa: PLR0124 - not NaN
        out = sign | normal_bits(a)
    return out


@func
def f32_value(like, w):
    """The f32 whose bit pattern is the low 32 bits of `w` (the inverse of f32_bits)."""
    b = w & dt.u64(LOW)
    ex = int((b >> dt.u64(23)) & dt.u64(255))
    mant = in_dtype(like, b & dt.u64(8388607))
    v = in_dtype(like, math.nan)
    if ex == 255:
        if mant == 0.0:
            v = in_dtype(like, math.inf)
    elif ex == 0:
        v = mant * 5.293955920339377e-23 * 2.6469779601696886e-23  # 2^-74 * 2^-75
    else:
        v = 1.0 + mant * 1.1920928955078125e-07  # 2^-23
        e = ex - 127
        if e >= 64:
            v = v * 1.8446744073709552e19
            e -= 64
        if e >= 32:
            v = v * 4294967296.0
            e -= 32
        if e >= 16:
            v = v * 65536.0
            e -= 16
        if e >= 8:
            v = v * 256.0
            e -= 8
        if e >= 4:
            v = v * 16.0
            e -= 4
        if e >= 2:
            v = v * 4.0
            e -= 2
        if e >= 1:
            v = v * 2.0
        if e <= -64:
            v = v * 5.421010862427522e-20
            e += 64
        if e <= -32:
            v = v * 2.3283064365386963e-10
            e += 32
        if e <= -16:
            v = v * 1.52587890625e-05
            e += 16
        if e <= -8:
            v = v * 0.00390625
            e += 8
        if e <= -4:
            v = v * 0.0625
            e += 4
        if e <= -2:
            v = v * 0.25
            e += 2
        if e <= -1:
            v = v * 0.5
    if (b >> dt.u64(31)) != dt.u64(0):
        v = -v
    return v


@func
def walk_back(dst, words, j, value):
    """The inclusive prefix of tile j: from its nearest predecessor-or-self that has published
    one, plus the aggregates after it up to tile j, in order (lane 0 alone, one tile at a
    time: only where a window of aggregates held no prefix and waiting did not help)."""
    w = atomic_add(words, 2 * j + 1, 0)
    k = j
    while w < dt.u64(READY):
        a = atomic_add(words, 2 * k, 0)
        if a >= dt.u64(READY):
            k -= 1  # an aggregate, no prefix yet: look further back
        w = atomic_add(words, 2 * k + 1, 0)
    p = value(dst, w)
    for i in range(k + 1, j + 1):
        p = p + value(dst, atomic_add(words, 2 * i, 0))
    return p


@func
def look_back(dst, words, pre, agg, prev, aggv, g, value, window):
    """The exclusive prefix of tile g (g > 0; lane 0). `pre` and `agg` hold the words of tiles
    g-1, g-2, …, g-window as the workgroup's first `window` lanes read them, one each, in
    parallel, and `prev` and `aggv` their decoded payloads: find the nearest published prefix
    among them, re-reading (waiting) where a tile has published nothing yet, then add the
    aggregates after it in order. With `window` aggregates and no prefix, wait a while for tile
    g-window's prefix (every tile publishes one in the end: tile 0 at once, tile k once one of
    its own window has), then walk back."""
    found = -1
    ell = 0
    while found < 0 and ell < window:
        if pre[ell] >= dt.u64(READY):
            found = ell
        elif agg[ell] >= dt.u64(READY):
            ell += 1
        else:  # nothing published yet: read this tile's words again
            pw = atomic_add(words, 2 * (g - 1 - ell) + 1, 0)
            aw = atomic_add(words, 2 * (g - 1 - ell), 0)
            pre[ell] = pw
            agg[ell] = aw
            prev[ell] = value(dst, pw)
            aggv[ell] = value(dst, aw)
    p = in_dtype(dst, 0)
    if found < 0:
        w = atomic_add(words, 2 * (g - window) + 1, 0)
        tries = 0
        while w < dt.u64(READY) and tries < 256:
            w = atomic_add(words, 2 * (g - window) + 1, 0)
            tries += 1
        if w >= dt.u64(READY):
            prev[window - 1] = value(dst, w)
            found = window - 1
        else:  # an engine that runs workgroups in lockstep (the simulator) never publishes it
            p = walk_back(dst, words, g - window - 1, value)
            found = window
    if found < window:
        p = prev[found]
    for i in range(found):
        p = p + aggv[found - 1 - i]
    return p


def _kernel(bits, value):
    """The look-back scan for one payload encoding (`bits`, `value`: integers or f32)."""

    @kernel
    def scan_lookback(src, dst, words, n, tiles, exclusive, window):
        for t in range(tiles * 256):
            tile = shared_like(dst, SLOTS)
            lanes = shared_like(dst, 256)
            ticket = shared_like(words, 1)
            pre = shared_like(words, 256)  # the words of tiles g-1, g-2, …: their prefixes
            agg = shared_like(words, 256)  # and their aggregates
            prev = shared_like(dst, 256)  # the same, decoded (each lane decodes its own)
            aggv = shared_like(dst, 256)
            carry = shared_like(dst, 1)
            lane = thread_id()
            if lane == 0:
                mine = atomic_add(words, 2 * tiles, 1)  # tiles start in ticket order
                ticket[0] = mine  # (through a local: the simulator runs an atomic stored
                # straight into shared memory on every lane, not only on those in the branch)
            barrier()
            g = dt.i64(ticket[0])
            base = g * (PER * 256)
            stage(src, dst, tile, n, base, lane)  # read before any write: in place is allowed
            tile_prefixes(tile, lanes, lane, dst, exclusive)
            total = lanes[255]
            if lane == 0:
                atomic_add(words, 2 * g + select(g == 0, 1, 0), dt.u64(READY) | bits(dst, total))
            # lane l < window reads the words of tile g-1-l (clamped to tile 0, where
            # look_back stops; an atomic add of 0 changes nothing)
            if lane < window:
                back = max(g - 1 - lane, 0)
                pw = atomic_add(words, 2 * back + 1, 0)
                aw = atomic_add(words, 2 * back, 0)
                pre[lane] = pw
                agg[lane] = aw
                prev[lane] = value(dst, pw)
                aggv[lane] = value(dst, aw)
            barrier()
            if lane == 0 and g > 0:
                p = look_back(dst, words, pre, agg, prev, aggv, g, value, window)
                atomic_add(words, 2 * g + 1, dt.u64(READY) | bits(dst, p + total))
                carry[0] = p
            barrier()
            for k in unroll(range(PER)):
                j = base + k * 256 + lane
                if j < n:
                    v = tile[slot(k * 256 + lane)]
                    dst[j] = carry[0] + v if g > 0 else v
    return scan_lookback


@kernel
def clear(words):
    for i in range(words.shape[0]):
        words[i] = 0


SCANS = {"int": _kernel(int_bits, int_value), "f32": _kernel(f32_bits, f32_value)}


def encoding(dtype) -> str | None:
    """Which payload carries a scan into `dtype`: None for 64-bit dtypes (the two-pass path)."""
    if dtype == dt.f32:
        return "f32"
    if dtype.itemsize <= 4 and not dtype.is_float:
        return "int"
    return None


def decode(word: int, dtype):
    """The host's reading of a published word's payload as `dtype` (a Python number)."""
    low = np.array([word & int(LOW)], np.uint32)
    if dtype == dt.f32:
        return low.view(np.float32)[0].item()
    return low.astype(dtype.np)[0].item()
