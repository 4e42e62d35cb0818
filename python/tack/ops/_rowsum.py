"""Row reductions for the portable (one row per iteration) kernels, one loop (`row_fold`, its step
and combining `@tack.func` arguments) for sums, squared deviations and maxima, eight
partial results at a time: a plain `s += x[c]` loop is one dependent chain that LLVM may not
reorder without fast-math, so it runs at one add per add-latency; eight independent accumulators
let the SLP vectorizer keep them in one 8-wide register, one vector operation per eight
elements. They are combined by halving (acc[j] with acc[j + 4], then + 2, then + 1: a fixed
order on every engine), lane j with lane j + 4 of the same vector, so that the combination does
not make the vectorizer split the accumulators into narrower groups (pairing neighbours did).
The index is 64-bit: with a 32-bit one, x[base + c + j] is a wrapping sum extended to 64 bits,
which the vectorizer cannot prove consecutive in j, and the loop stayed scalar. Written in
Tack's kernel language like the rest of tack.ops."""
from ..constants import constant
from ..dtypes import f32, i64
from ..frontend.inline import func
from ..intrinsics import local_array, local_array_like, unroll
from ..lib.combine import add, larger

LANES = constant(8)  # partial results: one AVX2 register of float32


@func
def row_fold(x, base, n, p, start, step, combine):
    """Fold x[base + c] for c < n into eight lanes of x's dtype, each from start(x, base), by
    `acc = step(acc, x[base + c], p)` (one expression, so that a product and its sum contract
    to one multiply-add as in a plain loop), the tail into lane 0; the lanes are then halved
    with `combine` in the order above."""
    acc = local_array_like(x, LANES)
    return fold_lanes(acc, x, base, n, p, start, step, combine)


@func
def row_fold_f32(x, base, n, p, start, step, combine):
    """`row_fold` with f32 lanes: the kernels' `fold` for f16 and bf16 rows, whose sums,
    squared deviations and maxima are f32."""
    acc = local_array(f32, LANES)
    return fold_lanes(acc, x, base, n, p, start, step, combine)


@func
def fold_lanes(acc, x, base, n, p, start, step, combine):
    for j in unroll(range(LANES)):
        acc[j] = start(x, base)
    c = i64(base)
    end = c + n
    while c + LANES <= end:
        for j in unroll(range(LANES)):
            acc[j] = step(acc[j], x[c + j], p)
        c += LANES
    while c < end:
        acc[0] = step(acc[0], x[c], p)
        c += 1
    for j in unroll(range(4)):
        acc[j] = combine(acc[j], acc[j + 4])
    for j in unroll(range(2)):
        acc[j] = combine(acc[j], acc[j + 2])
    return combine(acc[0], acc[1])


@func
def _zero(x, base):
    return 0.0


@func
def _first(x, base):
    return x[base]


@func
def _add_shifted(acc, v, shift):
    return acc + (v - shift)


@func
def _add_square_dev(acc, v, mu):
    d = v - mu
    return acc + d * d


@func
def _larger(acc, v, p):
    return max(acc, v)


@func
def row_sum(fold, x, base, n, shift):
    """sum over c < n of x[base + c] - shift (shift 0 for a plain sum), by `fold` (`row_fold`,
    or `row_fold_f32` for half rows)."""
    return fold(x, base, n, shift, _zero, _add_shifted, add)


@func
def row_sq_dev(fold, x, base, n, mu):
    """sum over c < n of (x[base + c] - mu)^2, by `fold`."""
    return fold(x, base, n, mu, _zero, _add_square_dev, add)


@func
def row_max(fold, x, base, n):
    """max over c < n of x[base + c], by `fold`."""
    return fold(x, base, n, 0, _first, _larger, larger)
