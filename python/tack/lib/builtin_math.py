"""Which library function replaces which float32 math builtin (`passes.libmath`): `exp`, `log`,
`sin`, `cos` and `tanh` of an f32 on the engines that take them (docs/numerics.md). Each is
registered here once; its typed IR is built at the first kernel that uses the builtin, from a
one-line kernel that calls the function, so the library's Tack source stays the one definition.
"""
from ..dtypes import f32
from ..ir.ops import Op
from ..kernel import Kernel
from ..passes import libmath
from .expf import exp_f32
from .logf import log_f32
from .tanhf import tanh_f32
from .trigf import cos_f32, sin_f32


def _exp(x, out):
    for i in range(1):
        out[i] = exp_f32(x)


def _log(x, out):
    for i in range(1):
        out[i] = log_f32(x)


def _sin(x, out):
    for i in range(1):
        out[i] = sin_f32(x)


def _cos(x, out):
    for i in range(1):
        out[i] = cos_f32(x)


def _tanh(x, out):
    for i in range(1):
        out[i] = tanh_f32(x)


# (op, the library function, the kernel that applies it): docs/numerics.md's table reads it
FUNCTIONS = ((Op.EXP, exp_f32, _exp), (Op.LOG, log_f32, _log), (Op.SIN, sin_f32, _sin),
             (Op.COS, cos_f32, _cos), (Op.TANH, tanh_f32, _tanh))


def _builder(fn):
    def build() -> libmath.Template:
        from ..compiler import typecheck  # loads the type checker: at the first use only
        from ..frontend.argspec import ArgSpec

        k = Kernel(fn)
        specs = {"x": ArgSpec("scalar", f32), "out": ArgSpec("array", f32, 1)}
        return libmath.template_of(typecheck(k, k.parsed, specs).body, "x")

    return build


for _op, _fn, _apply in FUNCTIONS:
    libmath.register(_op, f32, _builder(_apply))
