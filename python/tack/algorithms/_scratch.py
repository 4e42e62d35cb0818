"""Arrays kept between calls of the library's own kernels (partial sums, tile totals, outputs an
op does not return): on a GPU each allocation and each free is a driver call, and a free waits
for the device, which would leave the GPU idle between one call's kernels and the next.

A kept array belongs to one device, dtype, purpose and calling thread (calls from one thread
are queued in order, so a later call's kernels write it only after an earlier call's have read
it); its contents are whatever the last call left, so a kernel that uses one writes it before
reading it."""
from __future__ import annotations

import threading

from ..arrays import Array, zeros

_KEPT: dict = {}  # (device id, thread, dtype, what) -> Array
LIMIT = 64  # entries before the table starts again (many shapes seen), rather than grow


def kept(device, dtype, what, n: int, make=None) -> Array:
    """A 1-D array of `n` elements of `dtype` on `device` for the purpose `what` (any hashable),
    made by `make()` (default: zeros) the first time."""
    key = (id(device), threading.get_ident(), dtype, what, n)
    held = _KEPT.get(key)
    if held is None or held.device is not device:
        if len(_KEPT) >= LIMIT:
            _KEPT.clear()
        held = _KEPT[key] = make() if make is not None else zeros(n, dtype, device)
    return held
