"""The declared error bounds of Tack's numerics (docs/numerics.md), as data: the tests check
each one, and the page's table is generated from them (tools/numerics_page.py), so the page
states what the tests hold.

`MATH_ULPS`: the float32 math functions that replace the builtins on the engines that take the
library's math (passes/libmath.py), in units of the last place of the float64 result rounded to
float32 (2^-149 for subnormal results), over every finite argument whose result is finite.
"""
from __future__ import annotations

MATH_ULPS: dict[str, float] = {
    "exp": 1.0,  # tack.lib.expf: float32 arithmetic (tests/ops/test_expf.py)
    "log": 0.5001,  # tack.lib.logf: float64 inside, one rounding (tests/ops/test_libm_f32.py)
    "sin": 0.5001,  # tack.lib.trigf: exact reduction for every float32, float64 inside
    "cos": 0.5001,
    "tanh": 0.5001,  # tack.lib.tanhf: float64 inside
}
