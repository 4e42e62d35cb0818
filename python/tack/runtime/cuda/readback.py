"""Page-locked host memory mapped into the device's address space, for small results the host
reads right after the kernels that write them (the library's reductions: docs/algorithms.md,
"Performance"): a kernel stores into host memory directly, so reading the result needs only the
stream's wait, not a download queued after the kernels (a wait, a copy, a second wait).

`CUDAEngine` takes `host_mapped` from `MappedHost` (a base class); it is not part of the engine
contract (docs/design/007-engine-contract.md): a caller asks for it with `getattr` and downloads
otherwise."""
from __future__ import annotations

import weakref

try:
    from cuda.bindings import driver as drv
except ImportError:  # pragma: no cover - older cuda-python layout
    from cuda import cuda as drv  # type: ignore[no-redef]

# CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP (cuda.h): usable from every context,
# and mapped for the device.
_FLAGS = 0x01 | 0x02


class MappedHost:
    """The `host_mapped` method of an engine with `call` (a checked driver call)."""

    def host_mapped(self, nbytes: int):
        """(host address, device address, owner) of `nbytes` of page-locked host memory mapped
        for this engine's device; the memory is freed when `owner` goes. A kernel's stores to
        the device address are visible at the host address once `sync` returns."""
        host = int(self.call(drv.cuMemHostAlloc, nbytes, _FLAGS,
                             what=f"cuMemHostAlloc({nbytes} bytes, mapped)"))
        owner = _Pinned(host)
        device = int(self.call(drv.cuMemHostGetDevicePointer, host, 0,
                               what="cuMemHostGetDevicePointer"))
        return host, device, owner


class _Pinned:
    """Frees a cuMemHostAlloc block when the last reference goes (or at exit, while the driver
    module is still loaded; an error code after the context's teardown is ignored)."""

    __slots__ = ("__weakref__", "host")

    def __init__(self, host: int):
        self.host = host
        weakref.finalize(self, drv.cuMemFreeHost, host)
