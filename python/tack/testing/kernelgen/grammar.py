"""What a generated kernel may contain: types, builtins, literals, constants, clamp bounds, and
`AVOID`, the known Tack bugs the generator steers around."""
from __future__ import annotations

from ..oracle import BY_NAME, F32, F64, I32, I64, TYPES, WEAK

INT_TYPES = [t for t in TYPES if t.is_int]
FLOAT_TYPES = [F32, F64]
MATH1 = ("sqrt", "floor", "ceil", "trunc", "exp", "log", "sin", "cos", "tan", "atan", "tanh",
         "exp2", "log2", "log10", "asin", "acos", "sinh", "cosh")
MATH2 = ("atan2", "copysign")
INT_LITERALS = (0, 1, 2, 3, -1, 7, -8, 100, 127, -128, 255, 1000, 65535, 2 ** 31 - 1,
                -2 ** 31, 2 ** 31, 2 ** 40, -2 ** 40, 2 ** 63 - 1, -2 ** 63, 2 ** 63, 2 ** 64 - 1)
FLOAT_LITERALS = ("0.5", "1.0", "2.0", "0.0", "-1.5", "0.1", "3.25", "1e-3", "100.0", "-0.0",
                  "1e10", "1e30", "math.pi")
# module-level constants kernels may read: (source line, name, type, the value of an untyped
# integer constant, which is a literal, else None)
CONSTANTS = (("K0 = tack.constant(5)", "K0", I32, 5),
             ("K1 = tack.constant(0.25)", "K1", WEAK, None),
             ("K2 = tack.constant(200, tack.u8)", "K2", BY_NAME["u8"], None),
             ("K3 = tack.constant(1.5, tack.f64)", "K3", F64, None),
             ("K4 = tack.constant(-3, tack.i64)", "K4", I64, None))
CONSTANT_LINES = [c[0] for c in CONSTANTS]
# float clamp bounds that convert exactly and stay representable in each integer type
CLAMP = {"i8": (-100.0, 100.0), "u8": (0.0, 250.0), "i16": (-30000.0, 30000.0),
         "u16": (0.0, 60000.0), "i32": (-2e9, 2e9), "u32": (0.0, 4e9), "i64": (-9e18, 9e18),
         "u64": (0.0, 1.8e19)}

# Known Tack bugs the generator avoids; each gets a strict-xfail test in tests/exec/ (test_known_*).
# Found so far (tests/exec/test_integer_rules.py::test_regression_* once fixed):
#  weak_typed_const  a float literal beside a cast integer literal (tack.i32(3) * 0.1) stayed weak
#  math2_int_f32     atan2/copysign converted a non-literal integer to f32 before widening to f64
#  continue_parallel `continue` directly in the parallel loop failed to render on the CPU engine
#  weak_local_expr   a local assigned once to float literals was f32 (spec: takes what it meets)
#  tuple_weak        `a, b = abs(0.1), 0` gave an f64 local `a` the f32 value (fixed in 4fd2435
#                    for literal expressions, in 5d57fa5 when no value reads a target; open for
#                    `d, e = (0.1 if c else 0.2), d`: test_known_tuple_temporaries_are_transparent)
#  weak_bool         a9a2239..ff3e90c: True/False did not count as integer literals, so
#                    `0.1 + True` was f32 and `0.1 + 1` weak
#  math_int_literal  `sqrt(2)` was weak (f64 beside an f64) but `atan2(1, 2)` f32; integer-only
#                    arguments give f32 like `1 / 3`
#  nested_divmod     `//` or `%` nested in an operand of `//` or `%` compiled in time exponential
#                    in the depth (lowering copied operands; int `//` depth 5 took 44 s)
AVOID: frozenset = frozenset({"tuple_weak"})
