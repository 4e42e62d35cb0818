"""Row reductions for the portable (one row per iteration) kernels, eight partial results at a
time: a plain `s += x[c]` loop is one dependent chain that LLVM may not reorder without
fast-math, so it runs at one add per add-latency; eight independent accumulators (combined
pairwise at the end, a fixed order on every engine) let the SLP vectorizer use one vector add
per eight elements. Written in Tack's kernel language like the rest of tack.ops."""
from ..frontend.inline import func
from ..intrinsics import local_array_like, unroll


@func
def row_sum(x, base, n, shift):
    """sum over c < n of x[base + c] - shift (shift 0 for a plain sum)."""
    acc = local_array_like(x, 8)
    for j in unroll(range(8)):
        acc[j] = 0.0
    c = 0
    while c + 8 <= n:
        for j in unroll(range(8)):
            acc[j] += x[base + c + j] - shift
        c += 8
    while c < n:
        acc[0] += x[base + c] - shift
        c += 1
    return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]))


@func
def row_sq_dev(x, base, n, mu):
    """sum over c < n of (x[base + c] - mu)^2."""
    acc = local_array_like(x, 8)
    for j in unroll(range(8)):
        acc[j] = 0.0
    c = 0
    while c + 8 <= n:
        for j in unroll(range(8)):
            d = x[base + c + j] - mu
            acc[j] += d * d
        c += 8
    while c < n:
        d = x[base + c] - mu
        acc[0] += d * d
        c += 1
    return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]))


@func
def row_max(x, base, n):
    acc = local_array_like(x, 8)
    for j in unroll(range(8)):
        acc[j] = x[base]
    c = 0
    while c + 8 <= n:
        for j in unroll(range(8)):
            acc[j] = max(acc[j], x[base + c + j])
        c += 8
    while c < n:
        acc[0] = max(acc[0], x[base + c])
        c += 1
    return max(max(max(acc[0], acc[1]), max(acc[2], acc[3])),
               max(max(acc[4], acc[5]), max(acc[6], acc[7])))
