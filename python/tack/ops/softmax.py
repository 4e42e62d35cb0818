"""`softmax` and `log_softmax` over any axis.

The array is seen as (outer, n, inner) around the axis. Over the last axis (inner == 1) on an
engine with workgroups, one 256-lane workgroup takes a row: where the row fits in registers
(n <= 256 * 32) each lane keeps its share in a local array and the row is read once; a longer
row takes an online max/sum (each lane rescales its running sum when its maximum grows, the
lanes' pairs are then combined) and is read twice. The portable kernel (the CPU) runs one row
per parallel iteration, whose sweeps stay in cache (max, exp and sum, scale), each a loop that
vectorizes (the builtin `exp` of f32 is `tack.lib.expf.exp_f32` on the CPU, plain arithmetic).
Another axis runs one (outer, inner) column per iteration, neighbouring iterations reading
neighbouring addresses.

A lane of a workgroup kernel (the one-read kernel and the online one) takes `STEP` = 8
consecutive elements at a time (elements (lane + 256 k) * 8 + v): a step's loads and stores
are neighbours, which the NVPTX printer's aligned entry (render/llvm/ptx.py, `emit_aligned`)
lets LLVM merge into 16-byte accesses where every array starts 16 bytes aligned and the row's
start is provably a multiple of 8 (`row_start_wide`, chosen by `start_func` where n is a
multiple of 8: `r * (n // 8) * 8`, which passes/divisibility.py sees); otherwise the same
kernel has plain accesses, the same results. A whole step is plain loads and stores (`take`,
`put`), the partial step at a row's end guarded element by element.

One sum order (docs/numerics.md, "The same bits"): a row's exps are added as the one-read
workgroup kernel adds them, element c into lane (c // 8) % 256, each lane in index order from 0, the
256 lanes combined by the workgroup tree; the portable kernel does the same with 256
accumulators (`lane_exp_sum`, `lane_tree`), so a row of up to 256 * 32 elements has the same
bits on the CPU engine as on the simulator (and as a GPU's where its exp is the same). The
maximum needs no order (max is exact). The online kernel's rescaled sums round differently; in
deterministic mode the portable kernel follows them (`online_row`: the same lanes, steps and
tree).

Every kernel takes x - max through `_shifted`, which gives a row whose maximum is +inf NNlib's
result (https://github.com/FluxML/NNlib.jl/blob/master/src/softmax.jl, `_softmax!` and
`_logsoftmax!`): the +inf elements share the row (softmax 1/k, log_softmax -log(k) for k of
them), the others get 0 (log_softmax -inf), where inf - inf would make the whole row NaN.

f16 and bf16 rows run the same kernels with an f32 maximum and sum (`_wide`: the f32 row loop
and workgroup tree; the running locals start as f32) and f32 exps, each result rounded to half
once: their exps are summed in f32 and computed again for the scaling, never kept in half
(`_KEEP`)."""
from __future__ import annotations

import math

from ..constants import constant
from ..devices import deterministic_mode
from ..dtypes import f32, f64, i64
from ..frontend.inline import func
from ..intrinsics import local_array, local_array_like, select, thread_id, unroll
from ..kernel import kernel
from ..lib.combine import add, larger
from . import _args, _wide
from ._rowsum import row_max
from ._steps import STEP, put, take

MAX_PER_LANE = 32  # registers a lane may hold for the one-read path (n <= 256 * 32)


@func
def _shifted(v, m):
    """v - m for an element v of a row whose maximum is m; where m is +inf, NNlib's limit: 0
    for v = +inf, -inf for the others (a select, so that the loops stay free of branches)."""
    return select(m == math.inf, select(v == m, 0.0, -math.inf), v - m)


LANES = constant(256)  # the workgroup's lanes (ir.ops.WORKGROUP), whose sum order all share


@func
def _stash(kept, i, e):
    """Keep exp(x - max) in `kept[i]` (of the row's dtype: exact) for the scaling pass."""
    kept[i] = e


@func
def _no_stash(kept, i, e):
    """A half row keeps no exp: rounded to half it would round twice."""
    return e


@func
def _fetch(kept, src, i, m):
    return kept[i]


@func
def _recompute(kept, src, i, m):
    """A half row's exp(x - max), computed again in f32 from the element."""
    return exp(_shifted(src[i], m))  # noqa: F821 - a kernel builtin


@func
def row_start(r, n):
    """The first element of row r: r * n."""
    return r * n


@func
def row_start_wide(r, n):
    """`row_start` for n a multiple of `STEP` (the wrapper checks), written so that it is
    visibly one (passes/divisibility.py): the NVPTX printer's aligned entry then knows each
    lane's `STEP` elements start 16 bytes aligned and LLVM merges their accesses."""
    return r * (n // STEP) * STEP


def start_func(n: int):
    """The workgroup kernels' `start` for rows of n."""
    return row_start_wide if n % STEP == 0 else row_start


@func
def lane_tree(acc, live):
    """acc[0] + ... + acc[LANES - 1] in the workgroup tree's order (`lib.reductions.group_tree`:
    slot i takes slot i + s for s = 128, 64, ..., 1), each level one vectorizable loop. Only
    the first `live` slots are read: the others hold +0.0, and adding +0.0 to a sum of exps
    (never -0.0) changes nothing, so a short row skips those additions with the same bits."""
    s = 128
    while s > 8:
        for i in range(min(s, live - s)):
            acc[i] = acc[i] + acc[i + s]
        s = s // 2
    for i in unroll(range(8)):  # the last levels without loops (slots 0..15 are written)
        acc[i] = acc[i] + acc[i + 8]
    for i in unroll(range(4)):
        acc[i] = acc[i] + acc[i + 4]
    for i in unroll(range(2)):
        acc[i] = acc[i] + acc[i + 2]
    return acc[0] + acc[1]


@func
def lane_exp_sum(x, out, base, n, m, stash):
    """sum over c < n of exp(x[base + c] - m) in the workgroup kernels' order: element c into
    lane (c // STEP) % 256, each lane adding its elements in index order from 0, the lanes by
    `lane_tree`; in x's dtype. Each exp goes to `stash(out, base + c, e)`."""
    acc = local_array_like(x, LANES)
    return lane_sum(acc, x, out, base, n, m, stash)


@func
def lane_exp_sum_f32(x, out, base, n, m, stash):
    """`lane_exp_sum` in f32: a half row's."""
    acc = local_array(f32, LANES)
    return lane_sum(acc, x, out, base, n, m, stash)


@func
def lane_sum(acc, x, out, base, n, m, stash):
    live = min((n + STEP - 1) // STEP, LANES)  # the lanes that receive an element
    for j in range(max(live, 16)):
        acc[j] = 0.0
    c = i64(base)
    end = c + n
    while c + LANES * STEP <= end:
        for j in range(LANES):
            for v in unroll(range(STEP)):
                e = exp(_shifted(x[c + j * STEP + v], m))  # noqa: F821 - a kernel builtin
                stash(out, c + j * STEP + v, e)
                acc[j] += e
        c += LANES * STEP
    whole = (end - c) // STEP  # the last round: its whole lanes, then one lane's remainder
    for j in range(whole):
        for v in unroll(range(STEP)):
            e = exp(_shifted(x[c + j * STEP + v], m))  # noqa: F821
            stash(out, c + j * STEP + v, e)
            acc[j] += e
    c += whole * STEP
    for v in range(end - c):
        e = exp(_shifted(x[c + v], m))  # noqa: F821
        stash(out, c + v, e)
        acc[whole] += e
    return lane_tree(acc, live)


@kernel
def _rows(x, out, rows, n, want_log, fold, exp_sum, stash, fetch):
    for r in range(rows):
        base = r * n
        m = row_max(fold, x, base, n)
        s = exp_sum(x, out, base, n, m, stash)
        if want_log:
            ls = log(s)  # noqa: F821 - a kernel builtin
            for c in range(n):
                out[base + c] = _shifted(x[base + c], m) - ls
        else:
            inv = 1.0 / s
            for c in range(n):
                out[base + c] = fetch(out, x, base + c, m) * inv


# compile-time functions: a half row sums f32 exps and scales them again computed, not rounded
# to half in between (its result rounds once)
_SUM = {False: lane_exp_sum, True: lane_exp_sum_f32}
_KEEP = {False: (_stash, _fetch), True: (_no_stash, _recompute)}


def row_funcs(dtype) -> tuple:
    """The portable kernel's last arguments for rows of `dtype`."""
    return _wide.funcs(dtype, "fold") + (_SUM[dtype.is_half],) + _KEEP[dtype.is_half]


def cached_funcs(dtype, start=row_start, device=None) -> tuple:
    """The one-read workgroup kernel's last arguments for rows of `dtype`, each row's first
    element given by `start` (`start_func`), its workgroup tree the one for `device`
    (`_wide.funcs`)."""
    return (start,) + _wide.funcs(dtype, "reduce", device=device) + _KEEP[dtype.is_half]


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
    """The one-read workgroup kernel for rows of at most 256 * per elements: lane l takes
    elements (l + 256 k) * STEP + v, v < STEP, for k < per / STEP (`_per_lane` keeps per a
    multiple of STEP)."""
    assert per % STEP == 0, per
    PER = constant(per)
    STEPS = constant(per // STEP)

    @kernel
    def softmax_cached(x, out, rows, n, want_log, start, reduce, stash, fetch):
        for t in range(rows * 256):
            r = t // 256
            lane = thread_id()
            base = start(r, n)
            vals = local_array_like(x, PER)
            m = f32(-math.inf)
            for k in unroll(range(STEPS)):
                c = (lane + k * 256) * STEP
                take(vals, k * STEP, x, base + c, n - c, -math.inf)
            for k in unroll(range(PER)):
                m = max(m, vals[k])
            m = reduce(x, m, larger)
            s = f32(0.0)
            for k in unroll(range(PER)):  # a lane's elements in index order
                e = exp(_shifted(vals[k], m))  # noqa: F821
                s += e
                if not want_log:
                    stash(vals, k, e)
            s = reduce(x, s, add)
            ls = log(s)  # noqa: F821
            inv = 1.0 / s
            for k in unroll(range(PER)):  # the results, rounded once, kept for the stores
                if want_log:
                    vals[k] = _shifted(vals[k], m) - ls
                else:
                    vals[k] = fetch(vals, vals, k, m) * inv
            for k in unroll(range(STEPS)):
                c = (lane + k * 256) * STEP
                put(out, base + c, n - c, vals, k * STEP)
    return softmax_cached


@func
def _online_step(vals, c, n, m, s):
    """One lane's running (maximum, sum) after its step of `STEP` elements `vals` at column c
    (those past n left out): the step's largest element first; where it is above the running
    maximum, the sum rescaled to it once; then the step's exps added in index order (eight
    independent exps, not a chain of rescales). A -inf element adds nothing: its exp is 0,
    also where the lane's maximum is still -inf and -inf - m would be NaN (a NaN still makes
    the sum NaN)."""
    big = m
    for v in unroll(range(STEP)):
        if c + v < n and vals[v] > big:
            big = vals[v]
    if big > m:
        s = s * exp(m - big)  # noqa: F821 - a kernel builtin
        m = big
    for v in unroll(range(STEP)):
        if c + v < n and vals[v] != -math.inf:
            s += exp(_shifted(vals[v], m))  # noqa: F821
    return m, s


@kernel
def _online(x, out, rows, n, want_log, start, reduce):
    for t in range(rows * 256):
        r = t // 256
        lane = thread_id()
        base = start(r, n)
        vals = local_array_like(x, STEP)
        m = f32(-math.inf)
        s = f32(0.0)
        for c in range(lane * STEP, n, 256 * STEP):  # the one-read kernel's steps
            take(vals, 0, x, base + c, n - c, 0.0)
            m, s = _online_step(vals, c, n, m, s)
        big = reduce(x, m, larger)
        # a lane without elements adds 0
        s = reduce(x, s * exp(_shifted(m, big)), add)  # noqa: F821
        inv = 1.0 / s
        for c in range(lane * STEP, n, 256 * STEP):
            take(vals, 0, x, base + c, n - c, 0.0)
            for v in unroll(range(STEP)):
                e = _shifted(vals[v], big)
                vals[v] = e - log(s) if want_log else exp(e) * inv  # noqa: F821
            put(out, base + c, n - c, vals, 0)


@func
def online_row(x, out, ms, ss, vals, base, n, want_log):
    """One row as `_online` computes it, on one thread: lane j (ms[j], ss[j]) takes the steps
    of `STEP` elements at c = 8 j, 8 j + 2048, ... (element c in lane (c // 8) % 256), in
    index order (`_online_step`); the row maximum; each lane's sum rescaled to it, the lanes by
    the workgroup tree; the results."""
    for j in range(LANES):
        ms[j] = -math.inf
        ss[j] = 0.0
    c = i64(0)
    while c < n:
        for j in range(min(LANES, (n - c + STEP - 1) // STEP)):
            at = c + j * STEP
            take(vals, 0, x, base + at, n - at, 0.0)
            ms[j], ss[j] = _online_step(vals, at, n, ms[j], ss[j])
        c += LANES * STEP
    big = f32(-math.inf)
    for j in range(LANES):
        big = max(big, ms[j])
    for j in range(LANES):
        ss[j] = ss[j] * exp(_shifted(ms[j], big))  # noqa: F821
    s = lane_tree(ss, LANES)
    inv = 1.0 / s
    for c in range(n):
        v = _shifted(x[base + c], big)
        out[base + c] = v - log(s) if want_log else exp(v) * inv  # noqa: F821


@kernel
def _online_rows(x, out, rows, n, want_log):
    """`_online` on an engine without workgroups (deterministic mode), f32 lanes: f32 and half
    rows."""
    for r in range(rows):
        ms = local_array(f32, LANES)
        ss = local_array(f32, LANES)
        vals = local_array_like(x, STEP)
        online_row(x, out, ms, ss, vals, r * n, n, want_log)


@kernel
def _online_rows_f64(x, out, rows, n, want_log):
    """`_online_rows` for f64 rows (f64 lanes)."""
    for r in range(rows):
        ms = local_array_like(x, LANES)
        ss = local_array_like(x, LANES)
        vals = local_array_like(x, STEP)
        online_row(x, out, ms, ss, vals, r * n, n, want_log)


_CACHED: dict = {}


def _cached(per: int):
    if per not in _CACHED:
        _CACHED[per] = _cached_kernel(per)
    return _CACHED[per]


def _per_lane(n: int) -> int:
    """The smallest power of two of elements per lane, at least `STEP`, that holds a row of n."""
    per = STEP
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
    rows, n, inner = _args.sizes(max(xa.size + 512 * n + 256 * STEP, 256 * rows), rows, n,
                                 inner)
    # in place: every kernel reads a row's elements before writing them, except the portable
    # log_softmax, which keeps exp(x - max) in the output row before it reads x again
    portable = inner == 1 and not _args.workgroups(dev)
    res = _args.apart(out, {"x": xa}, in_place=() if want_log and portable else ("x",))
    if inner > 1:
        _columns(xa, res, rows, n, inner, want_log)
    elif portable and n > 256 * MAX_PER_LANE and deterministic_mode():
        # the workgroup engines' online kernel's order (docs/numerics.md, "Deterministic mode")
        (_online_rows_f64 if xa.dtype == f64 else _online_rows)(xa, res, rows, n, want_log)
    elif portable:
        _rows(xa, res, rows, n, want_log, *row_funcs(xa.dtype))
    elif n <= 256 * MAX_PER_LANE:
        _cached(_per_lane(n))(xa, res, rows, n, want_log,
                              *cached_funcs(xa.dtype, start_func(n), dev))
    else:
        _online(xa, res, rows, n, want_log, start_func(n),
                *_wide.funcs(xa.dtype, "reduce", device=dev))
    return _args.deliver(res, out)


def softmax(x, axis=-1, out=None, deterministic=None):
    """exp(x - max) / sum(exp(x - max)) along `axis`. `deterministic`: True or False runs in that
    mode (`tack.deterministic`), None in the caller's."""
    with _args.mode(deterministic):
        return _run("softmax", x, axis, 0, out)


def log_softmax(x, axis=-1, out=None, deterministic=None):
    """x - max - log(sum(exp(x - max))) along `axis`; `deterministic` as for `softmax`."""
    with _args.mode(deterministic):
        return _run("log_softmax", x, axis, 1, out)
