"""f16 and bf16 arithmetic on the GPU, bit for bit against NumPy float16 and ml_dtypes bfloat16:
every binary operation computed in f32 and rounded once (docs/language.md, "Half precision"), over
all 65536 bit patterns of the first operand (zeros, subnormals, infinities and NaNs included),
and f64 → half conversions rounded once. The same rule the CPU and simulator tests check, run by
the NVPTX renderer's code on a real device. Skips without a GPU."""
import ml_dtypes
import numpy as np
import pytest
import tack

from . import gpu

pytestmark = gpu.MARKS

HALVES = {"f16": np.float16, "bf16": ml_dtypes.bfloat16}


@tack.kernel
def _arith(a, b, o):
    for i in range(a.shape[0]):
        o[i, 0] = a[i] + b[i]
        o[i, 1] = a[i] - b[i]
        o[i, 2] = a[i] * b[i]
        o[i, 3] = a[i] / b[i]
        o[i, 4] = tack.sqrt(abs(a[i]))
        o[i, 5] = a[i] * b[i] + a[i]  # two roundings: half never fuses a multiply-add
        o[i, 6] = -a[i]
        o[i, 7] = tack.exp(a[i])


@tack.kernel
def _narrow(x, o):
    for i in range(x.shape[0]):
        o[i] = x[i]


def _same_bits(got, want):
    f = np.float32
    return (got.view(np.uint16) == want.view(np.uint16)) | (
        np.isnan(got.astype(f)) & np.isnan(want.astype(f)))


@pytest.mark.parametrize("name", sorted(HALVES))
def test_half_arithmetic_rounds_once_on_the_gpu(name):
    t, dev = HALVES[name], tack.device("cuda")
    rng = np.random.default_rng(7)
    a = np.arange(65536, dtype=np.uint16).view(t)
    b = rng.integers(0, 65536, a.size).astype(np.uint16).view(t)
    out = tack.zeros((a.size, 8), getattr(tack, name), device=dev)
    _arith(tack.array(a, device=dev), tack.array(b, device=dev), out)
    got = out.numpy()
    fa, fb = a.astype(np.float32), b.astype(np.float32)
    with np.errstate(all="ignore"):
        want = {"add": fa + fb, "sub": fa - fb, "mul": fa * fb, "div": fa / fb,
                "sqrt": np.sqrt(np.abs(fa)),
                "mul, then add": (fa * fb).astype(t).astype(np.float32) + fa, "neg": -fa}
    bad = {op: int((~_same_bits(got[:, k], w.astype(t))).sum())
           for k, (op, w) in enumerate(want.items())}
    assert not any(bad.values()), f"{name}: results that differ from NumPy's, by op: {bad}"
    # exp: the f32 device function, rounded once; within one half ulp of float64's exp
    with np.errstate(all="ignore"):
        exact = np.exp(a.astype(np.float64)).astype(t)
    e = got[:, 7]
    steps = np.abs(e.view(np.uint16).astype(np.int32) - exact.view(np.uint16).astype(np.int32))
    assert ((steps <= 1) | _same_bits(e, exact)).all()


@pytest.mark.parametrize("name", sorted(HALVES))
def test_f64_to_half_rounds_once_on_the_gpu(name):
    t, dev = HALVES[name], tack.device("cuda")
    rng = np.random.default_rng(3)
    x = np.concatenate([rng.standard_normal(100_000) * 10.0 ** rng.integers(-45, 40, 100_000),
                        [65504.0, 65519.99, 65520.0, 5.960464477539063e-08, 2.98e-08, -0.0,
                         np.inf, -np.inf, np.nan, 3.3895313892515355e+38, 3.4e38, 1e-40]])
    out = tack.zeros(x.size, getattr(tack, name), device=dev)
    _narrow(tack.array(x, device=dev), out)
    with np.errstate(over="ignore"):
        want = x.astype(t)
    assert _same_bits(out.numpy(), want).all()
