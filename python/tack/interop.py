"""Foreign arrays shared without a copy: `tack.from_dlpack` of NumPy, CuPy, PyTorch, ... tensors.

What may be shared, and what is refused before anything is shared, is decided here; the
DLPack capsule handling itself lives in runtime/cuda/dlpack.py (loaded on first use)."""
from __future__ import annotations

from .arrays import Array, _dlpack, _on
from .devices import Device
from .errors import TackBufferError, TackError, TackTypeError, TackValueError


def from_dlpack(obj, device: Device | None = None) -> Array:
    """A Tack array sharing the memory of a DLPack producer (NumPy, CuPy, PyTorch, ...): CPU
    tensors on a CPU device, CUDA tensors on the matching `cuda:N` device. No copy is made.

    Refused (TackTypeError / TackBufferError / TackValueError, nothing shared): an object
    without `__dlpack__`, a dtype Tack lacks (bool, complex, big-endian), a tensor
    that is not C-contiguous, and one whose address is not a multiple of its element size
    (the generated code loads elements at their natural alignment). A read-only tensor gives a
    read-only array (`a.readonly`): kernels that may store into it refuse it before launch."""
    if isinstance(obj, Array):
        return obj
    if not hasattr(obj, "__dlpack__") or not hasattr(obj, "__dlpack_device__"):
        raise TackTypeError(f"tack.from_dlpack needs an object with __dlpack__ and "
                            f"__dlpack_device__, got {type(obj).__name__}")
    device = _on(device)
    dlpack = _dlpack()
    try:
        dev_type, dev_id = (int(v) for v in obj.__dlpack_device__())
        if dev_type in dlpack.HOST_TYPES and device.is_host:
            host = dlpack.host_array(obj)
            _check_aligned(host.ctypes.data, host.dtype.itemsize)
            return Array(host, device)
        # an engine that takes addresses: the native CUDA one (the Julia engine holds Julia
        # arrays, which cannot wrap foreign memory)
        if dev_type in dlpack.CUDA_TYPES and device.arch == "cuda" and \
                device.capabilities.takes_pointers:
            return _from_cuda(obj, device, dev_id)
    except BufferError as exc:  # the producer's refusal (NumPy: big-endian, read-only export)
        if isinstance(exc, TackError):
            raise
        raise TackBufferError(f"tack.from_dlpack: {exc}") from exc
    raise TackBufferError(f"tack.from_dlpack cannot share a tensor of DLPack device type "
                          f"{dev_type} with {device!r} without a copy; use tack.array(...) to "
                          "copy it")


def _from_cuda(obj, device: Device, dev_id: int) -> Array:
    engine = device.engine
    if dev_id != engine.index:
        raise TackBufferError(f"the tensor is on cuda:{dev_id} but the Tack device is "
                              f"cuda:{engine.index}; select it with set_default_device"
                              f"('cuda:{dev_id}')")
    ptr, nbytes, shape, dtype, owner, readonly = _dlpack().import_cuda(obj, engine)
    _check_aligned(ptr, dtype.itemsize)
    return Array(None, device, engine.adopt(ptr, nbytes, owner), shape, dtype, readonly)


def _check_aligned(address: int, itemsize: int) -> None:
    if address % itemsize:
        raise TackValueError(f"tack.from_dlpack: the tensor's address {address:#x} is not a "
                             f"multiple of its element size ({itemsize} bytes); kernels load "
                             "elements at their natural alignment. Copy it with tack.array(...)")
