"""Tack: Python kernels compiled to native CPU/GPU code and to KernelAbstractions.jl.

This module only re-exports the public API; compilers, GPU libraries and Julia load on first use.
"""
from . import dtypes as _dtypes
from .arrays import Array, arange, array, concat, copyto, empty, full, ones, zeros
from .interop import from_dlpack
from . import cuda  # tack.cuda: the CUDA engine's memory (empty_cache, memory_stats); no driver
from .check import CheckError, CheckReport, check
from .constants import constant
from .devices import Device, default_device, device, set_debug, set_default_device, sync
from .dtypes import (DType, VecType, f32, f64, i8, i16, i32, i64, mat2, mat3, mat4, matrix, u8,
                     u16, u32, u64, vec2, vec3, vec4, vector)
from .errors import (IRVerificationError, KindError, RenderError, TackBufferError, TackError,
                     TackIndexError, TackNameError, TackRuntimeError, TackTypeError,
                     TackValueError, UnsupportedSyntaxError)
from .inspection import inspect
from .intrinsics import (Matrix, Vector, ndrange, select, atomic_add, atomic_max, atomic_min, barrier, local_array,
                         local_array_like, shared, shared_like, thread_id, unroll)
from .frontend.inline import Func, func
from .frontend.objects import device_class
from .kernel import Kernel, kernel
from . import algorithms  # noqa: F401 - tack.algorithms; registers Array.sum/min/max/mean
from .lib import math  # noqa: F401 - `from tack import math as tm`
from .lib import random  # noqa: F401 - `from tack import random`
import sys as _sys  # noqa: E402 - the two modules, importable under their public names too:
_sys.modules.setdefault(__name__ + ".math", math)  # `from tack.math import clamp`
_sys.modules.setdefault(__name__ + ".random", random)  # `from tack.random import seed`
del _sys
from .lib.reductions import block_max, block_min, block_sum
from .lib.texture import Texture3D, texture3d

from ._version import __version__  # noqa: F401

__all__ = [
    "atomic_add", "atomic_max", "atomic_min", "barrier", "local_array", "local_array_like",
    "shared", "shared_like", "thread_id", "set_debug", "func", "Func", "device_class",
    "VecType", "vector", "matrix", "vec2", "vec3", "vec4", "mat2", "mat3", "mat4", "Vector",
    "Matrix", "select", "ndrange", "unroll", "from_dlpack", "block_sum", "block_min", "block_max",
    "Texture3D", "texture3d", "math", "random", "ops", "algorithms", "device", "default_device", "ones",
    "arange", "concat",
    "Array", "CheckError", "CheckReport", "DType", "Device", "IRVerificationError", "Kernel",
    "KindError", "RenderError", "TackBufferError", "TackError",
    "TackIndexError", "TackNameError", "TackRuntimeError", "TackTypeError", "TackValueError",
    "UnsupportedSyntaxError", "array", "check", "constant", "copyto", "empty", "f32", "f64", "full",
    "i8", "i16", "i32", "i64", "inspect", "kernel", "set_default_device", "sync", "u8", "u16",
    "devices", "cuda",
    "u32", "u64", "zeros",
]
del _dtypes


def __getattr__(name):
    if name == "ops":  # imported on first use: its kernels read their source at import (~0.2 s)
        import importlib

        return importlib.import_module(".ops", __name__)
    raise AttributeError(f"module 'tack' has no attribute {name!r}")
