"""`softmax` and `log_softmax` over any axis.

The array is seen as (outer, n, inner) around the axis. Over the last axis (inner == 1) on an
engine with workgroups, one 256-lane workgroup takes a row: where the row fits in registers
(n <= 256 * 32) each lane keeps its share in a local array and the row is read once; a longer
row takes an online max/sum (each lane rescales its running sum when its maximum grows, the
lanes' pairs are then combined) and is read twice. The portable kernel (the CPU) runs one row
per parallel iteration, whose four sweeps stay in cache (max, exp, sum, scale: the reductions
eight at a time, `_rowsum`, the exp loop free of them, so that each vectorizes); in float32 its
exp is `tack.lib.expf.exp_f32`, plain arithmetic that vectorizes too (the builtin's `expf`
runs one lane at a time). Another axis runs one (outer, inner) column per iteration,
neighbouring iterations reading neighbouring addresses.

Every kernel takes x - max through `_shifted`, which gives a row whose maximum is +inf NNlib's
result (https://github.com/FluxML/NNlib.jl/blob/master/src/softmax.jl, `_softmax!` and
`_logsoftmax!`): the +inf elements share the row (softmax 1/k, log_softmax -log(k) for k of
them), the others get 0 (log_softmax -inf), where inf - inf would make the whole row NaN.

f16 and bf16 rows run the same kernels with an f32 maximum and sum (`_wide`: the f32 row loop
and workgroup tree; the running locals start as f32) and f32 exp (`exp_f32` on the CPU)."""
from __future__ import annotations

import math

from ..constants import constant
from ..dtypes import f32, f64
from ..frontend.inline import func
from ..intrinsics import local_array_like, select, thread_id, unroll
from ..kernel import kernel
from ..lib.combine import add, larger
from ..lib.expf import exp_f32
from . import _args, _wide
from ._rowsum import row_max, row_sum

MAX_PER_LANE = 32  # registers a lane may hold for the one-read path (n <= 256 * 32)


@func
def _shifted(v, m):
    """v - m for an element v of a row whose maximum is m; where m is +inf, NNlib's limit: 0
    for v = +inf, -inf for the others (a select, so that the loops stay free of branches)."""
    return select(m == math.inf, select(v == m, 0.0, -math.inf), v - m)


def _rows_kernel(expf, name: str):
    """The portable row kernel with `expf` for exp (the builtin, or `exp_f32`); `name` is the
    Python-side name (`tack.inspect` and the Julia files show `_rows` for both)."""

    def _rows(x, out, rows, n, want_log, fold):
        for r in range(rows):
            base = r * n
            m = row_max(fold, x, base, n)
            for c in range(n):
                out[base + c] = expf(_shifted(x[base + c], m))
            s = row_sum(fold, out, base, n, 0.0)
            if want_log:
                ls = log(s)  # noqa: F821 - a kernel builtin
                for c in range(n):
                    out[base + c] = _shifted(x[base + c], m) - ls
            else:
                inv = 1.0 / s
                for c in range(n):
                    out[base + c] = out[base + c] * inv
    _rows.__name__ = name
    return kernel(_rows)


_rows = _rows_kernel(math.exp, "_rows")  # float64, and the Julia files' portable tier
_rows_f32 = _rows_kernel(exp_f32, "_rows_f32")  # float32 on the CPU: a vectorized exp


@kernel
def _columns(x, out, columns, n, inner, want_log):
    for t in range(columns):
        base = (t // inner) * n * inner + t % inner
        m = f32(-math.inf)
        for c in range(n):
            m = max(m, x[base + c * inner])
        s = f32(0.0)
        for c in range(n):
            s += exp(_shifted(x[base + c * inner], m))  # noqa: F821
        ls = log(s)  # noqa: F821
        for c in range(n):
            v = _shifted(x[base + c * inner], m) - ls
            out[base + c * inner] = v if want_log else exp(v)  # noqa: F821


def _cached_kernel(per: int):
    """The one-read workgroup kernel for rows of at most 256 * per elements."""
    PER = constant(per)

    @kernel
    def softmax_cached(x, out, rows, n, want_log, reduce):
        for t in range(rows * 256):
            r = t // 256
            lane = thread_id()
            base = r * n
            vals = local_array_like(x, PER)
            m = f32(-math.inf)
            for k in unroll(range(PER)):
                c = lane + k * 256
                vals[k] = x[base + c] if c < n else -math.inf
                m = max(m, vals[k])
            m = reduce(x, m, larger)
            s = f32(0.0)
            for k in unroll(range(PER)):
                e = exp(_shifted(vals[k], m))  # noqa: F821
                s += e
                if not want_log:
                    vals[k] = e
            s = reduce(x, s, add)
            ls = log(s)  # noqa: F821
            inv = 1.0 / s
            for k in unroll(range(PER)):
                c = lane + k * 256
                if c < n:
                    out[base + c] = _shifted(vals[k], m) - ls if want_log else vals[k] * inv
    return softmax_cached


@kernel
def _online(x, out, rows, n, want_log, reduce):
    for t in range(rows * 256):
        r = t // 256
        lane = thread_id()
        base = r * n
        m = f32(-math.inf)
        s = f32(0.0)
        for c in range(lane, n, 256):
            v = x[base + c]
            if v > m:
                s = s * exp(m - v)  # noqa: F821 - the running sum, rescaled to the new maximum
                m = v
            s += exp(_shifted(v, m))  # noqa: F821
        big = reduce(x, m, larger)
        # a lane without elements adds 0
        s = reduce(x, s * exp(_shifted(m, big)), add)  # noqa: F821
        inv = 1.0 / s
        for c in range(lane, n, 256):
            v = _shifted(x[base + c], big)
            out[base + c] = v - log(s) if want_log else exp(v) * inv  # noqa: F821


_CACHED: dict = {}


def _cached(per: int):
    if per not in _CACHED:
        _CACHED[per] = _cached_kernel(per)
    return _CACHED[per]


def _per_lane(n: int) -> int:
    """The smallest power of two of elements per lane that holds a row of n."""
    per = 1
    while per * 256 < n:
        per *= 2
    return per


def _run(op: str, x, axis, want_log: int, out):
    dev = _args.device()
    xa = _args.as_array(op, "x", x, dev)
    if xa.ndim == 0:
        raise _args.TackValueError(f"tack.ops.{op}: argument 'x' must have at least one "
                                   f"dimension, got a 0-d array")
    ax = _args.norm_axis(op, axis, xa.ndim)
    n, inner = xa.shape[ax], _args.prod(xa.shape[ax + 1:])
    out = _args.output(op, out, xa)
    if xa.size == 0:
        return out
    rows = xa.size // n  # a row's last lane may index up to 256 * per past its start
    rows, n, inner = _args.sizes(max(xa.size + 512 * n, 256 * rows), rows, n, inner)
    # in place: every kernel reads a row's elements before writing them, except the portable
    # log_softmax, which keeps exp(x - max) in the output row before it reads x again
    portable = inner == 1 and not _args.workgroups(dev)
    res = _args.apart(out, {"x": xa}, in_place=() if want_log and portable else ("x",))
    if inner > 1:
        _columns(xa, res, rows, n, inner, want_log)
    elif portable:  # f32 math for f32 and half rows: exp_f32
        k = _rows if xa.dtype == f64 else _rows_f32
        k(xa, res, rows, n, want_log, *_wide.funcs(xa.dtype, "fold"))
    elif n <= 256 * MAX_PER_LANE:
        _cached(_per_lane(n))(xa, res, rows, n, want_log, *_wide.funcs(xa.dtype, "reduce"))
    else:
        _online(xa, res, rows, n, want_log, *_wide.funcs(xa.dtype, "reduce"))
    return _args.deliver(res, out)


def softmax(x, axis=-1, out=None):
    """exp(x - max) / sum(exp(x - max)) along `axis`."""
    return _run("softmax", x, axis, 0, out)


def log_softmax(x, axis=-1, out=None):
    """x - max - log(sum(exp(x - max))) along `axis`."""
    return _run("log_softmax", x, axis, 1, out)
