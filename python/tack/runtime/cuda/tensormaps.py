"""The tensor maps of a CUDA kernel's tensor copies (`tack.async_tensor_copy`, ir/tma.py),
encoded on the host before each launch and handed to the kernel by value
(render/llvm/ptx_tensor.py says why by value).

A map is `cuTensorMapEncodeTiled`'s 128 bytes
(https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__TENSOR__MEMORY.html): the array's
address, its extents (innermost first: columns, rows) and row stride in bytes, the box (columns,
rows), element strides 1, no interleave, the 128-byte swizzle or none, L2 promotion of 128
bytes, and out-of-bounds elements filled with zeros (`CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE`). The
driver's C entry is called through ctypes (as the launch path calls libcuda:
runtime/cuda/launch.py), writing straight into the kernel's parameter buffer. Both extents are
baked into the kernel's specialization (frontend/typing/mbarriers.py), so only the address
changes between launches; the encoded bytes are cached per engine by (address, extents, dtype,
box, layout), and an address that is not a multiple of 16 bytes is refused with ValueError
before the launch, naming the kernel and the array.
"""
from __future__ import annotations

import ctypes

from ... import dtypes as dt
from ...errors import TackRuntimeError, TackValueError
from ...ir import tma
from ...ir.nodes import KernelIR

MAP_BYTES, MAP_ALIGN = 128, 64
# CUtensorMapDataType (cuda.h): the element type only decides the element size here (a copy
# moves bits, and the zeros of the fill are zero bits in every type)
_TYPES = {(1, "u"): 0, (2, "u"): 1, (4, "u"): 2, (4, "i"): 3, (8, "u"): 4, (8, "i"): 5,
          (2, "f"): 6, (4, "f"): 7, (8, "f"): 8}
_SWIZZLE = {"none": 0, "swizzle128": 3}  # CU_TENSOR_MAP_SWIZZLE_NONE, _128B
_INTERLEAVE_NONE, _L2_128B, _FILL_ZEROS = 0, 2, 0
CACHE_LIMIT = 4096  # encoded maps kept per engine


def data_type(t: dt.DType) -> int:
    """The CUtensorMapDataType of Tack dtype `t`."""
    if t is dt.bf16:
        return 9  # CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
    kind = "f" if t.is_float else ("i" if t.is_signed and t.itemsize >= 4 else "u")
    return _TYPES[(t.itemsize, kind)]


def _encoder(lib: ctypes.CDLL):
    fn = lib.cuTensorMapEncodeTiled
    u64p, u32p = ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(ctypes.c_uint32)
    fn.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32, ctypes.c_void_p, u64p, u64p,
                   u32p, u32p, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int]
    fn.restype = ctypes.c_int
    return fn


class TensorMaps:
    """One kernel's maps: a 64-byte aligned 128-byte buffer each (`addresses`, the launch's
    parameter pointers), filled by `fill(args)` from the launch's arguments."""

    def __init__(self, engine, kir: KernelIR, lib: ctypes.CDLL):
        self.kernel = kir.name
        self.maps = tma.maps(kir)
        self.cache = engine.__dict__.setdefault("_tensor_maps", {})
        self._encode = _encoder(lib)
        self.specs = []
        for m in self.maps:
            p = kir.param(m.array)
            self.specs.append((kir.params.index(p), p.dtype, tuple(p.shape), m))
        self._raw = ctypes.create_string_buffer(MAP_BYTES * len(self.maps) + MAP_ALIGN)
        start = -(-ctypes.addressof(self._raw) // MAP_ALIGN) * MAP_ALIGN
        self.addresses = [start + MAP_BYTES * k for k in range(len(self.maps))]

    def fill(self, args) -> None:
        """Write each map for the arrays of `args` (addresses) into its buffer."""
        for (k, dtype, shape, m), at in zip(self.specs, self.addresses):
            ptr = int(args[k] or 0)
            key = (ptr, shape, dtype.name, m)
            raw = self.cache.get(key)
            if raw is None:
                raw = self._encoded(ptr, dtype, shape, m)
                if len(self.cache) >= CACHE_LIMIT:
                    self.cache.clear()
                self.cache[key] = raw
            ctypes.memmove(at, raw, MAP_BYTES)

    def _encoded(self, ptr: int, dtype: dt.DType, shape: tuple, m: tma.TensorMap) -> bytes:
        if ptr % tma.STRIDE_BYTES:
            raise TackValueError(
                f"Kernel '{self.kernel}': tack.async_tensor_copy from '{m.array}', whose "
                f"address {ptr:#x} is not a multiple of {tma.STRIDE_BYTES} bytes: a tensor map "
                "needs an aligned array (a view starting at a multiple of "
                f"{tma.STRIDE_BYTES // dtype.itemsize} elements)")
        rows, cols = shape
        out = (ctypes.c_uint64 * 16)()
        dims = (ctypes.c_uint64 * 2)(cols, rows)
        strides = (ctypes.c_uint64 * 1)(cols * dtype.itemsize)
        box = (ctypes.c_uint32 * 2)(m.cols, m.rows)
        steps = (ctypes.c_uint32 * 2)(1, 1)
        code = self._encode(ctypes.addressof(out), data_type(dtype), 2, ptr, dims, strides, box,
                            steps, _INTERLEAVE_NONE, _SWIZZLE[m.layout], _L2_128B, _FILL_ZEROS)
        if code:
            from .driver import error_name  # cuda-bindings: only where a launch failed

            raise TackRuntimeError(
                f"Kernel '{self.kernel}': encoding the tensor map of '{m.array}' ({rows} × "
                f"{cols} {dtype.name}, a {m.rows} × {m.cols} box, {m.layout}) failed "
                f"(cuTensorMapEncodeTiled): {error_name(code)}")
        return bytes(out)
