"""`argsort`, `sort`, `sort_by_key`, `gather`: a stable LSD radix sort over 8-bit digits, as Tack kernels.

Keys (i32, u32, i64, u64) are first mapped to unsigned offsets from their minimum, so the number
of passes follows the spread of the keys (ceil(bits(max − min) / 8), none when all are equal).
Each pass is portable and deterministic: per-chunk digit counts (one iteration per chunk, no
atomics), an exclusive scan of the counts in digit-major order, and a scatter in which each chunk
places its elements in order, which keeps equal digits in input order (stability). The result
is a permutation, which is unique for a stable sort: every engine gives the same bits.
"""
from __future__ import annotations

from .. import dtypes as dt
from ..arrays import Array, zeros
from ..kernel import kernel
from ..lib.combine import in_dtype
from . import _views as V
from . import radix as R
from ._scratch import kept, unfilled
from .copy_fill import copy_elements
from .reduce import min_max
from .scans import exclusive_scan, steps

__all__ = ["argsort", "gather", "sort", "sort_by_key"]

KEYS = (dt.i32, dt.u32, dt.i64, dt.u64)
CHUNK = 1 << 14  # elements per iteration of the count and scatter loops (CPU threads)
FUSED_KEYS = True  # sort: the last workgroup pass writes the keys themselves (False: offsets)


@kernel
def offsets_from_min(keys, ukeys, perm, low, n):
    for j in range(n):
        ukeys[j] = in_dtype(ukeys, keys[j]) - low[0]  # wraps into [0, max - min]
        perm[j] = j


@kernel
def digit_counts(ukeys, hist, n, chunk, shift, m):
    for c in range(m):
        lo = c * chunk
        hi = min(n, lo + chunk)
        for j in range(lo, hi):
            d = int((ukeys[j] >> shift) & dt.u64(255))
            hist[d * m + c] += 1


@kernel
def digit_scatter(ukeys, perm, okeys, operm, hist, n, chunk, shift, m):
    for c in range(m):
        lo = c * chunk
        hi = min(n, lo + chunk)
        for j in range(lo, hi):
            k = ukeys[j]
            slot = int((k >> shift) & dt.u64(255)) * m + c
            pos = hist[slot]
            hist[slot] = pos + 1
            okeys[pos] = k
            operm[pos] = perm[j]


@kernel
def keys_from_offsets(ukeys, keys, low, n):
    for i in range(n):
        keys[i] = ukeys[i] + low[0]  # wraps back to the key's bits on the store


@kernel
def gather_kernel(values, perm, out, n):
    for i in range(n):
        out[i] = values[perm[i]]


def _keys(name: str, keys) -> Array:
    V.need_array(name, "keys", keys)
    if keys.dtype not in KEYS:
        raise V.TackTypeError(f"{name}: keys must be i32, u32, i64 or u64, got {keys.dtype!r}")
    return V.flat(keys)


def _passes(k: Array, n: int) -> tuple[int, int]:
    """(the minimum key, the number of 8-bit passes its spread needs)."""
    lo, hi = (int(v) for v in min_max(k, n))
    return lo, -(-(hi - lo).bit_length() // 8)


def argsort(keys: Array, n=None) -> Array:
    """The stable permutation (i32) that sorts keys[:n] ascending."""
    k = _keys("argsort", keys)
    V.same_device("argsort", k)
    n = V.count("argsort", n, keys=k)
    return _sort(k, n, False)[0]


def sort(keys: Array, n=None) -> tuple[Array, Array]:
    """(keys[:n] sorted ascending, as a new array of the keys' dtype; the stable permutation
    (i32) that sorts them): what torch.sort(keys, stable=True) returns. The sorted keys come
    from the last radix pass, not from a gather."""
    k = _keys("sort", keys)
    V.same_device("sort", k)
    n = V.count("sort", n, keys=k)
    out = unfilled(k.device, k.dtype, n)  # every key written below
    perm, sorted_keys, low = _sort(k, n, out if FUSED_KEYS else True)
    if sorted_keys is None:  # no keys, or every key equal: they are sorted already
        copy_elements(k, out, n)
    elif sorted_keys is not out:  # offsets from the minimum (the CPU passes)
        keys_from_offsets(sorted_keys, out, low, n)
    return out, perm


def _sort(k: Array, n: int, keys_out):
    """(the permutation, the sorted keys or None if they are the input keys already, low): the
    passes of the CPU chunks or of the workgroup radix (radix.py). keys_out: False (no keys),
    True (offsets from low[0]) or an array that the workgroup passes write the keys into (the
    CPU passes return offsets)."""
    if n >= 2 ** 31:
        raise V.TackValueError(f"argsort: {n} keys do not fit an i32 permutation")
    udt = dt.u64 if k.dtype.itemsize == 8 else dt.u32
    dev = k.device
    if n == 0:
        return zeros(0, dt.i32, device=dev), None, None
    lo, passes = _passes(k, n)
    low = Array._from_host(udt.np.type(lo % (1 << (8 * udt.itemsize))).reshape(1), dev)
    if V.workgroups(k) and passes:
        return (*_workgroup_passes(k, n, udt, low, passes, keys_out), low)
    perm, ukeys = zeros(n, dt.i32, device=dev), zeros(n, udt, device=dev)
    offsets_from_min(k, ukeys, perm, low, n)
    if passes == 0:  # every key is equal: the identity
        return perm, None, low
    m = -(-n // CHUNK)
    okeys, operm = zeros(n, udt, device=dev), zeros(n, dt.i32, device=dev)
    hist = zeros(256 * m, dt.i32, device=dev)
    for p in range(passes):
        if p:
            hist.fill(0)
        digit_counts(ukeys, hist, n, CHUNK, 8 * p, m)
        exclusive_scan(hist, hist)
        digit_scatter(ukeys, perm, okeys, operm, hist, n, CHUNK, 8 * p, m)
        ukeys, okeys, perm, operm = okeys, ukeys, operm, perm
    return perm, ukeys, low


def _workgroup_passes(k: Array, n: int, udt, low: Array, passes: int, keys_out):
    """The passes (at least one) on an engine with workgroups (radix.py: tiles ranked in
    shared memory): the first reads the keys themselves; the last writes keys if keys_out
    (True: offsets into a kept array; an Array of the keys' dtype: the keys themselves, the
    offsets plus the minimum, so that no conversion pass follows); the work arrays are kept
    between calls, the returned permutation is new. (permutation, the sorted offsets or the
    keys_out array, or None without keys_out)."""
    dev = k.device
    groups = -(-n // (8 * R.STILE))  # workgroups of radix_counts, 8 tiles each
    fresh = unfilled(dev, dt.i32, n)  # the last pass writes every entry
    other = kept(dev, dt.i32, "argsort entries", n)
    # pass p writes the entries into operm as it then is: the last lands in fresh
    perm, operm = (fresh, other) if passes % 2 == 0 else (other, fresh)
    ukeys, okeys = kept(dev, udt, "argsort keys", n), kept(dev, udt, "argsort keys out", n)
    zero = kept(dev, udt, "argsort zero", 1)  # the minimum of the offsets: never written
    hist = kept(dev, dt.i32, "argsort digit table", 256 * 8 * groups)  # written, then read
    into = keys_out if isinstance(keys_out, Array) else None
    last = 2 if into is not None else int(bool(keys_out))
    src, klow = k, low
    scan = steps(k)[1]  # the scan of the ranking's lane totals
    for p in range(passes):
        R.radix_counts(src, okeys, low, hist, n, 8 * p, groups)
        exclusive_scan(hist, hist)
        out = into if into is not None and p == passes - 1 else okeys
        R.radix_scatter(src, low, perm, okeys, operm, out, klow, hist, n, 8 * p, groups,
                        int(p == 0), last if p == passes - 1 else 1, scan)
        src, low, ukeys, okeys, perm, operm = okeys, zero, okeys, ukeys, operm, perm
    return perm, (into if into is not None else ukeys if keys_out else None)


def gather(values: Array, perm: Array) -> Array:
    """out[i] = values[perm[i]] for every i of perm (values may hold vectors); a perm entry
    outside [0, len(values)) raises ValueError before the gather."""
    V.need_array("gather", "values", values)
    V.need_array("gather", "perm", perm)
    if perm.dtype not in V.INTEGERS or perm.ndim != 1 or values.ndim != 1:
        raise V.TackTypeError("gather: values and perm must be 1-D arrays, perm of integers")
    V.same_device("gather", values, perm)
    n = perm.shape[0]
    out = zeros(n, values.dtype, device=values.device)
    if n:
        lo, hi = (int(v) for v in min_max(perm, n))
        if lo < 0 or hi >= values.shape[0]:
            raise V.TackValueError(f"gather: perm holds {lo if lo < 0 else hi}, outside "
                                   f"[0, {values.shape[0]})")
        gather_kernel(values, perm, out, n)
    return out


def sort_by_key(keys: Array, values: Array) -> tuple[Array, Array]:
    """(keys sorted ascending, stably; values in the same order), both new arrays: the inputs
    are left alone. values: 1-D, any dtype, vectors too, as many elements as keys."""
    _keys("sort_by_key", keys)
    V.need_array("sort_by_key", "values", values)
    if keys.ndim != 1 or values.ndim != 1 or keys.shape[0] != values.shape[0]:
        raise V.TackValueError(f"sort_by_key: keys and values must be 1-D of one length, got "
                               f"{keys.shape} and {values.shape}")
    n = keys.shape[0]
    V.same_device("sort_by_key", keys, values)
    sorted_keys, perm = sort(keys)
    out = zeros(n, values.dtype, device=values.device)  # vectors too
    if n:
        gather_kernel(values, perm, out, n)  # perm is a permutation: no range check
    return sorted_keys, out
