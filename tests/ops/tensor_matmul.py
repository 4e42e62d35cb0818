"""What the tensor-core matmul tests share (tests/ops/test_matmul_mma.py, the warp MMA;
tests/ops/test_matmul_wgmma.py, the Hopper path): their dtypes, inputs, the op call per dtype,
and the documented bound against float64 (testing/bounds.py)."""
import ml_dtypes
import numpy as np
from tack import ops
from tack.testing.bounds import MATMUL_HALF_UNIT, mma_matmul_bound, tf32_matmul_bound

DTYPES = {"float16": np.float16, "bfloat16": ml_dtypes.bfloat16, "tf32": np.float32}


def inputs(shape_a, shape_b, name, seed):
    rng = np.random.default_rng(seed)
    dtype = DTYPES[name]
    return (rng.standard_normal(shape_a).astype(dtype), rng.standard_normal(shape_b).astype(dtype))


def run(a, b, name):
    f = ops.batched_matmul if a.ndim == 3 else ops.matmul
    return f(a, b, precision="tf32" if name == "tf32" else "ieee")


def within_bound(got, a, b, name, gpu):
    """|C - A B| against float64 on the exact inputs, elementwise: tf32_matmul_bound for TF32;
    for a half result the f32 sums' bound and the one rounding (plus half an f16 subnormal)."""
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    exact, mags = a64 @ b64, np.abs(a64) @ np.abs(b64)
    k = a.shape[-1]
    got = got.numpy().astype(np.float64)
    assert got.dtype == np.float64 and got.shape == exact.shape
    if name == "tf32":
        limit = tf32_matmul_bound(k, gpu) * mags
    else:
        unit = MATMUL_HALF_UNIT[name]
        limit = unit * np.abs(exact) + (1 + unit) * mma_matmul_bound(k, gpu) * mags + 2.0**-25
    err = np.abs(got - exact)
    assert (err <= limit).all(), (np.max(err - limit), np.argmax(err - limit))
