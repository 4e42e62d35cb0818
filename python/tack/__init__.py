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
from .intrinsics import (
    Matrix,
    Vector,
    async_bulk_copy,
    async_commit,
    async_copy,
    async_tensor_copy,
    async_wait,
    atomic_add,
    atomic_max,
    atomic_min,
    ballot,
    barrier,
    bitcast,
    lane_id,
    local_array,
    local_array_like,
    mbarrier_arrive,
    mbarrier_arrive_tx,
    mbarrier_init,
    mbarrier_wait,
    mbarriers,
    mma,
    mma_cols,
    mma_load_a,
    mma_load_acc,
    mma_load_b,
    mma_load_bt,
    mma_row_max,
    mma_row_sum,
    mma_rows,
    mma_store,
    mma_to_a,
    mma_zeros,
    ndrange,
    select,
    shared,
    shared_like,
    shfl,
    shfl_down,
    shfl_up,
    shfl_xor,
    thread_id,
    unroll,
    warp_all,
    warp_any,
    warp_id,
    warp_max,
    warp_min,
    warp_sum,
    wgmma,
    wgmma_commit,
    wgmma_index,
    wgmma_store,
    wgmma_wait,
    wgmma_zeros,
)
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
# The math functions (builtins/functions.py), importable by name: `from tack import sqrt`.
globals().update(_HOST_FUNCTIONS)

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
    "Matrix",
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
    "Vector",
    "algorithms",
    "arange",
    "array",
    "async_bulk_copy",
    "async_commit",
    "async_copy",
    "async_tensor_copy",
    "async_wait",
    "atomic_add",
    "atomic_max",
    "atomic_min",
    "ballot",
    "barrier",
    "bf16",
    "bitcast",
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
    "lane_id",
    "local_array",
    "local_array_like",
    "mat2",
    "mat3",
    "mat4",
    "math",
    "matrix",
    "mbarrier_arrive",
    "mbarrier_arrive_tx",
    "mbarrier_init",
    "mbarrier_wait",
    "mbarriers",
    "mma",
    "mma_cols",
    "mma_load_a",
    "mma_load_acc",
    "mma_load_b",
    "mma_load_bt",
    "mma_row_max",
    "mma_row_sum",
    "mma_rows",
    "mma_store",
    "mma_to_a",
    "mma_zeros",
    "ndrange",
    "ones",
    "ops",
    "random",
    "select",
    "set_debug",
    "set_default_device",
    "set_deterministic",
    "shared",
    "shared_like",
    "shfl",
    "shfl_down",
    "shfl_up",
    "shfl_xor",
    "sync",
    "texture3d",
    "tf32",
    "thread_id",
    "u8",
    "u16",
    "u32",
    "u64",
    "unroll",
    "vec2",
    "vec3",
    "vec4",
    "vector",
    "warp_all",
    "warp_any",
    "warp_id",
    "warp_max",
    "warp_min",
    "warp_sum",
    "wgmma",
    "wgmma_commit",
    "wgmma_index",
    "wgmma_store",
    "wgmma_wait",
    "wgmma_zeros",
    "zeros",
]
__all__.extend(_HOST_FUNCTIONS)  # the math functions (builtins/functions.py)
del _dtypes


def __getattr__(name):
    if name == "ops":  # imported on first use: its kernels read their source at import (~0.2 s)
        import importlib

        return importlib.import_module(".ops", __name__)
    raise AttributeError(f"module 'tack' has no attribute {name!r}")
