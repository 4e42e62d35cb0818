"""`exclusive_scan` and `inclusive_scan`: prefix sums in the output's dtype, as Tack kernels.

Every addition happens in dst's dtype (each term converted on a store, so integer sums wrap at
the output width) in an order fixed by n. Without workgroups: chunk totals, a one-iteration scan
of those, then each chunk rescanned from its offset (three passes, two over the data). With
workgroups: tiles of TILE elements; a tile's total, the scan of the tile totals (the same
algorithm, applied to them when there are many), then each tile scanned in shared memory, 256 elements at a time,
from its offset (docs/algorithms.md, "Scans").
"""
from __future__ import annotations

from ..arrays import Array, zeros
from ..constants import constant
from ..frontend.inline import func
from ..intrinsics import barrier, local_array_like, shared_like, thread_id
from ..ir.ops import WORKGROUP
from ..kernel import kernel
from . import _views as V

__all__ = ["exclusive_scan", "inclusive_scan"]

CHUNK = 1 << 16  # elements per CPU iteration
ROUNDS = constant(8)  # rounds of 256 elements per GPU tile (read by the kernels)
TILE = ROUNDS * WORKGROUP


@func
def in_dtype(like, v):
    """`v` converted to the dtype of array `like` (by a store: the kernel conversion rules)."""
    box = local_array_like(like, 1)
    box[0] = v
    return box[0]


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
def tile_totals(src, dst, part, n):
    for t in range(part.shape[0] * 256):
        s = shared_like(dst, 256)
        lane = thread_id()
        base = (t // 256) * (ROUNDS * 256) + lane
        acc = in_dtype(dst, 0)
        for k in range(ROUNDS):
            j = base + k * 256
            if j < n:
                acc += in_dtype(dst, src[j])
        s[lane] = acc
        barrier()
        w = 128
        while w > 0:
            if lane < w:
                s[lane] = s[lane] + s[lane + w]
            barrier()
            w = w // 2
        if lane == 0:
            part[t // 256] = s[0]


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


@kernel
def tile_scan(src, dst, part, n, exclusive):
    for t in range(part.shape[0] * 256):
        s = shared_like(dst, 256)
        lane = thread_id()
        base = (t // 256) * (ROUNDS * 256) + lane
        g = t // 256
        carry = in_dtype(dst, 0)
        if g > 0:
            carry = part[g - 1]
        for k in range(ROUNDS):
            j = base + k * 256
            v = in_dtype(dst, 0)
            if j < n:
                v = in_dtype(dst, src[j])
            incl = block_inclusive(s, lane, v)
            excl = carry
            if lane > 0:
                excl = carry + s[lane - 1]
            total = s[255]
            barrier()  # every lane has read s before the next round writes it
            if j < n:
                dst[j] = excl if exclusive else carry + incl
            carry = carry + total


def _scan(src: Array, dst: Array, n: int, exclusive: int):
    """Scan src[:n] into dst[:n] (flat views, n > 0); the total, a NumPy scalar."""
    if V.workgroups(src) and n > TILE:
        part = zeros(-(-n // TILE), dst.dtype, device=dst.device)
        tile_totals(src, dst, part, n)
        if part.shape[0] > TILE:
            _scan(part, part, part.shape[0], 0)  # many tiles: their totals scanned alike
        else:
            scan_totals(part)
        tile_scan(src, dst, part, n, exclusive)
    else:
        part = zeros(-(-n // CHUNK), dst.dtype, device=dst.device)
        chunk_totals(src, dst, part, n, CHUNK)
        scan_totals(part)
        chunk_scan(src, dst, part, n, CHUNK, exclusive)
    return part.numpy()[-1]  # the scanned totals end with the whole total


def _run(name: str, src, dst, n, exclusive: int):
    V.need_array(name, "src", src)
    V.need_array(name, "dst", dst)
    for a in (src, dst):
        if V.scalar_dtype(a) not in V.INTEGERS + V.FLOATS:
            raise V.TackTypeError(f"{name}: arrays must hold numbers, got {a.dtype!r}")
    s, d = V.flat(src), V.flat(dst)
    V.same_device(name, s, d)
    n = V.count(name, n, s, d)
    if n == 0:
        return d.dtype.np.type(0).item()
    return _scan(s, d, n, exclusive).item()


def exclusive_scan(src: Array, dst: Array, n=None):
    """dst[i] = src[0] + … + src[i-1] for i < n (dst[0] = 0); returns the total of src[:n] in
    dst's dtype (integer sums wrap at its width). In place (src is dst) is allowed."""
    return _run("exclusive_scan", src, dst, n, 1)


def inclusive_scan(src: Array, dst: Array, n=None):
    """dst[i] = src[0] + … + src[i] for i < n; returns the total (dst[n-1])."""
    return _run("inclusive_scan", src, dst, n, 0)
