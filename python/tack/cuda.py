"""`tack.cuda`: the native CUDA engine's device memory, as PyTorch's `torch.cuda` and CuPy's
memory pool expose theirs: `empty_cache()` and `memory_stats()`.

Each CUDA device's engine keeps the blocks of arrays that went in size-class free lists and
hands them to the next arrays of that size, so a temporary costs no `cuMemAlloc`/`cuMemFree`
(each synchronizes the device) after the first (runtime.cuda.alloc; docs/engines.md, "CUDA
device memory"). Nothing here starts an engine or imports cuda-bindings unless asked about a
device by name.
"""
from __future__ import annotations

from .devices import Device, default_device, started
from .devices import device as _device
from .errors import TackValueError

__all__ = ["empty_cache", "memory_stats"]


def empty_cache(device: Device | str | None = None) -> int:
    """Return the idle cached blocks of `device` (a CUDA `Device` or name such as "cuda:1"),
    or of every started CUDA device, to the driver, after their queued work; the bytes freed.
    Memory that arrays hold stays theirs. Other libraries and processes can then use it
    (`nvidia-smi` shows it free); Tack itself gets no more memory, since its allocations
    empty the cache by themselves before they report being out of memory."""
    if device is None:
        devs = [d for d in started() if _is_native_cuda(d)]
    else:
        devs = [_cuda(device)]
    return sum(d.engine.empty_cache() for d in devs if d._engine is not None)


def memory_stats(device: Device | str | None = None) -> dict:
    """The caching allocator of `device` (default: the current device if it is a CUDA one,
    else "cuda"), starting its engine if needed: `allocated_bytes` (held by arrays, in whole
    blocks), `cached_bytes` (idle, kept for reuse), `limit_bytes` (the bound on those),
    `cached_blocks`, `live_blocks`, and counts since the start: `reused`, `driver_allocs`,
    `driver_frees`; `enabled` is False under TACK_CUDA_CACHE=off."""
    if device is None:
        current = default_device()
        device = current if _is_native_cuda(current) else "cuda"
    return _cuda(device).engine.memory_stats()


def _is_native_cuda(dev: Device) -> bool:
    return dev.arch == "cuda" and dev.engine_name == "native"


def _cuda(device: Device | str) -> Device:
    dev = _device(device)
    if not _is_native_cuda(dev):
        raise TackValueError(f"tack.cuda manages the memory of Tack's native CUDA devices; "
                             f"{dev!r} is not one")
    return dev
