"""The simulator's MMA step (runtime/sim/mma.py): one f64 addition of the exact product, rounded
to f32, is the f32 fused multiply-add (runtime/sim/fma.py) for every product of two f16, bf16
or TF32 values, bit for bit, over the whole exponent range: overflowing and underflowing
products, subnormal accumulators, cancellation, infinities and NaN."""
import numpy as np
import pytest
import tack
from tack.runtime.sim.fma import fma32

from tests.kernels.mma import to_tf32


def _spread(rng, n, lo, hi):
    return rng.standard_normal(n) * 2.0 ** rng.integers(lo, hi, n)


@pytest.mark.parametrize("dtype, lo, hi", [(tack.bf16, -133, 128), (tack.f16, -26, 16),
                                           (tack.f32, -150, 128)], ids=["bf16", "f16", "tf32"])
def test_an_f64_sum_rounded_once_is_the_fused_multiply_add(dtype, lo, hi):
    rng = np.random.default_rng(8)
    n = 300_000
    with np.errstate(all="ignore"):
        a, b = (_spread(rng, n, lo, hi).astype(dtype.np).astype(np.float32) for _ in range(2))
        if dtype is tack.f32:
            a, b = to_tf32(a), to_tf32(b)
        d = _spread(rng, n, -152, 128).astype(np.float32)
        d[:1000] = -(a[:1000].astype(np.float64) * b[:1000]).astype(np.float32)  # cancellation
        d[1000:1010] = [np.inf, -np.inf, np.nan, 0.0, -0.0, 1e-45, -1e-45, 3e38, -3e38, 1.0]
        want = fma32(a, b, d)
        got = (d.astype(np.float64) + a.astype(np.float64) * b.astype(np.float64)).astype(
            np.float32)
    same = (want.view(np.uint32) == got.view(np.uint32)) | (np.isnan(want) & np.isnan(got))
    assert same.all(), np.flatnonzero(~same)[:5]
