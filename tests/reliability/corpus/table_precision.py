"""The product precision of matmul, batched_matmul and attention (docs/ops.md, "Precision") and
`tack.tf32`, the rounding that `precision="tf32"` applies (docs/language.md, "TF32").

Each row is a class of wrong precision: TF32 taken without being asked (the default must be
exact float32 products, bit for bit), a precision value that is not "ieee" or "tf32" accepted or
refused only after a launch, TF32 on float64 accepted, "tf32" that rounds the wrong operands or
rounds them differently from PTX's `cvt.rna.tf32.f32` (ties to even instead of away from zero, a
subnormal, an overflow to infinity, a NaN that becomes an infinity), a half input refused, and
`tack.tf32` on a non-f32 value accepted."""
from __future__ import annotations

from .case import Case

_SETUP = '''
from tack import ops

def tf32_bits(x):
    """TF32 rounding by integer operations on the float32 bits (ties away from zero)."""
    u = np.asarray(x, np.float32).view(np.uint32).astype(np.int64)
    sign, mag = u & 0x80000000, u & 0x7FFFFFFF
    head = (mag >> 13) + ((mag & 0x1FFF) >= 0x1000)
    special = np.where(mag == 0x7F800000, mag, (mag | 0x400000) & 0x7FFFE000)
    return (sign | np.where(mag < 0x7F800000, head << 13, special)).astype(np.uint32)

def rounded(x):
    return tf32_bits(x).view(np.float32).reshape(np.shape(x))

rng = np.random.default_rng(0)
A = (rng.standard_normal((13, 37)) * 3).astype(np.float32)
B = (rng.standard_normal((37, 5)) * 3).astype(np.float32)
Q = (rng.standard_normal((1, 2, 9, 8))).astype(np.float32)
'''

_CALLS = {
    "matmul": "ops.matmul(A{cast}, B{cast}{extra})",
    "batched_matmul": "ops.batched_matmul(A[None]{cast}, B[None]{cast}{extra})",
    "attention": "ops.attention(Q{cast}, Q{cast}, Q{cast}{extra})",
}
IEEE, TF32 = ", precision='ieee'", ", precision='tf32'"
_OUT = {"matmul": "(13, 5)", "batched_matmul": "(1, 13, 5)", "attention": "(1, 2, 9, 8)"}


def _call(op, extra="", cast=""):
    return _CALLS[op].format(cast=cast, extra=extra)


def _bad_value(op, value):
    return Case(f"precision/bad-value/{op}/{value}",
                _call(op, f", out=out, precision={value}"),
                "tack.TackValueError",
                _SETUP + f"out = tack.full({_OUT[op]}, 7.0)\n",
                mentions=(op, "precision", "'ieee'", "'tf32'"), unchanged=("out",),
                quick=op == "matmul", note="precision must be 'ieee' or 'tf32', checked before "
                "any launch (out stays unwritten)")


def _float64(op):
    return Case(f"precision/tf32-float64/{op}",
                _call(op, ", out=out, precision='tf32'", ".astype(np.float64)"),
                "tack.TackValueError",
                _SETUP + f"out = tack.full({_OUT[op]}, 7.0, tack.f64)\n",
                mentions=(op, "float64", "'ieee'"), unchanged=("out",), quick=op == "matmul",
                note="TF32 would keep 11 of float64's 53 bits: refused")


def _default(op):
    return Case(f"precision/default-is-ieee/{op}",
                f"got = {_call(op)}.numpy()\n"
                f"ieee = {_call(op, IEEE)}.numpy()\ntf = {_call(op, TF32)}.numpy()",
                None, _SETUP,
                check="assert np.array_equal(got.view(np.uint32), ieee.view(np.uint32))\n"
                      "assert not np.array_equal(got, tf)",
                quick=op == "matmul", note="nothing switches to TF32 unless asked")


def _rounded_operands(op, engine):
    if op == "matmul":
        call, want = _call(op, TF32), "ops.matmul(rounded(A), rounded(B))"
    else:
        call, want = _call(op, TF32), "ops.batched_matmul(rounded(A)[None], rounded(B)[None])"
    return Case(f"precision/rounded-operands/{op}/{engine}",
                f"with tack.device({engine!r}):\n    got = {call}.numpy()\n"
                f"    want = {want}.numpy()",
                None, _SETUP,
                check="assert np.array_equal(got.view(np.uint32), want.view(np.uint32))",
                quick=engine == "cpu", note="tf32 is the ieee op on operands rounded as "
                "cvt.rna.tf32.f32 rounds them, bit for bit")


_SPECIALS = ("[0x00001000, 0x80001000, 0x007FFFFF, 0x3F801000, 0xBF801000, 0x3F803000, "
             "0x3FFFF000, 0x7F7FF000, 0xFF7FFFFF, 0x7F800000, 0x7FC00001, 0x7F800001, "
             "0xFF800FFF]")
_ROUND_KERNEL = '''
@tack.kernel
def round_all(x, y):
    for i in range(x.shape[0]):
        y[i] = tack.tf32(x[i])

x = np.array(SPECIALS, np.uint32).view(np.float32)
'''


def _rounding(engine):
    return Case(f"precision/tf32-rounding/{engine}",
                f"with tack.device({engine!r}):\n    y = tack.zeros(x.shape, tack.f32)\n"
                "    round_all(tack.array(x), y)",
                None, _SETUP + _ROUND_KERNEL.replace("SPECIALS", _SPECIALS),
                check="got = y.numpy().view(np.uint32)\n"
                      "assert np.array_equal(got, tf32_bits(x)), [hex(g) for g in got]\n"
                      "assert np.isnan(y.numpy()[-3:]).all()",
                quick=engine == "cpu", note="ties away from zero, subnormal ties, the carry into "
                "the exponent, overflow to infinity, NaNs (a signalling one with its payload in "
                "the dropped bits stays NaN)")


def _tf32_of(dtype):
    return Case(f"precision/tf32-argument/{dtype}",
                "round_all(tack.array(x), tack.zeros(3, tack.DT))".replace("DT", dtype),
                "tack.TackTypeError",
                _SETUP + _ROUND_KERNEL.replace("SPECIALS", "[0, 1, 2]").replace(
                    "np.uint32).view(np.float32)", f"np.uint32).astype(tack.{dtype}.np)"),
                position=True, mentions=("tf32", "f32", dtype), quick=dtype == "f64",
                note="tack.tf32 takes an f32 only")


def _half(dtype):
    return Case(f"precision/half-accepts-tf32/{dtype}",
                f"x, y = A.astype({dtype}), B.astype({dtype})\n"
                "got = ops.matmul(x, y, precision='tf32').numpy()\n"
                "want = ops.matmul(x, y).numpy()",
                None, _SETUP + "import ml_dtypes\n",
                check="assert np.array_equal(got.view(np.uint16), want.view(np.uint16))",
                quick=dtype == "np.float16",
                note="half values are TF32 values: tf32 is accepted and changes nothing")


CASES = (
    [_bad_value(op, v) for op in _CALLS for v in ("'fp32'", "'TF32'", "None")]
    + [_float64(op) for op in _CALLS]
    + [_default(op) for op in _CALLS]
    + [_rounded_operands(op, e) for op in ("matmul", "batched_matmul") for e in ("cpu", "sim")]
    + [_rounding(e) for e in ("cpu", "sim")]
    + [_tf32_of(d) for d in ("f64", "f16")]
    + [_half(d) for d in ("np.float16", "ml_dtypes.bfloat16")]
)
