"""The numerics contract as data (docs/numerics.md): the declared error bounds, and which ops give
the same bits on every engine. The tests check each entry (tests/ops/test_libm_f32.py,
tests/ops/test_expf.py, tests/numerics/), and the page's tables are generated from this module
(tools/numerics_page.py, checked current by tests/numerics/test_page.py), so the page states
what the tests hold.
"""
from __future__ import annotations

from ..ir.ops import Op

# The float32 math functions that replace the builtins on the engines that take the library's
# math (passes/libmath.py): the most error seen, in units of the last place of the float64 result
# rounded to float32 (2^-149 for subnormal results), over every finite argument whose result is
# finite, with the module that defines the function.
MATH_ULPS: dict[str, tuple[float, str]] = {
    "exp": (1.0, "tack.lib.expf"),  # float32 arithmetic
    "log": (0.5001, "tack.lib.logf"),  # float64 inside, one rounding
    "sin": (0.5001, "tack.lib.trigf"),  # exact reduction for every float32, float64 inside
    "cos": (0.5001, "tack.lib.trigf"),
    "tanh": (0.5001, "tack.lib.tanhf"),  # float64 inside
}

# Ops whose result bits come from each engine's own math library (the C library through LLVM on
# the CPU, libdevice on CUDA, NumPy on the simulator, Julia's Base.Math): each within about an ulp,
# not bit for bit alike. The float32 ops of MATH_ULPS are not among them where the engine takes
# the library's math (the CPU, the simulator and Julia's CPU backend).
ENGINE_MATH: frozenset = frozenset({
    Op.EXP, Op.EXP2, Op.LOG, Op.LOG2, Op.LOG10, Op.SIN, Op.COS, Op.TAN, Op.ASIN, Op.ACOS,
    Op.ATAN, Op.SINH, Op.COSH, Op.TANH, Op.ATAN2, Op.POW, Op.RSQRT,
})

# Each tack.ops / tack.algorithms result against float64 NumPy, per dtype: the largest relative
# error the tests allow, as (factor, growth), meaning factor * eps * growth(n) relative to the
# largest magnitude of the reference, eps the dtype's unit roundoff and n the reduced length
# ("1": no reduction). tests/numerics/test_bounds.py checks every row on the CPU engine and the
# simulator at several lengths.
OP_BOUNDS: dict[str, tuple[float, str]] = {
    "add": (1.0, "1"),
    "relu": (0.0, "1"),
    "silu": (4.0, "1"),
    "gelu": (8.0, "1"),
    "gelu(none)": (8.0, "1"),
    "softmax": (4.0, "n"),
    "log_softmax": (4.0, "n"),
    "layer_norm": (8.0, "n"),
    "rms_norm": (4.0, "n"),
    "sum": (1.0, "n"),
    "dot": (2.0, "n"),
    "inclusive_scan": (1.0, "n"),
    "var": (4.0, "n"),
}
