"""`tack.tf32(x)`: an f32 rounded to TF32, the 19-bit format NVIDIA's tensor cores multiply
(1 sign bit, 8 exponent bits, 10 fraction bits), kept in an f32: the product precision of
`tack.ops.matmul`, `batched_matmul` and `attention` with `precision="tf32"` (docs/ops.md).

The rounding is PTX's `cvt.rna.tf32.f32`
(https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cvt):
to nearest, ties away from zero, on the integer bits, as the instruction itself runs on sm_80
and newer (adding 0x1000, half a unit of the tenth fraction bit, to a finite value's bits and
clearing the low 13, per the disassembly in
https://enp1s0.github.io/blog/cuda/2023/01/08/tf32-rna.html). Since the bits are sign and
magnitude, the addition rounds the magnitude; a carry out of the fraction moves into the
exponent, so subnormals round like normal numbers (the smallest normal is reached from below)
and a magnitude of at least (2 - 2^-11) * 2^127 becomes infinity. An infinity is kept. A NaN
stays a NaN of its sign with its top ten fraction bits, quieted: the hardware clears the low 13
bits of a NaN too, which turns a signalling NaN whose payload lies there into an infinity;
quiet NaNs (the only ones arithmetic makes) come out the same on both.

Written in Tack's kernel language with integer operations (docs/language.md, "Bit casts"), so
every engine computes the same bits: the CPU, CUDA and Julia render them and the simulator
executes them, as GPUs themselves run `cvt.rna.tf32.f32` (an integer add, a compare, a mask).
It is the one definition: `tack.mma(a, b, acc, "tf32")` rounds its f32 inputs with this same
function's typed IR (registered below with passes/libmath.py, applied by
frontend/typing/mma.py), so an MMA multiplies exactly the values `tack.tf32` gives.
"""
from ..constants import constant
from ..dtypes import f32, i32
from ..frontend.inline import func
from ..intrinsics import bitcast, expect_dtype, select
from ..kernel import Kernel
from ..passes import libmath

FINITE = constant(0x7F800000)  # magnitudes below this bit pattern are finite; above it, NaN
QUIET = constant(0x00400000)  # the quiet bit of a NaN's fraction
KEEP = constant(-8192)  # 0xFFFFE000: sign, exponent and the top ten fraction bits


@func
def tf32(x):
    """x (an f32) rounded to the nearest TF32 value, ties away from zero, as an f32."""
    b = bitcast(expect_dtype(x, f32, "tf32"), i32)
    mag = b & 0x7FFFFFFF
    r = select(mag < FINITE, b + 0x1000, b | select(mag > FINITE, QUIET, 0))
    return bitcast(r & KEEP, f32)



def _apply(x, out):
    for i in range(1):
        out[i] = tf32(x)


def _template() -> libmath.Template:
    from ..compiler import typecheck  # loads the type checker: at the first use only
    from ..frontend.argspec import ArgSpec

    k = Kernel(_apply)
    specs = {"x": ArgSpec("scalar", f32), "out": ArgSpec("array", f32, 1)}
    return libmath.template_of(typecheck(k, k.parsed, specs).body, "x")


libmath.register_function("tf32", f32, _template)
