"""The numerics contract as data (docs/numerics.md): the declared error bounds, and which ops give
the same bits on every engine. The tests check each entry (tests/ops/test_libm_f32.py,
tests/ops/test_expf.py, tests/numerics/), and the page's tables are generated from this module
(tools/numerics_page.py, checked current by tests/numerics/test_page.py), so the page states
what the tests hold.
"""
from __future__ import annotations

import numpy as np

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

# Each tack.ops / tack.algorithms result against float64 NumPy, in float32 and float64, on the
# CPU engine and the simulator: name -> (factor, growth, scale), meaning |result - reference| <=
# factor * eps * growth(n) * scale, eps the dtype's unit roundoff (2^-24, 2^-53), n the reduced
# length and scale the magnitude named (the row's largest reference value; the sum of |terms|; the
# variance itself). tests/numerics/test_bounds.py holds every row at lengths 7 to 20495 and keeps
# each factor within 2x of the largest error it sees, so an op whose error doubles fails there
# even where a loose tolerance would pass it.
OP_BOUNDS: dict[str, tuple[float, str, str]] = {
    "add": (1.4, "1", "the row's largest result"),
    "relu": (0.0, "1", "the row's largest result"),
    "silu": (2.0, "1", "the row's largest result"),
    "gelu": (2.0, "1", "the row's largest result"),
    "gelu(none)": (1.6, "1", "the row's largest result"),
    "softmax": (17.0, "1", "the row's largest result"),
    "log_softmax": (2.4, "1", "the row's largest result"),
    "layer_norm": (3.2, "1", "the row's largest result"),
    "rms_norm": (4.0, "1", "the row's largest result"),
    "sum": (0.00075, "n", "the sum of the terms' magnitudes"),
    "dot": (0.022, "n", "the sum of the products"),
    "inclusive_scan": (0.017, "n", "the sum of the terms' magnitudes"),
    "var": (0.015, "n", "the variance"),
}


def growth(kind: str, n: int) -> float:
    """How a bound grows with the reduced length n: "1" (it does not), "n", "log2(n)"."""
    return {"1": 1.0, "n": float(n), "log2(n)": max(1.0, float(np.log2(n)))}[kind]


# precision="tf32" of matmul, batched_matmul and attention (docs/ops.md, "Precision"):
# `tack.tf32` rounds to 10 fraction bits, so a normal result is within TF32_UNIT of its
# argument relatively (half a unit in the 11th significant bit; a subnormal one within 2^-137),
# and a product of two rounded operands within 2 TF32_UNIT + TF32_UNIT^2 = 2^-10 + 2^-22 of the
# exact product. tests/ops/test_precision.py holds both bounds and reaches the second.
TF32_UNIT = 2.0**-11


def tf32_matmul_bound(k: int) -> float:
    """The bound on |C - A B| / (|A| |B|), element by element, of matmul and batched_matmul
    with precision="tf32" against the exact product, k the inner dimension (every operand and
    product normal, k < 2^22): the rounded operands' 2^-10 + 2^-22, and the float32 sum of k
    products (at most gamma_k = k 2^-24 / (1 - k 2^-24) of their magnitudes, Higham's "Accuracy
    and Stability of Numerical Algorithms", section 3.1) of operands up to 2^-10 larger, which
    together stay below 2^-10 + (k + 2) 2^-23."""
    return 2.0**-10 + (k + 2) * 2.0**-23
