"""`layer_norm` and `rms_norm` over the last axis.

On an engine with workgroups one 256-lane workgroup takes a row; where it fits in registers
(n <= 256 * 32) each lane keeps its share in a local array, so the row is read once and the
variance is taken around the mean (two sweeps over registers, no cancellation); a longer row is
read again for each sweep. The portable kernel runs one row per parallel iteration, its sums
eight at a time (`_rowsum`). With `return_stats`, layer_norm also writes each row's mean and
reciprocal standard deviation (one kernel, three outputs). f16 and bf16 rows run the same
kernels with an f32 mean and variance (`_wide`), each output rounded once.

In deterministic mode (docs/numerics.md) the portable kernels add as the workgroup kernels do
(`_layer_lanes`, `_rms_lanes`): element c of a row into lane (c // 8) % 256, each lane in
index order from 0, the lanes by the workgroup tree (`softmax.lane_tree`), so the CPU engine's
bits are the simulator's, CUDA's and Julia's. A workgroup lane takes 8 consecutive elements at
a time, as softmax's (ops/softmax.py: 16-byte accesses through the NVPTX aligned entry, x,
weight, bias and the result alike); the long-row kernels take the same steps in each sweep and
add in the same order."""
from __future__ import annotations

from ..constants import constant
from ..devices import deterministic_mode
from ..dtypes import f32, i64
from ..frontend.inline import func
from ..intrinsics import local_array, local_array_like, thread_id, unroll
from ..kernel import kernel
from ..lib.combine import add
from . import _args, _wide
from ._rowsum import row_sq_dev, row_sum
from ._steps import STEP, put, take
from .softmax import LANES, MAX_PER_LANE, _per_lane, lane_tree, start_func


@kernel
def _layer_rows(x, w, b, y, mean, rstd, rows, n, eps, fold):
    for r in range(rows):
        base = r * n
        mu = row_sum(fold, x, base, n, 0.0) / n
        inv = 1.0 / sqrt(row_sq_dev(fold, x, base, n, mu) / n + eps)  # noqa: F821 - a kernel builtin
        for c in range(n):
            y[base + c] = (x[base + c] - mu) * inv * w[c] + b[c]
        mean[r] = mu
        rstd[r] = inv


@kernel
def _rms_rows(x, w, y, rows, n, eps, fold):
    for r in range(rows):
        base = r * n
        # mu an f32 zero: a half row's squares are f32 products of the widened elements
        inv = 1.0 / sqrt(row_sq_dev(fold, x, base, n, f32(0.0)) / n + eps)  # noqa: F821
        for c in range(n):
            y[base + c] = x[base + c] * inv * w[c]


@func
def _plus(acc, v, p):
    return acc + v


@func
def _square_dev(acc, v, mu):
    d = v - mu
    return acc + d * d


@func
def _square(acc, v, wide):
    return acc + wide(v) * v


@func
def lanes_fold(acc, x, base, n, p, step):
    """The sum over c < n of the terms `step` adds (acc = step(acc, x[base + c], p)) in the
    workgroup kernels' order: term c into lane (c // STEP) % 256 (each lane from 0, in index
    order), the lanes by `lane_tree`; `acc`, 256 slots, is the accumulators' dtype."""
    live = min((n + STEP - 1) // STEP, LANES)  # the lanes that receive a term; the tree reads
    for j in range(max(live, 16)):  # no other
        acc[j] = 0.0
    c = i64(base)
    end = c + n
    while c + LANES * STEP <= end:
        for j in range(LANES):
            for v in unroll(range(STEP)):
                acc[j] = step(acc[j], x[c + j * STEP + v], p)
        c += LANES * STEP
    whole = (end - c) // STEP  # the last round: its whole lanes, then one lane's remainder
    for j in range(whole):
        for v in unroll(range(STEP)):
            acc[j] = step(acc[j], x[c + j * STEP + v], p)
    c += whole * STEP
    for v in range(end - c):
        acc[whole] = step(acc[whole], x[c + v], p)
    return lane_tree(acc, live)


@func
def lanes_like(x, base, n, p, step):
    """`lanes_fold` in x's dtype (f32 and f64 rows)."""
    acc = local_array_like(x, LANES)
    return lanes_fold(acc, x, base, n, p, step)


@func
def lanes_f32(x, base, n, p, step):
    """`lanes_fold` in f32 (f16 and bf16 rows, as the workgroup kernels' f32 statistics)."""
    acc = local_array(f32, LANES)
    return lanes_fold(acc, x, base, n, p, step)


_LANES = {False: lanes_like, True: lanes_f32}


@kernel
def _layer_lanes(x, w, b, y, mean, rstd, rows, n, eps, lanes):
    for r in range(rows):
        base = r * n
        mu = lanes(x, base, n, 0.0, _plus) / n
        inv = 1.0 / sqrt(lanes(x, base, n, mu, _square_dev) / n + eps)  # noqa: F821
        for c in range(n):
            y[base + c] = (x[base + c] - mu) * inv * w[c] + b[c]
        mean[r] = mu
        rstd[r] = inv


@kernel
def _rms_lanes(x, w, y, rows, n, eps, lanes, wide):
    for r in range(rows):
        base = r * n
        inv = 1.0 / sqrt(lanes(x, base, n, wide, _square) / n + eps)  # noqa: F821
        for c in range(n):
            y[base + c] = x[base + c] * inv * w[c]


@func
def _layer_out(vals, i, w, b, c, mu, inv):
    return (vals[i] - mu) * inv * w[c] + b[c]


@func
def _rms_out(vals, i, w, b, c, mu, inv):
    return vals[i] * inv * w[c]


@func
def finish(y, at, left, vals, i, w, b, c, mu, inv, out):
    """y[at + v] = out(vals, i + v, w, b, c + v, mu, inv) for the `STEP` elements of a lane's
    step that are in the row (`left` remain): the results first (a whole step's loads of w and
    b are `STEP` plain loads each, none after a store to y that might alias them), then
    `put`'s stores; each run one vector access where aligned."""
    if left >= STEP:
        for v in unroll(range(STEP)):
            vals[i + v] = out(vals, i + v, w, b, c + v, mu, inv)
    else:  # the other order, as in `put`
        for v in unroll(range(STEP - 1, -1, -1)):
            if v < left:
                vals[i + v] = out(vals, i + v, w, b, c + v, mu, inv)
    put(y, at, left, vals, i)


def _layer_cached_kernel(per: int):
    PER = constant(per)
    STEPS = constant(per // STEP)

    @kernel
    def layer_norm_cached(x, w, b, y, mean, rstd, rows, n, eps, start, reduce):
        for t in range(rows * 256):
            r = t // 256
            lane = thread_id()
            base = start(r, n)
            vals = local_array_like(x, PER)
            for k in unroll(range(STEPS)):
                c = (lane + k * 256) * STEP
                take(vals, k * STEP, x, base + c, n - c, 0.0)
            s = f32(0.0)
            for k in unroll(range(PER)):  # a lane's elements in index order
                s += vals[k]
            mu = reduce(x, s, add) / n
            q = f32(0.0)
            for k in unroll(range(PER)):
                d = vals[k] - mu if (lane + k // STEP * 256) * STEP + k % STEP < n else 0.0
                q += d * d
            inv = 1.0 / sqrt(reduce(x, q, add) / n + eps)  # noqa: F821
            for k in unroll(range(STEPS)):
                c = (lane + k * 256) * STEP
                finish(y, base + c, n - c, vals, k * STEP, w, b, c, mu, inv, _layer_out)
            if lane == 0:
                mean[r] = mu
                rstd[r] = inv
    return layer_norm_cached


def _rms_cached_kernel(per: int):
    PER = constant(per)
    STEPS = constant(per // STEP)

    @kernel
    def rms_norm_cached(x, w, y, rows, n, eps, start, reduce, wide):
        for t in range(rows * 256):
            r = t // 256
            lane = thread_id()
            base = start(r, n)
            vals = local_array_like(x, PER)
            for k in unroll(range(STEPS)):
                c = (lane + k * 256) * STEP
                take(vals, k * STEP, x, base + c, n - c, 0.0)
            q = f32(0.0)
            for k in unroll(range(PER)):
                q += wide(vals[k]) * vals[k]
            inv = 1.0 / sqrt(reduce(x, q, add) / n + eps)  # noqa: F821
            for k in unroll(range(STEPS)):
                c = (lane + k * 256) * STEP
                finish(y, base + c, n - c, vals, k * STEP, w, w, c, 0.0, inv, _rms_out)
    return rms_norm_cached


@kernel
def _layer_long(x, w, b, y, mean, rstd, rows, n, eps, start, reduce):
    for t in range(rows * 256):
        r = t // 256
        lane = thread_id()
        base = start(r, n)
        vals = local_array_like(x, STEP)
        s = f32(0.0)
        for c in range(lane * STEP, n, 256 * STEP):  # the one-read kernel's order
            take(vals, 0, x, base + c, n - c, 0.0)
            for v in unroll(range(STEP)):
                s += vals[v]  # the fill past the row's end adds +0.0 to a sum never -0.0
        mu = reduce(x, s, add) / n
        q = f32(0.0)
        for c in range(lane * STEP, n, 256 * STEP):
            take(vals, 0, x, base + c, n - c, 0.0)
            for v in unroll(range(STEP)):
                d = vals[v] - mu if c + v < n else 0.0
                q += d * d
        inv = 1.0 / sqrt(reduce(x, q, add) / n + eps)  # noqa: F821
        for c in range(lane * STEP, n, 256 * STEP):
            take(vals, 0, x, base + c, n - c, 0.0)
            finish(y, base + c, n - c, vals, 0, w, b, c, mu, inv, _layer_out)
        if lane == 0:
            mean[r] = mu
            rstd[r] = inv


@kernel
def _rms_long(x, w, y, rows, n, eps, start, reduce, wide):
    for t in range(rows * 256):
        r = t // 256
        lane = thread_id()
        base = start(r, n)
        vals = local_array_like(x, STEP)
        q = f32(0.0)
        for c in range(lane * STEP, n, 256 * STEP):  # the one-read kernel's order
            take(vals, 0, x, base + c, n - c, 0.0)
            for v in unroll(range(STEP)):
                q += wide(vals[v]) * vals[v]
        inv = 1.0 / sqrt(reduce(x, q, add) / n + eps)  # noqa: F821
        for c in range(lane * STEP, n, 256 * STEP):
            take(vals, 0, x, base + c, n - c, 0.0)
            finish(y, base + c, n - c, vals, 0, w, w, c, 0.0, inv, _rms_out)


_CACHED: dict = {}


def _cached(make, per: int):
    key = (make.__name__, per)
    if key not in _CACHED:
        _CACHED[key] = make(per)
    return _CACHED[key]


def _prepare(op: str, x, params: dict, eps):
    """The input, its parameter vectors (a missing weight is ones, a missing bias zeros) and
    the kernels' integer sizes, all checked before any launch."""
    dev = _args.device()
    eps = _args.number(op, "eps", eps)
    xa = _args.as_array(op, "x", x, dev)
    if xa.ndim == 0 or xa.shape[-1] == 0:
        raise _args.TackValueError(f"tack.ops.{op}: argument 'x' needs a non-empty last axis, "
                                   f"got shape {xa.shape}")
    n = xa.shape[-1]
    vecs = []
    for name, (value, default) in params.items():
        if value is None:
            vecs.append(_args.filled(xa, n, default))
            continue
        v = _args.as_array(op, name, value, dev)
        _args.same_dtype(op, xa, **{name: v})
        _args.need_shape(op, name, v, (n,))
        vecs.append(v)
    rows = xa.size // n
    return dev, xa, vecs, eps, _args.sizes(max(xa.size + 512 * n + 256 * STEP, 256 * rows),
                                            rows, n)


def layer_norm(x, weight=None, bias=None, eps=1e-5, return_stats=False, out=None,
               deterministic=None):
    """(x - mean) / sqrt(var + eps) * weight + bias over the last axis (biased variance). With
    `return_stats`, returns (y, mean, rstd), mean and rstd of shape x.shape[:-1].
    `deterministic`: True or False runs in that mode (`tack.deterministic`), None in the
    caller's."""
    with _args.mode(deterministic):
        return _layer_norm(x, weight, bias, eps, return_stats, out)


def _layer_norm(x, weight, bias, eps, return_stats, out):
    dev, xa, (w, b), eps, (rows, n) = _prepare(
        "layer_norm", x, {"weight": (weight, 1.0), "bias": (bias, 0.0)}, eps)
    out = _args.output("layer_norm", out, xa)
    y = _args.apart(out, {"x": xa, "weight": w, "bias": b}, in_place=("x",))
    if return_stats:
        mean, rstd = _args.like(xa, (int(rows),)), _args.like(xa, (int(rows),))
    else:  # written and never read: no allocation, no free (which would wait for the GPU)
        mean, rstd = _args.discarded(xa, int(rows), "mean"), _args.discarded(xa, int(rows), "rstd")
    if rows:
        if not _args.workgroups(dev) and deterministic_mode():
            k, fs = _layer_lanes, (_LANES[xa.dtype.is_half],)
        elif not _args.workgroups(dev):
            k, fs = _layer_rows, _wide.funcs(xa.dtype, "fold")
        else:  # a row in registers, or read again for each sweep
            k = _cached(_layer_cached_kernel, _per_lane(n)) if n <= 256 * MAX_PER_LANE \
                else _layer_long
            fs = (start_func(n),) + _wide.funcs(xa.dtype, "reduce", device=dev)
        k(xa, w, b, y, mean, rstd, rows, n, eps, *fs)
    y = _args.deliver(y, out)
    if not return_stats:
        return y
    stats = xa.shape[:-1]
    return y, _args.view(mean, stats), _args.view(rstd, stats)


def rms_norm(x, weight=None, eps=1e-6, out=None, deterministic=None):
    """x / sqrt(mean(x^2) + eps) * weight over the last axis; `deterministic` as for
    `layer_norm`."""
    with _args.mode(deterministic):
        return _rms_norm(x, weight, eps, out)


def _rms_norm(x, weight, eps, out):
    dev, xa, (w,), eps, (rows, n) = _prepare("rms_norm", x, {"weight": (weight, 1.0)}, eps)
    out = _args.output("rms_norm", out, xa)
    y = _args.apart(out, {"x": xa, "weight": w}, in_place=("x",))
    if rows:
        if not _args.workgroups(dev) and deterministic_mode():
            k, fs = _rms_lanes, (_LANES[xa.dtype.is_half],) + _wide.funcs(xa.dtype, "wide")
        elif not _args.workgroups(dev):
            k, fs = _rms_rows, _wide.funcs(xa.dtype, "fold")
        else:
            k = _cached(_rms_cached_kernel, _per_lane(n)) if n <= 256 * MAX_PER_LANE \
                else _rms_long
            fs = (start_func(n),) + _wide.funcs(xa.dtype, "reduce", "wide", device=dev)
        k(xa, w, y, rows, n, eps, *fs)
    return _args.deliver(y, out)
