"""Arrays kept between calls of the library's own kernels (partial sums, tile totals, outputs an
op does not return): on a GPU each allocation and each free is a driver call, and a free waits
for the device, which would leave the GPU idle between one call's kernels and the next.

A kept array belongs to one device, dtype, purpose and calling thread (calls from one thread
are queued in order, so a later call's kernels write it only after an earlier call's have read
it); its contents are whatever the last call left, so a kernel that uses one writes it before
reading it. The table is bounded: at most LIMIT arrays and BYTES bytes per device, the least
recently used going first; an array larger than BYTES is made for its call and not kept (the
sort's work arrays at 2^29 keys and up), which the CUDA caching allocator makes cheap
(runtime/cuda/alloc.py).

`result_box` gives the one-element arrays whose value the host reads next (a reduction's
result): on an engine that maps host memory for the device (`host_mapped`,
runtime/cuda/readback.py) the kernel writes host memory and the read is the wait alone."""
from __future__ import annotations

import ctypes
import threading
from collections import OrderedDict

import numpy as np

from ..arrays import Array, zeros

_KEPT: OrderedDict = OrderedDict()  # (device id, thread, dtype, what, n) -> Array, LRU first
LIMIT = 64  # arrays kept, on all devices together
BYTES = 4 << 30  # bytes kept per device (the sort's work arrays at 2^28 keys: 3.1 GiB)
_BOXES: dict = {}  # (device id, thread, dtype, what) -> (Array, read)


def kept(device, dtype, what, n: int, make=None) -> Array:
    """A 1-D array of `n` elements of `dtype` on `device` for the purpose `what` (any hashable),
    made by `make()` (default: zeros) the first time, or again after it was evicted."""
    key = (id(device), threading.get_ident(), dtype, what, n)
    held = _KEPT.get(key)
    if held is not None and held.device is device:
        _KEPT.move_to_end(key)
        return held
    _KEPT.pop(key, None)
    held = make() if make is not None else zeros(n, dtype, device)
    if held.nbytes <= BYTES:
        _make_room(key[0], held.nbytes)
        _KEPT[key] = held
    return held


def _make_room(device_id: int, nbytes: int) -> None:
    """Evict the least recently used arrays until one more fits: fewer than LIMIT in the table
    and at most BYTES - nbytes kept on the device."""
    while len(_KEPT) >= LIMIT:
        _KEPT.popitem(last=False)
    mine = [k for k in _KEPT if k[0] == device_id]
    total = sum(_KEPT[k].nbytes for k in mine)
    for k in mine:
        if total + nbytes <= BYTES:
            break
        total -= _KEPT.pop(k).nbytes


def unfilled(device, dtype, n: int) -> Array:
    """A new 1-D array that the caller's kernels write every element of before it is returned
    (a permutation, sorted keys): not zero-filled first, which on a GPU is a memset of it."""
    if device.is_host:
        return Array(np.empty(n, dtype.np), device, dtype=dtype)
    return Array(None, device, device.engine.alloc(n * dtype.np.itemsize), (n,), dtype)


def kept_bytes(device) -> int:
    """The bytes of the arrays kept on `device` (the tests check the bound)."""
    return sum(a.nbytes for k, a in _KEPT.items() if k[0] == id(device) and a.device is device)


def result_box(device, dtype, what="result"):
    """(box, read): a one-element array of `dtype` on `device` that a kernel stores a result
    into, and `read()`, which waits for the device and returns that result as a NumPy scalar.
    Kept per device, dtype, purpose and thread, like `kept`."""
    key = (id(device), threading.get_ident(), dtype, what)
    held = _BOXES.get(key)
    if held is None or held[0].device is not device:
        held = _BOXES[key] = _make_box(device, dtype)
    return held


def _make_box(device, dtype):
    engine = device.engine
    mapped = getattr(engine, "host_mapped", None)  # not in the engine contract: optional
    if mapped is None:
        box = zeros(1, dtype, device)
        return box, lambda: box.numpy()[0]
    host, dev_ptr, owner = mapped(dtype.np.itemsize)
    view = np.frombuffer((ctypes.c_char * dtype.np.itemsize).from_address(host), dtype.np)
    box = Array(None, device, engine.adopt(dev_ptr, dtype.np.itemsize, owner), (1,), dtype)

    def read():
        engine.sync()
        return view[0]  # a NumPy scalar: a copy

    return box, read
