"""Float → integer conversion is one rule everywhere (docs/language.md, "Conversions"):
truncation toward zero, saturated at the target's range, NaN → 0. Kernel stores, kernel casts,
constant folding, host casts (`tack.u8(x)`) and `Array.astype` agree on every engine (the
`engine` fixture: the CPU, the simulator, a GPU, Julia); tests/julia/test_julia153_conversions.py
checks how the conversion renders for KernelAbstractions."""
from __future__ import annotations

import math

import numpy as np
import tack

from tests.kernels.conversions import store_and_cast

INT_DTYPES = [tack.i8, tack.u8, tack.i16, tack.u16, tack.i32, tack.u32, tack.i64, tack.u64]
VALUES = [0.0, -0.0, 0.7, -0.7, 1.5, -1.5, 127.99, -128.5, 255.9, 256.0, 300.5, -1.0, -300.0,
          65535.5, 65536.0, 1e10, -1e10, 2.0**31, -2.0**31, 2.0**32, 2.0**63, -2.0**63, 2.0**64,
          1e30, -1e30, math.inf, -math.inf, math.nan]


def expected(v: float, t) -> int:
    """The rule, in Python integers."""
    if math.isnan(v):
        return 0
    if math.isinf(v):
        return t.max() if v > 0 else t.min()
    return min(max(math.trunc(v), t.min()), t.max())


def test_float_to_int_stores_and_casts_saturate(engine):
    for fdt in (np.float32, np.float64):
        x = np.array(VALUES, fdt)
        for t in INT_DTYPES:
            stored, cast = tack.zeros(len(x), t), tack.zeros(len(x), tack.u8)
            store_and_cast(tack.array(x), stored, cast)
            want = [expected(float(v), t) for v in x]  # the value as the kernel sees it
            assert stored.numpy().tolist() == want, (fdt, t)
            assert cast.numpy().tolist() == [expected(float(v), tack.u8) for v in x], fdt
            assert tack.array(x).astype(t).numpy().tolist() == want, ("astype", fdt, t)
            assert [int(t(float(v))) for v in x] == want, ("host cast", fdt, t)


def test_float_to_int_saturates_in_vectorized_loops(engine):
    """1000 elements: the CPU engine converts them 8 (or 16) at a time, the vector code spelling
    the saturation as selects (render/llvm/support.py)."""
    rng = np.random.default_rng(14)
    for fdt in (np.float32, np.float64):
        x = rng.choice(np.array(VALUES, fdt), 1000) * rng.choice([1.0, 0.5, 3.0], 1000)
        x = x.astype(fdt)
        for t in INT_DTYPES:
            stored, cast = tack.zeros(len(x), t), tack.zeros(len(x), tack.u8)
            store_and_cast(tack.array(x), stored, cast)
            assert stored.numpy().tolist() == [expected(float(v), t) for v in x], (fdt, t)
            assert cast.numpy().tolist() == [expected(float(v), tack.u8) for v in x], fdt


@tack.kernel
def folded(out):
    for i in range(out.shape[0]):
        out[0] = tack.u8(300.0)
        out[1] = tack.i8(-200.5)
        out[2] = tack.i32(math.nan)
        out[3] = tack.u16(math.inf)
        out[4] = tack.i64(-math.inf)
        out[5] = tack.u8(-0.9)
        out[6] = int(3e9)  # int() is i32
        out[7] = tack.u32(-5.0)


def test_float_to_int_constant_folding_agrees(engine):
    out = tack.zeros(8, tack.i64)
    folded(out)
    assert out.numpy().tolist() == [255, -128, 0, 65535, -2**63, 0, 2**31 - 1, 0]
    assert [int(tack.u8(300.0)), int(tack.i8(-200.5)), int(tack.i32(math.nan)),
            int(tack.u16(math.inf)), int(tack.i64(-math.inf))] == [255, -128, 0, 65535, -2**63]


def test_saturate_int_matches_the_scalar_rule():
    from tack.dtypes import saturate_int

    for fdt in (np.float32, np.float64):
        x = np.array(VALUES, fdt)
        for t in INT_DTYPES:
            got = saturate_int(x, t)
            assert got.dtype == t.np
            assert got.tolist() == [expected(float(v), t) for v in x], (fdt, t)
            assert saturate_int(x[3], t) == expected(float(x[3]), t)  # a NumPy scalar
