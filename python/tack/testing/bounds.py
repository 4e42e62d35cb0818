"""The numerics contract as data (docs/numerics.md): the declared error bounds, and which ops give
the same bits on every engine. The tests check each entry (tests/ops/test_libm_f32.py,
tests/ops/test_libm_f64.py, tests/ops/test_expf.py, tests/numerics/), and the page's tables are generated from this module
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

# The float64 math functions that replace the builtins on the same engines: the most error seen,
# in units of the last place of the exact result rounded to float64 (2^-1074 for subnormal
# results), against NumPy's long double over every binade, subnormals and the arguments nearest
# to multiples of pi/2 included (tests/ops/test_libm_f64.py).
MATH_ULPS_F64: dict[str, tuple[float, str]] = {
    "exp": (0.86, "tack.lib.mathd"),  # fdlibm's algorithms, without branches
    "log": (0.76, "tack.lib.mathd"),
    "sin": (0.77, "tack.lib.trigd"),  # exact integer reduction for every float64
    "cos": (0.77, "tack.lib.trigd"),
    "tanh": (2.01, "tack.lib.mathd"),  # through expm1
}

# Ops whose result bits come from each engine's own math library (the C library through LLVM on
# the CPU, libdevice on CUDA, NumPy on the simulator, Julia's Base.Math): each within about an ulp,
# not bit for bit alike. The ops of MATH_ULPS and MATH_ULPS_F64 are not among them where the
# engine takes the library's math (the CPU, the simulator and Julia's CPU backend).
ENGINE_MATH: frozenset = frozenset({
    Op.EXP, Op.EXP2, Op.LOG, Op.LOG2, Op.LOG10, Op.SIN, Op.COS, Op.TAN, Op.ASIN, Op.ACOS,
    Op.ATAN, Op.SINH, Op.COSH, Op.TANH, Op.ATAN2, Op.POW, Op.RSQRT,
})

# The contract of the same bits (docs/numerics.md, "The contract"): for each family of results,
# in float32, float64, float16 and bfloat16, the engines that give the same bits for the same
# inputs (each at any thread count, launch size and batch size), by default and in deterministic
# mode (`tack.deterministic`).
# tests/numerics/test_deterministic.py compares the bits on every engine present (cuda on the GPU
# runs, with tests/cuda/test_deterministic_cuda.py), tests/numerics/test_bits.py the defaults.
CPU_LIKE = "the CPU engine, the simulator, Julia's CPU backend"
EVERY_ENGINE = "every engine: cpu, sim, cuda, julia (CPU and GPU backends)"
SAME_BITS: dict[str, tuple[str, str]] = {
    "IEEE arithmetic (`+ - * /`, `sqrt`, `min`/`max`, conversions), decided multiply-adds, "
    "integers": (EVERY_ENGINE, EVERY_ENGINE),
    "`exp`, `log`, `sin`, `cos`, `tanh` in a kernel": (CPU_LIKE, EVERY_ENGINE),
    "`relu`, `add`; `gelu`, `silu` (their `exp`, `tanh`, `erf`)":
        ("`relu`, `add`: every engine; `gelu`, `silu`: " + CPU_LIKE, EVERY_ENGINE),
    "`softmax`, `log_softmax`, rows of up to 8192": (CPU_LIKE, EVERY_ENGINE),
    "`softmax`, `log_softmax`, longer rows (the online kernel's order)":
        ("the simulator and Julia's CPU backend", EVERY_ENGINE),
    "`layer_norm`, `rms_norm` (a workgroup tree, or eight lanes on the CPU)":
        ("the engines with workgroups (CUDA, the simulator, Julia); the CPU engine apart",
         EVERY_ENGINE),
    "`sum`, `mean`, `dot`, `norm`, `var`, `std` (the warp tree)": ("CUDA and the simulator",
                                                                   EVERY_ENGINE),
    "`inclusive_scan`, `exclusive_scan` of floats":
        ("none across engines (each engine's own order)",
         "every engine but Julia's Metal backend (CUDA's look-back needs 64-bit atomics)"),
    "`min`, `max`, `absmax`, sorts, `histogram`, `count_nonzero`, segments' folds":
        (EVERY_ENGINE, EVERY_ENGINE),
    "other transcendentals (`pow`, `atan2`, `exp2`, ...: the list below)": ("none", "none"),
    "`tack.atomic_add` of floats in a user's kernel": ("none (execution order)",
                                                       "none (the mode does not change it)"),
    "`matmul`, `batched_matmul`, `attention` (MMA)": ("see the bounds below",
                                                      "not covered by the mode"),
}

# Each tack.ops / tack.algorithms result against float64 NumPy, in float32 and float64, on the
# CPU engine and the simulator: name -> (factor, growth, scale), meaning |result - reference| <=
# factor * eps * growth(n) * scale, eps the dtype's unit roundoff (2^-24, 2^-53), n the reduced
# length and scale the magnitude named (the row's largest reference value; the sum of |terms|; the
# variance itself). tests/numerics/test_bounds.py holds every row at lengths 7 to 45005 and keeps
# each factor within 2x of the largest error it sees, so an op whose error doubles fails there
# even where a loose tolerance would pass it.
OP_BOUNDS: dict[str, tuple[float, str, str]] = {
    "add": (1.4, "1", "the row's largest result"),
    "relu": (0.0, "1", "the row's largest result"),
    "silu": (2.0, "1", "the row's largest result"),
    "gelu": (2.0, "1", "the row's largest result"),
    "gelu(none)": (1.6, "1", "the row's largest result"),
    "softmax": (5.0, "1", "the row's largest result"),
    "log_softmax": (2.4, "1", "the row's largest result"),
    "layer_norm": (4.0, "1", "the row's largest result"),
    "rms_norm": (4.4, "1", "the row's largest result"),
    # 0.00094 seen at 257 float64 terms in the warp order of CUDA and the simulator
    # (tests/numerics/test_sum_order.py; the shared-memory tree's order gave 0.00016 there)
    "sum": (0.00095, "n", "the sum of the terms' magnitudes"),
    "dot": (0.022, "n", "the sum of the products"),
    "inclusive_scan": (0.017, "n", "the sum of the terms' magnitudes"),
    "var": (0.015, "n", "the variance"),
}

# float16 and bfloat16 (docs/language.md, "Half precision": computed in f32, rounded once).
# The math builtins: the most error over every finite half value, in ulps of the half type at
# the float64 result (tests/numerics/test_half_bounds.py): the f32 function's error is below
# 2^-13 of a float16 ulp, so the half result is the correctly rounded one but next to a tie.
HALF_MATH_ULPS: dict[str, float] = {name: 0.5001 for name in ("exp", "log", "sin", "cos", "tanh")}

# tack.ops and the sums of tack.algorithms on half data against float64 NumPy on the exact half
# inputs: name -> (factor, growth, scale, eps), |result - reference| <= factor * eps * growth(n) *
# scale, eps the half type's unit roundoff (2^-11, 2^-8) for an op whose statistics are f32 and
# whose every result rounds once to half (at most one rounding, 1, and the f32 error below it),
# float32's (2^-24) for a sum or mean of half data, which accumulates in f32 and returns it.
# tests/numerics/test_half_bounds.py holds them at lengths 7 to 45005, each within 2x of the
# largest error it sees.
_ONCE = (1.01, "1", "the row's largest result", "half")
HALF_OP_BOUNDS: dict[str, tuple[float, str, str, str]] = {
    "add": _ONCE, "relu": (0.0, "1", "the row's largest result", "half"), "silu": _ONCE,
    "gelu": _ONCE, "gelu(none)": _ONCE, "softmax": _ONCE, "log_softmax": _ONCE,
    "layer_norm": _ONCE, "rms_norm": _ONCE,
    # attention on tensor cores (ops/flash_attention.py) rounds each softmax weight to the half
    # type before the weighted sum and the result once: two roundings of u, first order, of
    # the weighted magnitude sum_j p_j |v_j| (p the exact weights), and the f32 scores' and
    # exp2's error below them; random rows reach 1.65 (the result's rounding is exact where
    # one key dominates, a value being a half number), so 3 holds the 2x rule.
    "attention": (3.0, "1", "Σ p·\\|v\\| over the keys, p the exact weights", "half"),
    "sum": (0.00025, "n", "the sum of the terms' magnitudes", "float32"),
    "mean": (0.00025, "n", "the sum of the terms' magnitudes, over n", "float32"),
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


def tf32_matmul_bound(k: int, gpu: bool = False) -> float:
    """The bound on |C - A B| / (|A| |B|), element by element, of matmul and batched_matmul
    with precision="tf32" against the exact product, k the inner dimension (every operand and
    product normal, k < 2^22): the rounded operands' 2^-10 + 2^-22, and the float32 sum of k
    products (at most gamma_k = k 2^-24 / (1 - k 2^-24) of their magnitudes, Higham's "Accuracy
    and Stability of Numerical Algorithms", section 3.1) of operands up to 2^-10 larger, which
    together stay below 2^-10 + (k + 2) 2^-23. `gpu`: the sums of a GPU's tensor cores, which
    Tack bounds by 4 times the float32 sum's (docs/language.md, "Matrix multiply-accumulate"):
    2^-10 + 4 (k + 2) 2^-23."""
    return 2.0**-10 + (4 if gpu else 1) * (k + 2) * 2.0**-23


# f16 and bf16 matmul and batched_matmul on tensor cores (ops/matmul_mma.py, and the Hopper path
# of ops/matmul_wgmma.py, whose wgmma the language holds to the same bound; docs/ops.md): the
# products of two half values are exact in float32, so the error is the float32 sums' and the
# one rounding of the result to its half dtype. MATMUL_HALF_UNIT is that rounding's unit.
MATMUL_HALF_UNIT = {"float16": 2.0**-11, "bfloat16": 2.0**-8}


def mma_matmul_bound(k: int, gpu: bool = False) -> float:
    """The bound on |C32 - A B| / (|A| |B|), element by element, of the float32 sums of a
    tensor-core matmul of f16 or bf16 inputs, k the inner dimension (k < 2^22), before the one
    rounding of a half result (which adds MATMUL_HALF_UNIT * |C|): each product is exact and is
    added in k order with one float32 rounding (the simulator, docs/language.md "Matrix
    multiply-accumulate"), within gamma_k = k 2^-24 / (1 - k 2^-24); `gpu`: a GPU's tensor
    cores, within 4 gamma_k (the language's bound for them)."""
    gamma = k * 2.0**-24 / (1 - k * 2.0**-24)
    return (4 if gpu else 1) * gamma
