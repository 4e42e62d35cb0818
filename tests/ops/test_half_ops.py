"""Every tack.op on float16 and bfloat16 inputs: the result has the input's dtype, and its error
against the float64 definition (refs.py, on the exact values of the half inputs) stays within
the half tolerance of the harness (1e-2 relative and absolute, twice that for reductions and
transcendentals) on each tier of shapes, rows with a large common offset (mean 100, where a
half accumulator loses every digit of the deviations) included. Statistics and accumulations
are f32: a half one fails the offset rows (softmax's sum, the norms' mean and variance) and the
long rows (a float16 sum stops growing at 2048 + its ulp)."""
import math

import ml_dtypes
import numpy as np
import pytest
import tack
import tack.testing
from tack import ops

from tests.ops import refs

HALVES = [np.float16, ml_dtypes.bfloat16]
TOL = 1e-2  # tack.testing's float16/bfloat16 row


pytestmark = pytest.mark.engines("cpu", "sim", "cuda",
                                 reason="the CPU engine, the simulator (the workgroup paths) and a"
                                        " GPU (block reductions, tiled matmul, tile and look-back "
                                        "scans)")


def _name(d) -> str:
    return np.dtype(d).name


def worst(got, want) -> float:
    """max |got - want| / (1 + |want|) over finite references: the error measured in units of
    the tolerance's atol + rtol * |want| (with atol == rtol)."""
    g = np.asarray(got.numpy() if isinstance(got, tack.Array) else got, np.float64)
    w = np.asarray(want, np.float64)
    assert g.shape == w.shape, (g.shape, w.shape)
    ok = np.isfinite(w)
    assert np.array_equal(np.isnan(g), np.isnan(w))
    return float(np.max(np.abs(g[ok] - w[ok]) / (1.0 + np.abs(w[ok])), initial=0.0))


def check(got, want, dtype, relaxed: bool) -> float:
    assert np.dtype(got.dtype.np) == np.dtype(dtype), (got.dtype, dtype)
    err = worst(got, want)
    assert err <= TOL * (2 if relaxed else 1), err
    return err


def data(shape, dtype, seed=0, shift=0.0, scale=3.0):
    return refs.rand(shape, dtype, seed=seed, scale=scale, shift=shift)


# ---- the op table: name -> (inputs(shape, dtype, shift), run(*inputs), reference, relaxed) ----
def _unary(shape, dtype, shift):
    return (data(shape, dtype, shift=shift),)


def _norm_inputs(shape, dtype, shift):
    n = shape[-1]
    return data(shape, dtype, shift=shift), data((n,), dtype, 1, scale=1.0), \
        data((n,), dtype, 2, scale=1.0)


def _layer_stats(x, w, b):
    return ops.layer_norm(x, w, b, return_stats=True)


OPS = {
    "add": (lambda s, d, c: (data(s, d, shift=c), data(s, d, 1)),
            lambda x, y: ops.add(x, y, alpha=0.75), lambda x, y: refs.add(x, y, 0.75), False),
    "relu": (_unary, ops.relu, refs.relu, False),
    "gelu": (_unary, ops.gelu, refs.gelu_tanh, True),
    "gelu_erf": (_unary, lambda x: ops.gelu(x, approximate="none"), refs.gelu_erf, True),
    "silu": (_unary, ops.silu, refs.silu, True),
    "softmax": (_unary, ops.softmax, lambda x: refs.softmax(x, -1), True),
    "log_softmax": (_unary, ops.log_softmax, lambda x: refs.log_softmax(x, -1), True),
    "softmax_axis0": (_unary, lambda x: ops.softmax(x, axis=0),
                      lambda x: refs.softmax(x, 0), True),
    "layer_norm": (_norm_inputs, _layer_stats, lambda x, w, b: refs.layer_norm(x, w, b, 1e-5),
                   True),
    "rms_norm": (lambda s, d, c: _norm_inputs(s, d, c)[:2], ops.rms_norm,
                 lambda x, w: refs.rms_norm(x, w, 1e-6), True),
}
# Row shapes: one element, primes, a workgroup's 256 and one past it, the one-read workgroup
# limit (256 * 32) and past it (the online and long kernels).
TIERS = {"tiny": [(1,), (1, 1), (3, 7)], "small": [(5, 255), (4, 257), (2, 3, 31)],
         "long": [(2, 8192), (2, 9001)]}
SHIFTS = [0.0, 100.0]  # a common offset of 100: a half accumulator loses the deviations


def run_op(name, shape, dtype, shift):
    make, fn, ref, relaxed = OPS[name]
    args = make(shape, dtype, shift)
    got, want = fn(*args), ref(*args)
    if not isinstance(got, tuple):
        got, want = (got,), (want,)
    return max(check(g, w, dtype, relaxed) for g, w in zip(got, want))


@pytest.mark.parametrize("shift", SHIFTS, ids=lambda s: f"mean{s:g}")
@pytest.mark.parametrize("tier", list(TIERS))
@pytest.mark.parametrize("name", list(OPS))
@pytest.mark.parametrize("dtype", HALVES, ids=_name)
def test_rowwise_and_elementwise(device, dtype, name, tier, shift):
    for shape in TIERS[tier]:
        run_op(name, shape, dtype, shift)


MATMUL = {"tiny": [(1, 1, 1), (3, 5, 2)], "small": [(17, 33, 9), (65, 7, 130)],
          "long": [(4, 520, 5), (129, 65, 3)]}


@pytest.mark.parametrize("tier", list(MATMUL))
@pytest.mark.parametrize("dtype", HALVES, ids=_name)
def test_matmul(device, dtype, tier):
    for m, k, n in MATMUL[tier]:
        a, b = data((m, k), dtype, 3, scale=1.0), data((k, n), dtype, 4, scale=1.0)
        check(ops.matmul(a, b), refs.matmul(a, b), dtype, True)
        ab, bb = data((2, m, k), dtype, 5, shift=1.0), data((2, k, n), dtype, 6)
        check(ops.batched_matmul(ab, bb), refs.matmul(ab, bb), dtype, True)


ATTENTION = {"tiny": [(1, 1, 1, 1)], "small": [(1, 2, 7, 8), (2, 1, 31, 16)],
             "long": [(1, 1, 300, 64), (1, 1, 5, 300)]}


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("tier", list(ATTENTION))
@pytest.mark.parametrize("dtype", HALVES, ids=_name)
def test_attention(device, dtype, tier, causal):
    for shape in ATTENTION[tier]:
        q, k, v = (data(shape, dtype, s, scale=1.0) for s in (7, 8, 9))
        want = refs.attention(q, k, v, 1 / math.sqrt(shape[-1]), causal)
        check(ops.attention(q, k, v, causal=causal), want, dtype, True)


@pytest.mark.parametrize("dtype", HALVES, ids=_name)
def test_half_accumulation_would_fail_these_rows(dtype):
    """The offset and long rows above fail an op that accumulates in the half dtype: the
    check is sharp enough to see it (NumPy's own half arithmetic as the culprit)."""
    x = data((2, 9001), dtype, shift=100.0)
    with np.errstate(all="ignore"):  # float16's sum overflows: inf
        half_sum = np.cumsum(x, axis=-1, dtype=dtype)[:, -1:]  # a half accumulator
        mean = (half_sum / np.asarray(x.shape[-1], dtype)).astype(dtype)
        dev = (x - mean).astype(np.float64)
    with pytest.raises(AssertionError), np.errstate(all="ignore"):
        check(tack.array((dev / dev.std(-1, keepdims=True)).astype(dtype)),
              refs.layer_norm(x, np.ones(9001), np.zeros(9001), 1e-5)[0], dtype, True)


@pytest.mark.parametrize("dtype", HALVES, ids=_name)
def test_out_aliasing_and_tack_arrays(device, dtype):
    x = data((3, 300), dtype, shift=4.0)
    t = tack.array(x)
    ops.softmax(t, out=t)  # in place: computed on a copy, rounded once into t
    check(t, refs.softmax(x, -1), dtype, True)
    w = tack.array(data((300,), dtype, 1))
    out = tack.zeros((3, 300), tack.f16 if dtype == np.float16 else tack.bf16)
    assert ops.rms_norm(tack.array(x), w, out=out) is out
    check(out, refs.rms_norm(x, w.numpy(), 1e-6), dtype, True)
    y, mean, rstd = ops.layer_norm(x, return_stats=True)
    assert mean.dtype == rstd.dtype == y.dtype and mean.shape == (3,)


def test_mixed_and_other_dtypes_are_refused(device):
    with pytest.raises(tack.TackTypeError, match="float16, bfloat16, float32 or float64"):
        ops.softmax(np.zeros(3, np.int32))
    with pytest.raises(tack.TackTypeError, match="one precision"):
        ops.add(np.zeros(3, np.float16), np.zeros(3, np.float32))
    with pytest.raises(tack.TackTypeError, match="one precision"):
        ops.matmul(np.zeros((2, 2), np.float16), np.zeros((2, 2), ml_dtypes.bfloat16))


# ---- the same ops through tack.testing's FAST tier (its shapes and inputs, its half rows) -----
def _attention_rows(q, k, v):  # (s, d) rows as one batch and head
    return ops.attention(*(a.reshape((1, 1) + a.shape) for a in (q, k, v))).numpy()[0, 0]


HARNESS = {
    "add": (lambda x, y: ops.add(x, y, alpha=0.75), lambda x, y: refs.add(x, y, 0.75),
            "(n),(n)->(n)", None),
    "relu": (ops.relu, refs.relu, "(n)->(n)", None),
    "gelu": (ops.gelu, refs.gelu_tanh, "(n)->(n)", "transcendental"),
    "gelu_erf": (lambda x: ops.gelu(x, approximate="none"), refs.gelu_erf, "(n)->(n)",
                 "transcendental"),
    "silu": (ops.silu, refs.silu, "(n)->(n)", "transcendental"),
    "softmax": (ops.softmax, lambda x: refs.softmax(x, -1), "(m,n)->(m,n)", "reduction"),
    "log_softmax": (ops.log_softmax, lambda x: refs.log_softmax(x, -1), "(m,n)->(m,n)",
                    "reduction"),
    "layer_norm": (lambda x, w, b: ops.layer_norm(x, w, b, return_stats=True),
                   lambda x, w, b: refs.layer_norm(x, w, b, 1e-5), "(m,n),(n),(n)->(m,n),(m),(m)",
                   "reduction"),
    "rms_norm": (ops.rms_norm, lambda x, w: refs.rms_norm(x, w, 1e-6), "(m,n),(n)->(m,n)",
                 "reduction"),
    "matmul": (ops.matmul, refs.matmul, "(m,k),(k,n)->(m,n)", "reduction"),
    "batched_matmul": (ops.batched_matmul, refs.matmul, "(z,m,k),(z,k,n)->(z,m,n)", "reduction"),
    "attention": (_attention_rows,
                  lambda q, k, v: refs.attention(*(a[None, None] for a in (q, k, v)),
                                                 1 / math.sqrt(q.shape[-1]), False)[0, 0],
                  "(s,d),(s,d),(s,d)->(s,d)", "reduction"),
}


@pytest.mark.parametrize("name", list(HARNESS))
def test_through_the_harness(name):
    subject, reference, signature, op_class = HARNESS[name]
    rec = tack.testing.test(subject, reference=reference, signature=signature,
                            dtypes=("float16", "bfloat16"), op_class=op_class, baseline=False,
                            records_dir=False, name=name)
    assert rec.passed, rec.summary()


@pytest.mark.parametrize("n", [300, 9001])  # the one-read and the long workgroup kernels
def test_float16_squares_do_not_overflow(device, n):
    """rms_norm of float16 rows near 1000: each square (about 1e6) overflows float16's 65504,
    so the squares must be f32 products of the widened elements (the kernels' `wide`)."""
    x = data((2, n), np.float16, shift=1000.0, scale=50.0)
    w = np.ones(n, np.float16)
    check(ops.rms_norm(x, w), refs.rms_norm(x, w, 1e-6), np.float16, True)
    _, _, rstd = ops.layer_norm(x, w, np.zeros(n, np.float16), return_stats=True)
    check(rstd, refs.layer_norm(x, w, np.zeros(n), 1e-5)[2], np.float16, True)


# ---- half softmax rounds once: f32 exps, f32 sum, one rounding of each result ----------------
def _bits(a):
    return np.asarray(a).view(np.uint16)


def _softmax_f32(x32, log: bool):
    """NumPy's float32 softmax (exps, sum and scaling in float32), the reference a half row
    rounds once from."""
    z = x32 - x32.max(-1, keepdims=True)
    with np.errstate(under="ignore"):
        e = np.exp(z)
        s = e.sum(-1, keepdims=True, dtype=np.float32)
    return (z - np.log(s)) if log else e * (np.float32(1) / s)


def _near_a_tie(ref32, dtype, absolute=0.0, rel=1e-5):
    """Where a float32 value lies within `absolute + rel |value|` of the midpoint between the
    two half values around it: there another float32 softmax (another exp, another sum order)
    may round to the other neighbour, so the bit comparison leaves these out (a few percent of
    float16's, fewer of bfloat16's)."""
    h = ref32.astype(dtype).astype(np.float32)
    up = np.nextafter(ref32.astype(dtype), np.array(np.inf, dtype)).astype(np.float32)
    down = np.nextafter(ref32.astype(dtype), np.array(-np.inf, dtype)).astype(np.float32)
    mid = np.where(ref32 >= h, (h + up) / 2, (h + down) / 2)
    return np.abs(ref32 - mid) <= absolute + rel * np.abs(ref32)


@pytest.mark.parametrize("log", [False, True], ids=["softmax", "log_softmax"])
@pytest.mark.parametrize("shape", [(3, 7), (4, 257), (2, 8192), (2, 9001)])
@pytest.mark.parametrize("dtype", HALVES, ids=_name)
def test_half_softmax_rounds_once(device, dtype, shape, log):
    """A half row's exps, sum and scaling are f32 and each result is rounded to half once: its
    bits are NumPy's float32 softmax of the widened row rounded to half (up to the elements
    next to a tie, `_near_a_tie`), and exactly Tack's own float32 softmax of the widened row
    rounded to half. Rounding each exp to half before the sum and the scaling (twice) differs
    from these in about a quarter of the elements."""
    x = data(shape, dtype, seed=3)
    x32 = x.astype(np.float32)
    f = ops.log_softmax if log else ops.softmax
    got = f(x).numpy()
    ref32 = _softmax_f32(x32, log)
    differ = _bits(got) != _bits(ref32.astype(dtype))
    # log_softmax subtracts log(sum), and log near 1 turns the sum's last-bit difference into
    # an absolute one of about 2^-24 per unit of rounding: a few of those
    tie = _near_a_tie(ref32, dtype, absolute=8 * 2.0**-24 if log else 0.0)
    assert not np.any(differ & ~tie), np.argwhere(differ & ~tie)[:5]
    np.testing.assert_array_equal(_bits(got), _bits(f(x32).numpy().astype(dtype)))


def _shifted_start(a):
    """`a` as a view one element into a bigger buffer (its rows start at odd offsets)."""
    buf = np.empty(a.size + 1, a.dtype)
    buf[1:] = a.ravel()
    return buf[1:].reshape(a.shape)


VIEWS = {"contiguous": lambda a: a, "one element in": _shifted_start,
         "every other column": lambda a: a[..., ::2]}


@pytest.mark.parametrize("view", list(VIEWS))
@pytest.mark.parametrize("name", ["softmax", "log_softmax", "layer_norm", "rms_norm", "gelu",
                                  "silu"])
@pytest.mark.parametrize("dtype", [ml_dtypes.bfloat16, np.float32], ids=_name)
def test_steps_of_eight_at_any_offset(device, dtype, name, view):
    """The workgroup kernels' lanes take 8 consecutive elements a step: rows of whole steps (24;
    2056, several rounds of lanes), one short of the one-read limit (8191), on inputs whose
    rows start anywhere (one element into a buffer) or that are strided."""
    make, fn, ref, relaxed = OPS[name]
    for shape in [(3, 24), (2, 2056), (2, 8191)]:
        args = [VIEWS[view](a) for a in make(shape, dtype, 0.0)]
        got, want = fn(*args), ref(*args)
        for g, w in zip(got if isinstance(got, tuple) else (got,),
                        want if isinstance(want, tuple) else (want,)):
            check(g, w, dtype, relaxed)
