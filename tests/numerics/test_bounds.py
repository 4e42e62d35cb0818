"""Every row of tack.testing.bounds.OP_BOUNDS on the engines of the `engine` fixture: each op's
error against float64 NumPy, in float32 and float64, stays within its declared bound at several
lengths, and the bound is tight enough that an op whose error doubled would fail (each bound is
within 2x of the largest error seen on the CPU engine and the simulator; docs/numerics.md
generates its table from the same rows)."""
import math

import numpy as np
import pytest
import tack
import tack.algorithms as alg
from tack import ops
from tack.testing.bounds import OP_BOUNDS, growth

LENGTHS = (7, 257, 4099, 9001)  # 9001: past the one-read workgroup kernels


def _erf(x):
    return np.vectorize(math.erf)(x)


def _softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _layer_norm(x):
    m = x.mean(axis=-1, keepdims=True)
    return (x - m) / np.sqrt(((x - m) ** 2).mean(axis=-1, keepdims=True) + 1e-5)


# name -> (run on a tack array, reference in float64, the scale the error is measured against)
ROWWISE = {
    "add": (lambda x: ops.add(x, x[::-1].copy(), 0.5), lambda x: x + 0.5 * x[::-1]),
    "relu": (ops.relu, lambda x: np.maximum(x, 0)),
    "silu": (ops.silu, lambda x: x / (1 + np.exp(-x))),
    "gelu": (ops.gelu, lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi)
                                                        * (x + 0.044715 * x**3)))),
    "gelu(none)": (lambda x: ops.gelu(x, approximate="none"),
                   lambda x: 0.5 * x * (1 + _erf(x / np.sqrt(2)))),
    "softmax": (ops.softmax, _softmax),
    "log_softmax": (ops.log_softmax, lambda x: np.log(_softmax(x))),
    "layer_norm": (ops.layer_norm, _layer_norm),
    "rms_norm": (ops.rms_norm, lambda x: x / np.sqrt((x * x).mean(axis=-1, keepdims=True)
                                                      + 1e-6)),
}


def _scalar_ops(v):
    a = tack.array(v)
    w = np.asarray(v, np.float64)
    scan = tack.zeros(v.shape, tack.f32 if v.dtype == np.float32 else tack.f64)
    alg.inclusive_scan(a, scan)
    return {
        "sum": (np.array([a.sum()]), np.array([w.sum()]), np.abs(w).sum()),
        "dot": (np.array([alg.dot(a, a)]), np.array([w @ w]), (w * w).sum()),
        "inclusive_scan": (scan.numpy(), np.cumsum(w), np.abs(w).sum()),
        "var": (np.array([alg.var(a)]), np.array([w.var()]), w.var()),
    }


def _measure(dtype) -> dict:
    """name -> the largest error over LENGTHS, in units of eps * growth(n) * scale."""
    eps = float(np.finfo(dtype).eps) / 2
    worst: dict = {}
    for n in LENGTHS:
        rng = np.random.default_rng(n)
        x = (rng.standard_normal((5, n)) * 4).astype(dtype)
        x64 = x.astype(np.float64)
        for name, (run, ref) in ROWWISE.items():
            got = run(x).numpy().astype(np.float64)
            want = ref(x64)
            scale = np.abs(want).max(axis=-1, keepdims=True)
            err = (np.abs(got - want) / (scale * eps * growth(OP_BOUNDS[name][1], n))).max()
            worst[name] = max(worst.get(name, 0.0), float(err))
        v = (rng.standard_normal(n * 5) + 0.25).astype(dtype)
        for name, (got, want, scale) in _scalar_ops(v).items():
            err = (np.abs(got.astype(np.float64) - want)
                   / (scale * eps * growth(OP_BOUNDS[name][1], n * 5))).max()
            worst[name] = max(worst.get(name, 0.0), float(err))
    return worst


@pytest.mark.engines("cpu", "sim", "cuda",
                     reason="not julia: about 30 s a dtype there (each op a new Julia kernel at "
                            "each length); its ops are checked against the CPU engine's bits by "
                            "test_deterministic.py and test_sum_order.py")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_every_op_within_its_declared_bound(engine, dtype):
    worst = _measure(dtype)
    assert set(worst) == set(OP_BOUNDS)
    over = {k: (v, OP_BOUNDS[k][0]) for k, v in worst.items() if v > OP_BOUNDS[k][0]}
    assert not over, over


def test_the_bounds_are_tight():
    """Within 2x of the largest error seen on either engine in either dtype: a regression that
    doubles an op's error fails the test above."""
    seen: dict = {}
    # the engines every run has: more engines only raise the maximum, so the check is
    # strictest on these two and the same on every machine
    for device in ("cpu", "sim"):
        tack.set_default_device(device)
        for dtype in (np.float32, np.float64):
            for k, v in _measure(dtype).items():
                seen[k] = max(seen.get(k, 0.0), v)
    tack.set_default_device("cpu")
    loose = {k: (seen[k], b) for k, (b, _, _) in OP_BOUNDS.items() if b > 0 and seen[k] * 2 < b}
    assert not loose, loose
