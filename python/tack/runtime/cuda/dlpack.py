"""Zero-copy exchange of memory: `__cuda_array_interface__` (v3) and DLPack, both directions.

The ctypes side: capsules, tensors and their lifetimes, over addresses, shapes and dtypes.
`arrays` (tack.Array's methods and `tack.from_dlpack`) calls it and wraps what it imports into
a tack.Array through the engine's `adopt`; nothing here builds or reads a tack.Array.

Export (`Array.__dlpack__`): a GPU array becomes a `dltensor` capsule (or `dltensor_versioned`
when the consumer asks for DLPack >= 1.0) on kDLCUDA; before it is handed over, the consumer's
stream is made to wait for Tack's stream (an event), so work Tack queued is visible to it. A CPU
array delegates to NumPy's own `__dlpack__`.

Import (`tack.from_dlpack(obj)`): the producer is asked for a capsule with `stream=` Tack's
stream (so Tack's later launches see its writes); the tensor must be C-contiguous and of one of
Tack's ten dtypes; the memory stays owned by the producer, which is released (its deleter
called) when the Tack array's buffer goes.

`__cuda_array_interface__` (GPU arrays only) publishes the pointer and Tack's stream as
`stream`, so a consumer synchronizes with Tack's queued work (v3 semantics).

Either export marks the memory shared (`engine.share`): when the Tack array goes, its block
returns to the driver instead of the caching allocator's free lists (runtime.cuda.alloc), since
the consumer's stream may still be reading it.
"""
from __future__ import annotations

import ctypes
import threading

import numpy as np

from ... import dtypes as dt
from ...errors import TackBufferError, TackTypeError

kDLCPU, kDLCUDA, kDLCUDAHost, kDLCUDAManaged = 1, 2, 3, 13
_CODES = {"i": 0, "u": 1, "f": 2}
_KINDS = {v: k for k, v in _CODES.items()}
kDLBfloat = 4  # bfloat16 has a type code of its own (dlpack.h's DLDataTypeCode)


def _code(scalar) -> int | None:
    return kDLBfloat if scalar is dt.bf16 else _CODES.get(scalar.kind)
READ_ONLY = 1


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


_DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p)]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("version", DLPackVersion), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p), ("flags", ctypes.c_uint64),
                ("dl_tensor", DLTensor)]


_NAME, _USED = b"dltensor", b"used_dltensor"
_NAME_V, _USED_V = b"dltensor_versioned", b"used_dltensor_versioned"
_api = ctypes.pythonapi
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
_api.PyCapsule_SetName.restype = ctypes.c_int
_api.PyCapsule_SetName.argtypes = [ctypes.c_void_p, ctypes.c_char_p]

# ---- export ---------------------------------------------------------------------------------
_live: dict[int, tuple] = {}  # managed-tensor address → what keeps it and the array alive
_live_lock = threading.Lock()


def _release(ptr) -> None:
    with _live_lock:
        _live.pop(ptr, None)


_deleter = _DELETER(_release)
_DELETER_ADDR = ctypes.cast(_deleter, ctypes.c_void_p).value


def _capsule_gone(cap) -> None:
    """Capsule destructor: a capsule nobody consumed releases its tensor."""
    for name in (_NAME, _NAME_V):
        if _api.PyCapsule_IsValid(cap, name):
            _release(_api.PyCapsule_GetPointer(cap, name))


_capsule_destructor = _DELETER(_capsule_gone)
_DESTRUCTOR_ADDR = ctypes.cast(_capsule_destructor, ctypes.c_void_p).value


def _fill(t: DLTensor, ptr: int, phys: tuple, scalar, device_type: int, device_id: int,
          keep: list) -> None:
    ndim = len(phys)
    shape = (ctypes.c_int64 * max(1, ndim))(*phys)
    keep.append(shape)
    t.data = ptr or None
    t.device = DLDevice(device_type, device_id)
    t.ndim = ndim
    t.dtype = DLDataType(_code(scalar), scalar.bits, 1)
    t.shape = ctypes.cast(shape, ctypes.POINTER(ctypes.c_int64))
    t.strides = None  # compact row-major
    t.byte_offset = 0


def _wait_for_tack(engine, stream) -> None:
    """Make the consumer's `stream` wait for everything queued on Tack's stream."""
    if stream == -1:
        return
    from cuda.bindings import driver as drv  # cuda-bindings loads on first use (CUDA only)

    handle = 1 if stream is None else int(stream)  # None: the legacy default stream
    if handle == engine.stream_ptr:
        return
    event = engine.call(drv.cuEventCreate, 2, what="cuEventCreate")  # CU_EVENT_DISABLE_TIMING
    try:
        engine.call(drv.cuEventRecord, event, engine.stream, what="cuEventRecord")
        engine.call(drv.cuStreamWaitEvent, drv.CUstream(handle), event, 0,
                    what="cuStreamWaitEvent")
    finally:
        drv.cuEventDestroy(event)


def export_host(host: np.ndarray, stream, max_version, dl_device, copy):
    """`__dlpack__` of host memory: NumPy does it."""
    kw = {k: v for k, v in (("max_version", max_version), ("dl_device", dl_device),
                            ("copy", copy)) if v is not None}
    if stream is not None:
        raise TackBufferError("stream must be None for a CPU array")
    try:
        return host.__dlpack__(**kw)
    except BufferError as exc:  # NumPy's refusal (a read-only array to an unversioned consumer)
        raise TackBufferError(f"tack.Array.__dlpack__: {exc}") from None


def export(engine, ptr: int, phys: tuple, scalar, keep, stream=None, max_version=None,
           dl_device=None, copy=None, readonly=False):
    """`__dlpack__` of the CUDA engine's memory at `ptr` (storage shape `phys`, of the scalar
    dtype `scalar`); `keep` stays alive until the consumer releases the tensor. A read-only
    array says so in a versioned capsule's flags (an unversioned one cannot)."""
    here = (kDLCUDA, engine.index)
    if dl_device is not None and tuple(dl_device) != here:
        raise TackBufferError(f"tack.Array on cuda:{engine.index} cannot be exported to "
                              f"device {tuple(dl_device)} without a copy")
    if copy:
        raise TackBufferError("tack.Array.__dlpack__ shares memory; copy=True is not supported")
    if _code(scalar) is None:
        raise TackBufferError(f"dtype {scalar.name} has no DLPack code")
    _wait_for_tack(engine, stream)
    engine.share(ptr)  # the consumer's stream may read it after Tack's array goes: not reused
    keep: list = [keep]
    versioned = max_version is not None and next(iter(max_version)) >= 1
    if versioned:
        m = DLManagedTensorVersioned()
        m.version = DLPackVersion(1, 0)
        m.flags = READ_ONLY if readonly else 0
    else:
        m = DLManagedTensor()
    _fill(m.dl_tensor, ptr, phys, scalar, *here, keep)
    m.deleter = _DELETER_ADDR
    addr = ctypes.addressof(m)
    m.manager_ctx = addr
    with _live_lock:
        _live[addr] = (m, keep)
    return _api.PyCapsule_New(addr, _NAME_V if versioned else _NAME, _DESTRUCTOR_ADDR)


def cuda_array_interface(engine, ptr: int, phys: tuple, scalar) -> dict:
    """`__cuda_array_interface__` (version 3) of the CUDA engine's memory at `ptr`, whose
    block is then not reused by the caching allocator (a consumer may read it on its stream)."""
    if scalar is dt.bf16:  # NumPy's typestr of ml_dtypes' bfloat16 is '<V2': no consumer's
        raise AttributeError("a bf16 tack.Array has no __cuda_array_interface__ (its typestr "
                             "would be raw bytes); use __dlpack__ (kDLBfloat)")
    engine.share(ptr)
    return {"shape": phys, "typestr": scalar.np.str, "data": (ptr, False), "version": 3,
            "strides": None, "stream": engine.stream_ptr}


# ---- import ---------------------------------------------------------------------------------
class _Imported:
    """Owns a consumed capsule's managed tensor; calls the producer's deleter when dropped."""

    __slots__ = ("capsule", "deleter", "ptr")

    def __init__(self, ptr: int, deleter: int | None, capsule):
        self.ptr, self.deleter, self.capsule = ptr, deleter, capsule

    def __del__(self):
        if self.deleter:
            try:
                _DELETER(self.deleter)(self.ptr)
            except Exception:  # noqa: BLE001, S110 - a finalizer at interpreter shutdown
                pass


def _tensor_dtype(t: DLTensor):
    if (t.dtype.code, t.dtype.bits, t.dtype.lanes) == (kDLBfloat, 16, 1):
        return dt.bf16
    kind = _KINDS.get(t.dtype.code)
    if kind is None or t.dtype.lanes != 1:
        raise TackTypeError(f"DLPack dtype (code {t.dtype.code}, bits {t.dtype.bits}, lanes "
                        f"{t.dtype.lanes}) is not one of Tack's dtypes")
    return dt.from_numpy(np.dtype(f"{kind}{t.dtype.bits // 8}"))


def _check_contiguous(shape, strides) -> None:
    if not strides:
        return
    expect = 1
    for extent, stride in zip(reversed(shape), reversed(strides)):
        if extent != 1 and stride != expect:
            raise TackBufferError(f"tack.from_dlpack needs a C-contiguous tensor (shape "
                                  f"{shape}, strides {strides} in elements); make it "
                                  "contiguous first")
        expect *= extent


def _consume(capsule):
    """(managed pointer, DLTensor, deleter address) of a capsule, which is marked used."""
    return _consume_flags(capsule)[:3]


def _consume_flags(capsule):
    """`_consume`, and the tensor's DLPack 1.0 flags (0 for an unversioned capsule)."""
    cap = ctypes.c_void_p(id(capsule))
    for name, used, cls in ((_NAME_V, _USED_V, DLManagedTensorVersioned),
                            (_NAME, _USED, DLManagedTensor)):
        if _api.PyCapsule_IsValid(cap, name):
            ptr = _api.PyCapsule_GetPointer(cap, name)
            m = cls.from_address(ptr)
            _api.PyCapsule_SetName(cap, used)
            return ptr, m.dl_tensor, m.deleter, getattr(m, "flags", 0)
    raise TackBufferError("not a DLPack capsule (or already consumed)")


def _get_capsule(obj, stream):
    try:
        return obj.__dlpack__(stream=stream, max_version=(1, 0))
    except TypeError:  # a producer from before DLPack 1.0
        return obj.__dlpack__(stream=stream)


HOST_TYPES, CUDA_TYPES = (kDLCPU, kDLCUDAHost), (kDLCUDA, kDLCUDAManaged)


def host_array(obj) -> np.ndarray:
    """The NumPy array sharing the host memory of the DLPack producer `obj`."""
    host = np.from_dlpack(obj)
    if not host.flags.c_contiguous:
        raise TackBufferError("tack.from_dlpack needs a C-contiguous tensor; make it "
                              "contiguous first")
    dt.from_numpy(host.dtype)  # TypeError for dtypes Tack lacks
    return host


def import_cuda(obj, engine) -> tuple:
    """(address, nbytes, shape, dtype, owner, read-only) of the CUDA tensor of the producer
    `obj`, asked for with the engine's stream; `owner` calls the producer's deleter when it
    goes; read-only is the DLPack 1.0 flag (False for an unversioned capsule)."""
    capsule = _get_capsule(obj, engine.stream_ptr)
    ptr, t, deleter, flags = _consume_flags(capsule)
    try:
        dtype = _tensor_dtype(t)
        shape = tuple(t.shape[k] for k in range(t.ndim))
        strides = tuple(t.strides[k] for k in range(t.ndim)) if t.strides else None
        _check_contiguous(shape, strides)
    except BaseException:
        _Imported(ptr, deleter, capsule)  # releases the producer's tensor at once
        raise
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    data = (t.data or 0) + t.byte_offset
    return data, nbytes, shape, dtype, _Imported(ptr, deleter, capsule), bool(flags & READ_ONLY)
