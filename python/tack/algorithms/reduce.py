"""`a.sum()`, `a.min()`, `a.max()`, `a.mean()`: reductions over every element, as Tack kernels.

The order of the reduction is fixed by n alone (docs/algorithms.md, "Reductions"): on an engine
without workgroups the flat elements are cut into chunks of CHUNK, each chunk is reduced by one
iteration of a parallel loop (eight interleaved accumulators, combined in a fixed tree), and a
one-iteration pass combines the chunk results in order. On an engine with workgroups each lane
of GROUPS x 256 reduces a strided slice (coalesced loads), a tree in shared memory combines a
group, and the same one-iteration pass combines the groups. Either way the result is the same for
every run and thread count. In deterministic mode (docs/numerics.md) an engine without
workgroups takes the workgroup order too, one iteration per group running its 256 lanes and
the warp tree's order (`reduce_group_lanes`, `warp_order`), so every engine gives CUDA's bits.
"""
from __future__ import annotations

from .. import dtypes as dt
from ..arrays import Array, zeros
from ..frontend.inline import func
from ..intrinsics import local_array_like, select, unroll
from ..ir.ops import WORKGROUP
from ..kernel import kernel
from ..lib.combine import add, in_dtype, nan_max, nan_min
from ..lib.reductions import group_reduce
from ..lib.warp_reductions import warp_group_reduce
from . import _views as V
from ._scratch import kept, result_box

CHUNK = 1 << 16  # elements per CPU iteration: 256 iterations at 2^24, enough for any pool
GROUPS = 1024  # workgroups of the GPU path: 262144 lanes, a few elements each at 2^20


@func
def span_fold(x, acc, lo, hi, combine):
    """Fold x[lo:hi] into `acc` with eight interleaved accumulators, each starting at `acc`
    (zero for a sum; a real element for min and max, which are idempotent), the tail into the
    first, combined in a fixed tree: eight independent chains, so that the loop runs at memory
    speed rather than at the latency of one chain (min and max vectorize as selects)."""
    a0 = acc
    a1 = acc
    a2 = acc
    a3 = acc
    a4 = acc
    a5 = acc
    a6 = acc
    a7 = acc
    j = lo
    while j + 8 <= hi:
        a0 = combine(a0, x[j])
        a1 = combine(a1, x[j + 1])
        a2 = combine(a2, x[j + 2])
        a3 = combine(a3, x[j + 3])
        a4 = combine(a4, x[j + 4])
        a5 = combine(a5, x[j + 5])
        a6 = combine(a6, x[j + 6])
        a7 = combine(a7, x[j + 7])
        j += 8
    while j < hi:
        a0 = combine(a0, x[j])
        j += 1
    return combine(combine(combine(a0, a1), combine(a2, a3)),
                   combine(combine(a4, a5), combine(a6, a7)))


@func
def chunk_sum(x, part, n, chunk, c):
    """Sum x[c*chunk : min(n, (c+1)*chunk)] into part[c] (part holds zeros: its dtype is the
    accumulator's)."""
    lo = c * chunk
    part[c] = span_fold(x, part[c], lo, min(n, lo + chunk), add)


@func
def less(a, b):
    return a < b


@func
def greater(a, b):
    return a > b


@func
def pick(a, b, better):
    """b if it is `better` than a or a NaN, else a: a NaN, once picked, stays (nothing is
    better than a NaN), and of equal values the first stays."""
    return select(b != b, b, select(better(b, a), b, a))  # noqa: PLR0124 - the NaN test


@func
def span_pick(x, lo, hi, better):
    """The element of x[lo:hi] that no other is `better` than, or a NaN if there is one, with
    eight accumulators of one compare-and-select each (this vectorizes, unlike nan_min's
    chain) and one for the tail, combined by `pick` in a fixed tree. Equal values keep the
    first, which can be the wrong zero: the caller folds again if the result is a zero."""
    a0 = x[lo]
    a1, a2, a3, a4, a5, a6, a7, t = a0, a0, a0, a0, a0, a0, a0, a0
    j = lo
    while j + 8 <= hi:
        a0 = pick(a0, x[j], better)
        a1 = pick(a1, x[j + 1], better)
        a2 = pick(a2, x[j + 2], better)
        a3 = pick(a3, x[j + 3], better)
        a4 = pick(a4, x[j + 4], better)
        a5 = pick(a5, x[j + 5], better)
        a6 = pick(a6, x[j + 6], better)
        a7 = pick(a7, x[j + 7], better)
        j += 8
    while j < hi:  # the tail apart: the eight stay out of a scalar loop, so they vectorize
        t = pick(t, x[j], better)
        j += 1
    r = pick(pick(pick(a0, a1, better), pick(a2, a3, better), better),
             pick(pick(a4, a5, better), pick(a6, a7, better), better), better)
    return pick(r, t, better)


@func
def chunk_fold(x, part, n, chunk, c, combine, better):
    """Min or max (`combine` and its strict order `better`) of x's chunk c (never empty) into
    part[c] (of x's dtype) by span_pick; a floating zero result is folded again with
    `combine`, which orders -0.0 below 0.0."""
    lo = c * chunk
    hi = min(n, lo + chunk)
    r = span_pick(x, lo, hi, better)
    floating = in_dtype(x, 0.5) != in_dtype(x, 0)
    if floating and r == r - r:  # a zero: which one needs combine's order
        r = span_fold(x, x[lo], lo, hi, combine)
    part[c] = r


@kernel
def sum_chunks(x, part, n, chunk):
    for c in range(part.shape[0]):
        chunk_sum(x, part, n, chunk, c)


@kernel
def pick_chunks(x, part, n, chunk, combine, better):
    """min (nan_min, less) or max (nan_max, greater) of each chunk (chunk_fold)."""
    for c in range(part.shape[0]):
        chunk_fold(x, part, n, chunk, c, combine, better)


@func
def lane_fold(x, acc, n, t, stride, combine):
    """Fold elements t, t + T, t + 2T, … of x[:n] (T = stride, the lane count) into `acc` with
    eight accumulators, each starting at `acc` (zero for a sum; a real element for min and max,
    which are idempotent): eight independent loads in flight per lane, not one, which is what
    keeps the memory busy. Combined in a fixed tree, so the order depends on n and T only."""
    a0 = acc
    a1 = acc
    a2 = acc
    a3 = acc
    a4 = acc
    a5 = acc
    a6 = acc
    a7 = acc
    j = t
    while j + 7 * stride < n:
        a0 = combine(a0, x[j])
        a1 = combine(a1, x[j + stride])
        a2 = combine(a2, x[j + 2 * stride])
        a3 = combine(a3, x[j + 3 * stride])
        a4 = combine(a4, x[j + 4 * stride])
        a5 = combine(a5, x[j + 5 * stride])
        a6 = combine(a6, x[j + 6 * stride])
        a7 = combine(a7, x[j + 7 * stride])
        j += 8 * stride
    while j < n:
        a0 = combine(a0, x[j])
        j += stride
    return combine(combine(combine(a0, a1), combine(a2, a3)),
                   combine(combine(a4, a5), combine(a6, a7)))


@func
def zero(x, part, n, t):
    """A sum's accumulators start at zero, in the accumulator's dtype."""
    return in_dtype(part, 0)


@func
def element(x, part, n, t):
    """A minimum's or maximum's start at an element of x (they are idempotent): lane t's
    first, or for a lane past the end another lane's."""
    return x[t % n]


@kernel
def reduce_groups(x, part, n, combine, start, tree):
    """part[g] = combine over the elements of workgroup g's lanes (lane_fold from `start`,
    then the workgroup's `tree`: group_reduce or warp_group_reduce)."""
    for t in range(part.shape[0] * 256):
        r = tree(part, lane_fold(x, start(x, part, n, t), n, t, part.shape[0] * 256, combine),
                 combine)
        if t % 256 == 0:
            part[t // 256] = r


@func
def warp_order(acc, combine):
    """combine over acc[0 .. 255] in the order of lib.warp_reductions.warp_tree, as its lane 0
    takes it: each warp's 32 slots by halves (slot i takes slot i + s, s = 16 … 1: the xor
    butterfly, whose lanes agree since combine is commutative), then the eight warp results
    by s = 4, 2, 1."""
    for w in range(8):
        s = 16
        while s > 0:
            for i in range(s):
                acc[w * 32 + i] = combine(acc[w * 32 + i], acc[w * 32 + i + s])
            s = s // 2
    for w in unroll(range(1, 8)):
        acc[w] = acc[w * 32]
    for i in unroll(range(4)):
        acc[i] = combine(acc[i], acc[i + 4])
    for i in unroll(range(2)):
        acc[i] = combine(acc[i], acc[i + 2])
    return combine(acc[0], acc[1])


@kernel
def reduce_group_lanes(x, part, n, combine, start):
    """`reduce_groups` with `warp_group_reduce` on an engine without workgroups: iteration g
    runs workgroup g's 256 lanes one after the other and combines them in `warp_order`."""
    for g in range(part.shape[0]):
        acc = local_array_like(part, 256)
        stride = part.shape[0] * 256
        for lane in range(256):
            t = g * 256 + lane
            acc[lane] = lane_fold(x, start(x, part, n, t), n, t, stride, combine)
        part[g] = warp_order(acc, combine)


@func
def lane_min_max(x, res, n, t, stride):
    """res[0], res[1]: the minimum and maximum of elements t, t + T, … of x[:n] (T = stride),
    in one read of them (four loads in flight per lane, folded in a fixed order)."""
    a0 = x[t % n]
    a1, a2, a3, b0, b1, b2, b3 = a0, a0, a0, a0, a0, a0, a0
    j = t
    while j + 3 * stride < n:
        v0, v1, v2, v3 = x[j], x[j + stride], x[j + 2 * stride], x[j + 3 * stride]
        a0, a1, a2, a3 = nan_min(a0, v0), nan_min(a1, v1), nan_min(a2, v2), nan_min(a3, v3)
        b0, b1, b2, b3 = nan_max(b0, v0), nan_max(b1, v1), nan_max(b2, v2), nan_max(b3, v3)
        j += 4 * stride
    while j < n:
        a0 = nan_min(a0, x[j])
        b0 = nan_max(b0, x[j])
        j += stride
    res[0] = nan_min(nan_min(a0, a1), nan_min(a2, a3))
    res[1] = nan_max(nan_max(b0, b1), nan_max(b2, b3))


@kernel
def minmax_groups(x, lo, hi, n, tree):
    """lo[g], hi[g]: the minimum and maximum of the elements of workgroup g's lanes (strided
    as in reduce_groups), in one read of x: what the radix sort needs of its keys."""
    for t in range(lo.shape[0] * 256):
        res = local_array_like(x, 2)
        lane_min_max(x, res, n, t, lo.shape[0] * 256)
        r = tree(lo, res[0], nan_min)
        q = tree(hi, res[1], nan_max)
        if t % 256 == 0:
            lo[t // 256] = r
            hi[t // 256] = q


# op -> the chunk kernel and its compile-time arguments
_CHUNKS = {"sum": (sum_chunks,), "min": (pick_chunks, nan_min, less),
           "max": (pick_chunks, nan_max, greater)}
# op -> reduce_groups' combining step and start
GROUP_STEPS = {"sum": (add, zero), "min": (nan_min, element), "max": (nan_max, element)}


def group_tree(x: Array):
    """The workgroup reduction of x's device: warp shuffles where its warps exchange registers
    (_views.warp_paths: lib/warp_reductions.py), else the shared-memory tree (lib/reductions.py)."""
    return warp_group_reduce if V.warp_paths(x) else group_reduce


def accumulator(t):
    """f16, bf16 and f32 → f32, f64 → f64, signed → i64, unsigned → u64 (integer sums wrap
    there)."""
    if t in V.HALVES:
        return dt.f32
    if t in V.FLOATS:
        return t
    return dt.i64 if t in V.SIGNED else dt.u64


def reduce_flat(x: Array, n: int, op: str, acc=None):
    """Reduce x[:n] (1-D, n > 0) with op in the accumulator dtype; a NumPy scalar."""
    acc = acc or (accumulator(x.dtype) if op == "sum" else x.dtype)
    if op == "sum" and V.emulated_groups(x) and n > WORKGROUP:  # min, max: exact in any order
        groups = min(GROUPS, -(-n // WORKGROUP))
        part = zeros(groups, acc, device=x.device)
        reduce_group_lanes(x, part, n, *GROUP_STEPS[op])
        return fold_group_lanes(part, groups)
    if V.workgroups(x) and n > WORKGROUP:
        groups = min(GROUPS, -(-n // WORKGROUP))
        part = kept(x.device, acc, "groups", groups)  # every slot written before it is read
        reduce_groups(x, part, n, *GROUP_STEPS[op], group_tree(x))
        return fold_groups(part, groups, op)
    part = zeros(-(-n // CHUNK), acc, device=x.device)
    k, *steps = _CHUNKS[op]
    k(x, part, n, CHUNK, *steps)
    m = part.shape[0]
    if m > 1:
        out = zeros(1, acc, device=x.device)
        k(part, out, m, m, *steps)  # one iteration: the partial results in order
        part = out
    return part.numpy()[0]


def fold_groups(part: Array, groups: int, op: str, what="result"):
    """op over the group results part[:groups] by one workgroup (a fixed order), into a result
    box (_scratch.result_box) read after the wait; a NumPy scalar."""
    box, read = result_box(part.device, part.dtype, what)
    reduce_groups(part, box, groups, *GROUP_STEPS[op], group_tree(part))
    return read()


def fold_group_lanes(part: Array, groups: int):
    """`fold_groups` of a sum on an engine without workgroups (`reduce_group_lanes`)."""
    out = zeros(1, part.dtype, device=part.device)
    reduce_group_lanes(part, out, groups, *GROUP_STEPS["sum"])
    return out.numpy()[0]


def min_max(x: Array, n: int) -> tuple:
    """(min, max) of x[:n] (1-D, n > 0), NumPy scalars; with workgroups in one read of x, the
    group results folded by one workgroup each, read after one wait."""
    if not (V.workgroups(x) and n > WORKGROUP):
        return reduce_flat(x, n, "min"), reduce_flat(x, n, "max")
    groups = min(GROUPS, -(-n // WORKGROUP))
    lo = kept(x.device, x.dtype, "group minima", groups)  # every slot written before read
    hi = kept(x.device, x.dtype, "group maxima", groups)
    minmax_groups(x, lo, hi, n, group_tree(x))
    lo_box, read_lo = result_box(x.device, x.dtype, "minimum")
    # queued before the first wait
    reduce_groups(lo, lo_box, groups, *GROUP_STEPS["min"], group_tree(x))
    return read_lo(), fold_groups(hi, groups, "max", "maximum")


def array_reduction(op: str, a: Array) -> float:
    """What `a.sum()`, `a.min()`, `a.max()`, `a.mean()` return: a Python float over every
    element (every component of a vector array)."""
    x = V.flat(a)
    V.same_device(f"Array.{op}", x)
    n = x.shape[0]
    if n == 0:
        if op in ("min", "max"):
            raise V.TackValueError(f"Array.{op}() of an empty array: there is no identity")
        return 0.0 if op == "sum" else float("nan")
    if op == "mean":
        return float(reduce_flat(x, n, "sum")) / n
    return float(reduce_flat(x, n, op))
