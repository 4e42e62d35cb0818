"""The half-precision rows of the numerics contract (tack.testing.bounds.HALF_MATH_ULPS and
HALF_OP_BOUNDS, docs/numerics.md "Half precision"), on every engine of the `engine` fixture:

- every finite float16 and bfloat16 (all 2^16 bit patterns) through `exp`, `log`, `sin`, `cos`
  and `tanh`: the f32 function rounded once, within its bound in ulps of the half type of the
  float64 function of the exact half value;
- tack.ops on half rows (f32 statistics, each result rounded once) within their bound in units
  of the half type's unit roundoff times the row's largest result (attention: times the
  weighted magnitude of the values, its weights being rounded too), and the sum and mean of half
  data (f32 accumulation) within theirs in units of float32's, as the float32 rows of
  test_bounds.py are, at lengths 7 to 45005; every bound within 2x of the largest error seen,
  so a regression that doubles an error (a half accumulator, an exp kept in half) fails.
"""
import math

import ml_dtypes
import numpy as np
import pytest
import tack
from tack import ops
from tack.testing.bounds import HALF_MATH_ULPS, HALF_OP_BOUNDS, growth

HALVES = [np.float16, ml_dtypes.bfloat16]
LENGTHS = (7, 257, 4099, 9001)


def _name(d) -> str:
    return np.dtype(d).name


def _tack_dtype(d):
    return tack.f16 if d == np.float16 else tack.bf16


@tack.kernel
def _math(x, ex, lg, sn, cs, th):
    for i in range(x.shape[0]):
        ex[i] = exp(x[i])  # noqa: F821 - kernel builtins
        lg[i] = log(x[i])  # noqa: F821
        sn[i] = sin(x[i])  # noqa: F821
        cs[i] = cos(x[i])  # noqa: F821
        th[i] = tanh(x[i])  # noqa: F821


MATH = {"exp": np.exp, "log": np.log, "sin": np.sin, "cos": np.cos, "tanh": np.tanh}


def math_ulps(dtype) -> dict:
    """name -> the largest error over every finite half value, in ulps of the half type at the
    float64 result (where that rounds to a finite half)."""
    x = np.arange(1 << 16, dtype=np.uint16).view(dtype)
    x = x[np.isfinite(x.astype(np.float32))]
    outs = [tack.zeros(x.size, _tack_dtype(dtype)) for _ in MATH]
    _math(tack.array(x), *outs)
    worst = {}
    with np.errstate(all="ignore"):
        for (name, f), out in zip(MATH.items(), outs):
            exact = f(x.astype(np.float64))
            near = exact.astype(dtype)
            ok = np.isfinite(near.astype(np.float64))
            err = np.abs(out.numpy().astype(np.float64) - exact) / \
                np.spacing(np.abs(near)).astype(np.float64)
            worst[name] = float(err[ok].max())
    return worst


def _softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _layer_norm(x):
    m = x.mean(axis=-1, keepdims=True)
    return (x - m) / np.sqrt(((x - m) ** 2).mean(axis=-1, keepdims=True) + 1e-5)


ROWWISE = {
    "add": (lambda x: ops.add(x, x[:, ::-1].copy(), 0.5), lambda x: x + 0.5 * x[:, ::-1]),
    "relu": (ops.relu, lambda x: np.maximum(x, 0)),
    "silu": (ops.silu, lambda x: x / (1 + np.exp(-x))),
    "gelu": (ops.gelu, lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi)
                                                        * (x + 0.044715 * x**3)))),
    "gelu(none)": (lambda x: ops.gelu(x, approximate="none"),
                   lambda x: 0.5 * x * (1 + np.vectorize(math.erf)(x / np.sqrt(2)))),
    "softmax": (ops.softmax, _softmax),
    "log_softmax": (ops.log_softmax, lambda x: np.log(_softmax(x))),
    "layer_norm": (ops.layer_norm, _layer_norm),
    "rms_norm": (ops.rms_norm, lambda x: x / np.sqrt((x * x).mean(axis=-1, keepdims=True)
                                                      + 1e-6)),
}


# attention: head_dim 64 and 128 (the tensor-core kernels where the engine has them), causal
# and not, queries scaled so that some rows weigh a few keys and others many
ATTENTION = [((1, 2, 67, 64), True, 1.0), ((1, 1, 67, 64), False, 4.0),
             ((1, 1, 130, 128), True, 3.0)]


def attention_errors(dtype) -> float:
    """The largest error of ops.attention in units of eps * sum_j p_j |v_j| (p the exact
    weights of the element's row)."""
    eps_half = float(ml_dtypes.finfo(dtype).eps) / 2
    worst = 0.0
    for shape, causal, size in ATTENTION:
        rng = np.random.default_rng(shape[2] + causal)
        q = (rng.standard_normal(shape) * size).astype(dtype)
        k, v = (rng.standard_normal(shape).astype(dtype) for _ in range(2))
        q64, k64, v64 = (a.astype(np.float64) for a in (q, k, v))
        s = q64 @ np.swapaxes(k64, -1, -2) / math.sqrt(shape[-1])
        if causal:
            s = np.where(np.tril(np.ones(s.shape[-2:], bool)), s, -np.inf)
        p = np.exp(s - s.max(-1, keepdims=True))
        p /= p.sum(-1, keepdims=True)
        got = ops.attention(q, k, v, causal=causal).numpy().astype(np.float64)
        worst = max(worst, float((np.abs(got - p @ v64) / (eps_half * (p @ np.abs(v64)))).max()))
    return worst


def op_errors(dtype) -> dict:
    """name -> the largest error over LENGTHS, in units of eps * growth(n) * scale (eps the
    half type's unit roundoff for the ops, float32's for the sums)."""
    eps_half = float(ml_dtypes.finfo(dtype).eps) / 2
    eps32 = 2.0**-24
    worst: dict = {}
    for n in LENGTHS:
        rng = np.random.default_rng(n)
        x = (rng.standard_normal((5, n)) * 4).astype(dtype)
        x64 = x.astype(np.float64)
        for name, (run, ref) in ROWWISE.items():
            got = run(x).numpy().astype(np.float64)
            want = ref(x64)
            scale = np.abs(want).max(axis=-1, keepdims=True)
            err = (np.abs(got - want) / (scale * eps_half)).max()
            worst[name] = max(worst.get(name, 0.0), float(err))
        v = (rng.standard_normal(n * 5) + 0.25).astype(dtype)
        w = v.astype(np.float64)
        a = tack.array(v)
        size = np.abs(w).sum() * eps32 * growth("n", n * 5)
        exact = math.fsum(w)
        worst["sum"] = max(worst.get("sum", 0.0), abs(a.sum() - exact) / size)
        worst["mean"] = max(worst.get("mean", 0.0), abs(a.mean() - exact / v.size) * v.size
                            / size)
    worst["attention"] = attention_errors(dtype)
    return worst


@pytest.mark.engines("cpu", "sim", "julia",
                     reason="tack.lib's f32 functions; a GPU takes its library's")
@pytest.mark.parametrize("dtype", HALVES, ids=_name)
def test_half_math_within_its_bound_for_every_value(engine, dtype):
    worst = math_ulps(dtype)
    over = {k: (v, HALF_MATH_ULPS[k]) for k, v in worst.items() if v > HALF_MATH_ULPS[k]}
    assert not over, over


@pytest.mark.engines("cpu", "sim", "cuda",
                     reason="not julia: each op a new Julia kernel, as in test_bounds.py; "
                            "test_sum_order.py runs the half dtypes there")
@pytest.mark.parametrize("dtype", HALVES, ids=_name)
def test_half_ops_within_their_bounds(engine, dtype):
    worst = op_errors(dtype)
    assert set(worst) == set(HALF_OP_BOUNDS)
    over = {k: (v, HALF_OP_BOUNDS[k][0]) for k, v in worst.items() if v > HALF_OP_BOUNDS[k][0]}
    assert not over, over


def test_the_half_bounds_are_tight():
    """Within 2x of the largest error seen on the CPU engine and the simulator in either half
    type, so a regression that doubles an error fails the tests above."""
    seen_math: dict = {}
    seen_ops: dict = {}
    # the engines every run has: more engines only raise the maximum, so the check is
    # strictest on these two and the same on every machine
    for device in ("cpu", "sim"):
        tack.set_default_device(device)
        for dtype in HALVES:
            for k, v in math_ulps(dtype).items():
                seen_math[k] = max(seen_math.get(k, 0.0), v)
            for k, v in op_errors(dtype).items():
                seen_ops[k] = max(seen_ops.get(k, 0.0), v)
    loose = {k: (seen_math[k], b) for k, b in HALF_MATH_ULPS.items() if seen_math[k] * 2 < b}
    loose.update({k: (seen_ops[k], b) for k, (b, _, _, _) in HALF_OP_BOUNDS.items()
                  if b > 0 and seen_ops[k] * 2 < b})
    assert not loose, loose
