"""Map-reduce partial sums for the statistics: each kernel sums one *term* of the elements
(|x|, x², (x − p)², x·y, x ≠ 0) into one partial per CPU chunk or per workgroup; the partials
are then summed by reduce.reduce_flat (CPU chunks) or by one workgroup into a result box
(reduce.fold_groups). The order is fixed by n, as for `a.sum()`; in deterministic mode it is the
workgroup order on every engine (`term_group_lanes`)."""
from __future__ import annotations

from ..arrays import Array, zeros
from ..frontend.inline import func
from ..intrinsics import local_array_like
from ..ir.ops import WORKGROUP
from ..kernel import kernel
from ..lib.combine import add, in_dtype
from . import _views as V
from ._scratch import kept
from .reduce import (
    CHUNK,
    GROUPS,
    fold_group_lanes,
    fold_groups,
    group_tree,
    reduce_flat,
    warp_order,
)


@func
def chunk_terms(x, y, part, n, chunk, p, c, term):
    """part[c] = Σ term over chunk c, with four interleaved accumulators."""
    lo = c * chunk
    hi = min(n, lo + chunk)
    a0 = part[c]
    a1 = a0
    a2 = a0
    a3 = a0
    j = lo
    while j + 4 <= hi:
        a0 += term(part, x, y, j, p)
        a1 += term(part, x, y, j + 1, p)
        a2 += term(part, x, y, j + 2, p)
        a3 += term(part, x, y, j + 3, p)
        j += 4
    while j < hi:
        a0 += term(part, x, y, j, p)
        j += 1
    part[c] = (a0 + a1) + (a2 + a3)


@func
def lane_terms(x, y, part, n, p, t, term):
    """Lane t's sum of the terms of elements t, t + T, … (T = part.shape[0] * 256)."""
    stride = part.shape[0] * 256
    acc = in_dtype(part, 0)  # part is a kept array: not read, only written
    j = t
    while j < n:
        acc += term(part, x, y, j, p)
        j += stride
    return acc


@func
def group_terms(x, y, part, n, p, t, term, tree):
    """Lane t sums the terms of elements t, t + T, …; lane 0 stores its group's total (the
    workgroup's `tree`, reduce.group_tree)."""
    r = tree(part, lane_terms(x, y, part, n, p, t, term), add)
    if t % 256 == 0:
        part[t // 256] = r


@func
def t_abs(part, x, y, j, p):
    return abs(in_dtype(part, x[j]))


@func
def t_square(part, x, y, j, p):
    v = in_dtype(part, x[j])
    return v * v


@func
def t_deviation(part, x, y, j, p):
    d = in_dtype(part, x[j]) - p
    return d * d


@func
def t_product(part, x, y, j, p):
    return in_dtype(part, x[j]) * in_dtype(part, y[j])


@func
def t_nonzero(part, x, y, j, p):
    v = x[j]
    # v − v is zero in v's own type (a literal 0 does not mix with u64); NaN − NaN is NaN.
    return 1 if v != v - v else 0


@kernel
def term_chunks(x, y, part, n, chunk, p, term):
    for c in range(part.shape[0]):
        chunk_terms(x, y, part, n, chunk, p, c, term)


@kernel
def term_groups(x, y, part, n, p, term, tree):
    for t in range(part.shape[0] * 256):
        group_terms(x, y, part, n, p, t, term, tree)


@kernel
def term_group_lanes(x, y, part, n, p, term):
    """`term_groups` with the warp tree on an engine without workgroups (deterministic mode):
    iteration g runs workgroup g's lanes one after the other, combined in `warp_order`."""
    for g in range(part.shape[0]):
        acc = local_array_like(part, 256)
        for lane in range(256):
            acc[lane] = lane_terms(x, y, part, n, p, g * 256 + lane, term)
        part[g] = warp_order(acc, add)


TERMS = {"abs": t_abs, "square": t_square, "deviation": t_deviation, "product": t_product,
         "nonzero": t_nonzero}


def sum_terms(term: str, x: Array, y: Array, n: int, acc, p=0.0):
    """Σ term(x[j], y[j]) for j < n (n > 0) in the dtype `acc`; a NumPy scalar."""
    if V.emulated_groups(x) and n > WORKGROUP:
        groups = min(GROUPS, -(-n // WORKGROUP))
        part = zeros(groups, acc, device=x.device)
        term_group_lanes(x, y, part, n, p, TERMS[term])
        return fold_group_lanes(part, groups)
    if V.workgroups(x) and n > WORKGROUP:
        groups = min(GROUPS, -(-n // WORKGROUP))
        part = kept(x.device, acc, "term groups", groups)  # every slot written before read
        term_groups(x, y, part, n, p, TERMS[term], group_tree(x))
        return fold_groups(part, groups, "sum")
    part = zeros(-(-n // CHUNK), acc, device=x.device)
    term_chunks(x, y, part, n, CHUNK, p, TERMS[term])
    return reduce_flat(part, part.shape[0], "sum")
