"""Row reductions for the portable (one row per iteration) kernels, eight partial results at a
time: a plain `s += x[c]` loop is one dependent chain that LLVM may not reorder without
fast-math, so it runs at one add per add-latency; eight independent accumulators let the SLP
vectorizer keep them in one 8-wide register, one vector operation per eight elements. They are
combined by halving (acc[j] with acc[j + 4], then + 2, then + 1: a fixed order on every engine),
lane j with lane j + 4 of the same vector, so that the combination does not make the vectorizer
split the accumulators into narrower groups (pairing neighbours did). The index is 64-bit: with
a 32-bit one, x[base + c + j] is a wrapping sum extended to 64 bits, which the vectorizer cannot
prove consecutive in j, and the loop stayed scalar. Written in Tack's kernel language like the
rest of tack.ops."""
from ..constants import constant
from ..dtypes import i64
from ..frontend.inline import func
from ..intrinsics import local_array_like, unroll

LANES = constant(8)  # partial results: one AVX2 register of float32


@func
def _halve_sum(acc):
    for j in unroll(range(4)):
        acc[j] += acc[j + 4]
    for j in unroll(range(2)):
        acc[j] += acc[j + 2]
    return acc[0] + acc[1]


@func
def row_sum(x, base, n, shift):
    """sum over c < n of x[base + c] - shift (shift 0 for a plain sum)."""
    acc = local_array_like(x, LANES)
    for j in unroll(range(LANES)):
        acc[j] = 0.0
    c = i64(base)
    end = c + n
    while c + LANES <= end:
        for j in unroll(range(LANES)):
            acc[j] += x[c + j] - shift
        c += LANES
    while c < end:
        acc[0] += x[c] - shift
        c += 1
    return _halve_sum(acc)


@func
def row_sq_dev(x, base, n, mu):
    """sum over c < n of (x[base + c] - mu)^2."""
    acc = local_array_like(x, LANES)
    for j in unroll(range(LANES)):
        acc[j] = 0.0
    c = i64(base)
    end = c + n
    while c + LANES <= end:
        for j in unroll(range(LANES)):
            d = x[c + j] - mu
            acc[j] += d * d
        c += LANES
    while c < end:
        d = x[c] - mu
        acc[0] += d * d
        c += 1
    return _halve_sum(acc)


@func
def row_max(x, base, n):
    acc = local_array_like(x, LANES)
    for j in unroll(range(LANES)):
        acc[j] = x[base]
    c = i64(base)
    end = c + n
    while c + LANES <= end:
        for j in unroll(range(LANES)):
            acc[j] = max(acc[j], x[c + j])
        c += LANES
    while c < end:
        acc[0] = max(acc[0], x[c])
        c += 1
    for j in unroll(range(4)):
        acc[j] = max(acc[j], acc[j + 4])
    for j in unroll(range(2)):
        acc[j] = max(acc[j], acc[j + 2])
    return max(acc[0], acc[1])
