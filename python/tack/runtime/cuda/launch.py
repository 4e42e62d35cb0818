"""A native trampoline for `cuLaunchKernel`: the launch's fixed arguments live in a per-kernel
record, so Python makes one ctypes call with one pointer argument.

Both other ways of calling the driver from Python convert eleven arguments per launch
(cuda-bindings' wrapper builds driver objects; a ctypes call of libcuda converts each through
its argtypes). Here `tack_cuda_launch(rec)` reads the driver entry point, the function, the
launch indices per block, the stream, the parameter block, the address of the `n` slot and the
dynamic shared memory bytes (render/llvm/ptx_shared.py) from `rec`, computes the grid and calls
the driver. The trampoline is compiled once per machine from
the LLVM IR below by the same loader as the CPU pool (objload: disk-cached object code).

    rec = Record(launch_fn, function, span, stream, params_ptr, n_slot_ptr, shared_bytes)
    code = trampoline()(rec.address)        # the CUresult of cuLaunchKernel
"""
from __future__ import annotations

import ctypes
import ctypes.util
import functools
import struct
import sys

from ...ir.ops import WORKGROUP as BLOCK

# { cuLaunchKernel, CUfunction, i64 span, CUstream, void** params, i64* n, i64 shared bytes }
_RECORD = struct.Struct("@QQqQQQq")

_IR = f"""
%Rec = type {{ ptr, ptr, i64, ptr, ptr, ptr, i64 }}

define i32 @tack_cuda_launch(ptr %r) {{
entry:
  %fnp = getelementptr inbounds %Rec, ptr %r, i32 0, i32 0
  %fn = load ptr, ptr %fnp, align 8
  %fp = getelementptr inbounds %Rec, ptr %r, i32 0, i32 1
  %f = load ptr, ptr %fp, align 8
  %sp = getelementptr inbounds %Rec, ptr %r, i32 0, i32 2
  %span = load i64, ptr %sp, align 8
  %stp = getelementptr inbounds %Rec, ptr %r, i32 0, i32 3
  %stream = load ptr, ptr %stp, align 8
  %pp = getelementptr inbounds %Rec, ptr %r, i32 0, i32 4
  %params = load ptr, ptr %pp, align 8
  %np = getelementptr inbounds %Rec, ptr %r, i32 0, i32 5
  %nslot = load ptr, ptr %np, align 8
  %n = load i64, ptr %nslot, align 8
  %shp = getelementptr inbounds %Rec, ptr %r, i32 0, i32 6
  %sh64 = load i64, ptr %shp, align 8
  %shared = trunc i64 %sh64 to i32
  %m = add i64 %n, %span
  %m1 = sub i64 %m, 1
  %g = udiv i64 %m1, %span
  %grid = trunc i64 %g to i32
  %code = call i32 %fn(ptr %f, i32 %grid, i32 1, i32 1, i32 {BLOCK}, i32 1, i32 1, i32 %shared,
                       ptr %stream, ptr %params, ptr null)
  ret i32 %code
}}
"""


@functools.cache
def trampoline():
    """The compiled `tack_cuda_launch` as a ctypes function (the call releases the GIL)."""
    from ...toolchain.objload import load_ir

    code = load_ir(_IR, ("tack_cuda_launch",), "tack_cuda_launch", keep=True)
    fn = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p)(code.address("tack_cuda_launch"))
    fn._tack_code = code  # the mapping lives as long as the function
    return fn


class Record:
    """One kernel's launch record; the caller keeps it alive as long as it launches."""

    __slots__ = ("_buf", "address")

    def __init__(self, launch_fn: int, function: int, span: int, stream: int, params: int,
                 n_slot: int, shared_bytes: int = 0):
        self._buf = ctypes.create_string_buffer(_RECORD.size)
        _RECORD.pack_into(self._buf, 0, launch_fn, function, span, stream, params, n_slot,
                          shared_bytes)
        self.address = ctypes.addressof(self._buf)


# ---- libcuda through ctypes: the calls on the hot path ----------------------------------------
def libcuda() -> ctypes.CDLL:
    names = ["nvcuda.dll"] if sys.platform == "win32" else ["libcuda.so.1", "libcuda.so"]
    found = ctypes.util.find_library("cuda")
    for name in names + ([found] if found else []):
        try:
            return ctypes.CDLL(name)
        except OSError:
            continue
    raise OSError("libcuda (the NVIDIA driver library) was not found")


class Native:
    """The few driver entry points called per launch / wait, with fixed argtypes."""

    def __init__(self):
        lib = libcuda()
        vp, u = ctypes.c_void_p, ctypes.c_uint
        self.launch = lib.cuLaunchKernel
        self.launch.argtypes = [vp, u, u, u, u, u, u, u, vp, vp, vp]
        self.launch.restype = ctypes.c_int
        self.stream_sync = lib.cuStreamSynchronize
        self.stream_sync.argtypes = [vp]
        self.stream_sync.restype = ctypes.c_int
        self.set_current = lib.cuCtxSetCurrent
        self.set_current.argtypes = [vp]
        self.set_current.restype = ctypes.c_int
        self.get_current = lib.cuCtxGetCurrent
        self.get_current.argtypes = [ctypes.POINTER(vp)]
        self.get_current.restype = ctypes.c_int
        self.launch_addr = ctypes.cast(lib.cuLaunchKernel, vp).value  # for the trampoline
