"""Tack: Python kernels compiled to native CPU/GPU code and to KernelAbstractions.jl.

This module only re-exports the public API; compilers, GPU libraries and Julia load on first use.
"""
import sys as _sys

from . import (
    algorithms,  # tack.algorithms; registers Array.sum/min/max/mean
    cuda,  # tack.cuda: the CUDA engine's memory (empty_cache, memory_stats); no driver
)
from . import dtypes as _dtypes
from ._version import __version__  # noqa: F401
from .arrays import Array, arange, array, concat, copyto, empty, full, ones, zeros
from .builtins.registry import HOST_FUNCTIONS as _HOST_FUNCTIONS
from .check import CheckError, CheckReport, check
from .constants import constant
from .devices import (
    Device,
    debug_mode,
    default_device,
    deterministic,
    deterministic_mode,
    device,
    set_debug,
    set_default_device,
    set_deterministic,
    sync,
)
from .dtypes import (
    DType,
    VecType,
    bf16,
    f16,
    f32,
    f64,
    i8,
    i16,
    i32,
    i64,
    mat2,
    mat3,
    mat4,
    matrix,
    u8,
    u16,
    u32,
    u64,
    vec2,
    vec3,
    vec4,
    vector,
)
from .errors import (
    IRVerificationError,
    KindError,
    RenderError,
    TackBufferError,
    TackError,
    TackIndexError,
    TackNameError,
    TackRuntimeError,
    TackTypeError,
    TackValueError,
    UnsupportedSyntaxError,
)
from .frontend.inline import Func, func
from .frontend.objects import device_class
from .inspection import inspect
from .interop import from_dlpack
from .intrinsics import DEVICE_FUNCTIONS as _DEVICE_FUNCTIONS
from .ir.ops import WARP as WARP_SIZE  # lanes per warp: 32 on every engine
from .kernel import Kernel, kernel
from .lib import builtin_math as _builtin_math  # noqa: F401 - the f32 math builtins' library
from .lib import (
    math,  # `from tack import math as tm`
    random,  # `from tack import random`
)
from .lib.reductions import block_max, block_min, block_sum
from .lib.texture import Texture3D, texture3d
from .lib.tf32 import tf32

# the two modules, importable under their public names too
_sys.modules.setdefault(__name__ + ".math", math)  # `from tack.math import clamp`
_sys.modules.setdefault(__name__ + ".random", random)  # `from tack.random import seed`
del _sys
# The math functions (builtins/functions.py), importable by name: `from tack import sqrt`, and the
# device functions (`tack.thread_id`, ...; intrinsics.py), both made from their registry entries.
globals().update(_HOST_FUNCTIONS)
globals().update(_DEVICE_FUNCTIONS)

__all__ = [
    "WARP_SIZE",
    "Array",
    "CheckError",
    "CheckReport",
    "DType",
    "Device",
    "Func",
    "IRVerificationError",
    "Kernel",
    "KindError",
    "RenderError",
    "TackBufferError",
    "TackError",
    "TackIndexError",
    "TackNameError",
    "TackRuntimeError",
    "TackTypeError",
    "TackValueError",
    "Texture3D",
    "UnsupportedSyntaxError",
    "VecType",
    "algorithms",
    "arange",
    "array",
    "bf16",
    "block_max",
    "block_min",
    "block_sum",
    "check",
    "concat",
    "constant",
    "copyto",
    "cuda",
    "debug_mode",
    "default_device",
    "deterministic",
    "deterministic_mode",
    "device",
    "device_class",
    "devices",
    "empty",
    "f16",
    "f32",
    "f64",
    "from_dlpack",
    "full",
    "func",
    "i8",
    "i16",
    "i32",
    "i64",
    "inspect",
    "kernel",
    "mat2",
    "mat3",
    "mat4",
    "math",
    "matrix",
    "ones",
    "ops",
    "random",
    "set_debug",
    "set_default_device",
    "set_deterministic",
    "sync",
    "texture3d",
    "tf32",
    "u8",
    "u16",
    "u32",
    "u64",
    "vec2",
    "vec3",
    "vec4",
    "vector",
    "zeros",
]
__all__.extend(_HOST_FUNCTIONS)  # the math functions (builtins/functions.py)
__all__.extend(_DEVICE_FUNCTIONS)  # the device functions (intrinsics.py)
del _dtypes, _DEVICE_FUNCTIONS


def __getattr__(name):
    if name == "ops":  # imported on first use: its kernels read their source at import (~0.2 s)
        import importlib

        return importlib.import_module(".ops", __name__)
    raise AttributeError(f"module 'tack' has no attribute {name!r}")
