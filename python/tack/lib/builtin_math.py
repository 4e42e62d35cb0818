"""Which library function replaces which math builtin (`passes.libmath`): `exp`, `log`, `sin`,
`cos` and `tanh` of an f32, and `exp`, `log`, `sin`, `cos` and `tanh` of an f64, on the engines that take them
(docs/numerics.md). Each is registered here once; its typed IR is built at the first kernel that
uses the builtin, from a one-line kernel that calls the function, so the library's Tack source
stays the one definition.
"""
from ..dtypes import f32, f64
from ..ir.ops import Op
from ..kernel import Kernel
from ..passes import libmath
from .expf import exp_f32
from .logf import log_f32
from .mathd import exp_f64, log_f64, tanh_f64
from .tanhf import tanh_f32
from .trigd import cos_f64, sin_f64
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


def _exp64(x, out):
    for i in range(1):
        out[i] = exp_f64(x)


def _log64(x, out):
    for i in range(1):
        out[i] = log_f64(x)


def _sin64(x, out):
    for i in range(1):
        out[i] = sin_f64(x)


def _cos64(x, out):
    for i in range(1):
        out[i] = cos_f64(x)


def _tanh64(x, out):
    for i in range(1):
        out[i] = tanh_f64(x)


# (op, the library function, the kernel that applies it): docs/numerics.md's table reads them
FUNCTIONS = ((Op.EXP, exp_f32, _exp), (Op.LOG, log_f32, _log), (Op.SIN, sin_f32, _sin),
             (Op.COS, cos_f32, _cos), (Op.TANH, tanh_f32, _tanh))
FUNCTIONS_F64 = ((Op.EXP, exp_f64, _exp64), (Op.LOG, log_f64, _log64),
                 (Op.SIN, sin_f64, _sin64), (Op.COS, cos_f64, _cos64),
                 (Op.TANH, tanh_f64, _tanh64))


def _builder(fn, dtype):
    def build() -> libmath.Template:
        from ..compiler import typecheck  # loads the type checker: at the first use only
        from ..frontend.argspec import ArgSpec

        k = Kernel(fn)
        specs = {"x": ArgSpec("scalar", dtype), "out": ArgSpec("array", dtype, 1)}
        return libmath.template_of(typecheck(k, k.parsed, specs).body, "x")

    return build


for _dtype, _table in ((f32, FUNCTIONS), (f64, FUNCTIONS_F64)):
    for _op, _fn, _apply in _table:
        libmath.register(_op, _dtype, _builder(_apply, _dtype))
