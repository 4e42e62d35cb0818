"""The CUDA engine's caching allocator: device blocks kept in size-class free lists and reused,
so a temporary costs no `cuMemAlloc`/`cuMemFree` (each synchronizes the device) after the first.

One `BlockCache` per engine, that is per context and stream (cuda/engine.py). A buffer that
goes returns its block to the free list of its size class; the next allocation of that class
takes it back. That is safe in stream order: every use of a block (launches, copies, memsets)
is queued on the engine's one stream, so the work that used a block is ordered before the work
of its next user. Where memory leaves that order the block is not reused:

- a block exported (`__dlpack__`, `__cuda_array_interface__`: `share`) may still be read on the
  consumer's stream when Tack's array goes, so it is returned to the driver (`cuMemFree` waits);
- a peer copy reads its source on the destination's stream; cuda/engine.py makes the source's
  stream wait for it.

Bounded: idle blocks above `limit` bytes are returned to the driver, the oldest first; an
allocation the driver refuses empties the cache and is tried once more. `TACK_CUDA_CACHE=off`
turns caching off (every buffer its own `cuMemAlloc`, what compute-sanitizer's memcheck wants);
`TACK_CUDA_CACHE_LIMIT` sets the bound (bytes, `512M`, `4G`, or `25%` of the device's memory,
the default). `tack.cuda.empty_cache()` frees every idle block; docs/engines.md says more.

The driver is two callables (`malloc(nbytes) -> ptr`, `free(ptr)`), so the free-list logic is
tested without a GPU (tests/runtime/test_cuda_alloc.py).
"""
from __future__ import annotations

import collections
import os
import re
import threading
import weakref

from ...errors import TackValueError

ALIGN = 512  # the smallest block; sizes below 1 MiB round up to a multiple of it
_SMALL = 1 << 20
DEFAULT_LIMIT = "25%"


def size_class(nbytes: int) -> int:
    """The block size an allocation of `nbytes` takes: a multiple of 512 bytes below 1 MiB,
    above it one of four steps per power of two (at most a quarter more than asked)."""
    if nbytes <= _SMALL:
        return max(ALIGN, -(-nbytes // ALIGN) * ALIGN)
    step = 1 << (nbytes.bit_length() - 3)
    return -(-nbytes // step) * step


def enabled_from_env(environ=os.environ) -> bool:
    """False when `TACK_CUDA_CACHE` is "off", "0", "false" or "no"."""
    return environ.get("TACK_CUDA_CACHE", "on").strip().lower() not in ("off", "0", "false", "no")


def limit_from_env(total_bytes: int, environ=os.environ) -> int:
    """The bound on idle cached bytes: `TACK_CUDA_CACHE_LIMIT` (bytes, with an optional K/M/G
    suffix of powers of 1024, or a percentage of `total_bytes`), 25% of the device by default."""
    text = environ.get("TACK_CUDA_CACHE_LIMIT", DEFAULT_LIMIT).strip()
    m = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([kKmMgG%]?)(?:i?[bB])?", text)
    if m is None:
        raise TackValueError(f"TACK_CUDA_CACHE_LIMIT={text!r}: write bytes (e.g. 1073741824, "
                             "512M, 4G) or a percentage of the device's memory (25%)")
    value, unit = float(m.group(1)), m.group(2).upper()
    if unit == "%":
        return int(total_bytes * value / 100)
    return int(value * {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}[unit])


class BlockCache:
    """Size-class free lists over a driver's `malloc(nbytes) -> ptr` and `free(ptr)`.

    `alloc(nbytes)` -> ptr, `release(ptr)` (a buffer's finalizer: any thread, never blocks),
    `share(ptr)` (exported: freed to the driver, not reused), `empty()` (every idle block to the
    driver), `close()` (empty, then no caching: the context's teardown), `stats()`."""

    def __init__(self, malloc, free, limit: int, enabled: bool = True, wait=None):
        self._malloc, self._free, self._wait = malloc, free, wait
        self.limit, self.enabled = int(limit), bool(enabled)
        self._lock = threading.Lock()
        self._live: dict[int, int] = {}  # ptr -> block size, of blocks buffers hold
        self._shared: set[int] = set()  # live blocks exported to other streams
        self._idle: dict[int, list[int]] = {}  # block size -> idle ptrs, the last freed last
        self._order: collections.OrderedDict[int, int] = collections.OrderedDict()  # oldest 1st
        self._returned: collections.deque = collections.deque()  # released, not yet filed
        self.cached_bytes = 0
        self.counts = collections.Counter()  # "reused", "driver_allocs", "driver_frees"

    # ---- what the engine calls ---------------------------------------------------------------
    def alloc(self, nbytes: int) -> int:
        """A block of at least `nbytes` bytes: an idle one of its size class, else the driver's
        (after emptying the cache once if the driver is out of memory)."""
        size = size_class(nbytes) if self.enabled else nbytes
        with self._lock:
            self._drain()
            idle = self._idle.get(size)
            if idle:
                ptr = idle.pop()
                del self._order[ptr]
                self.cached_bytes -= size
                self.counts["reused"] += 1
                self._live[ptr] = size
                return ptr
        ptr = None
        try:
            ptr = self._malloc(size)
        except MemoryError:
            if not self.empty():
                raise
        if ptr is None:
            ptr = self._malloc(size)  # once more with the cache empty; a refusal propagates
        with self._lock:
            self.counts["driver_allocs"] += 1
            self._live[ptr] = size
        return ptr

    def release(self, ptr: int) -> None:
        """A buffer's block is free again. Called from finalizers, so it never waits for the
        lock: the block is filed now if the lock is free, else by the next call that takes it."""
        self._returned.append(ptr)  # deque.append is atomic: no lock needed
        if self._lock.acquire(blocking=False):
            try:
                self._drain()
            finally:
                self._lock.release()

    def share(self, ptr: int) -> None:
        """The block at `ptr` is exported: when its buffer goes, it returns to the driver."""
        with self._lock:
            if ptr in self._live:
                self._shared.add(ptr)

    def empty(self) -> int:
        """Return every idle block to the driver (after queued work, when the cache was given a
        `wait`); the bytes freed."""
        with self._lock:
            self._drain()
            blocks = list(self._order.items())
            self._idle.clear()
            self._order.clear()
            self.cached_bytes = 0
            self.counts["driver_frees"] += len(blocks)
        if blocks and self._wait is not None:
            self._wait()
        for ptr, _ in blocks:
            self._free(ptr)
        return sum(size for _, size in blocks)

    def close(self) -> int:
        """Empty the cache and stop caching: blocks released later go to the driver."""
        self.enabled = False
        return self.empty()

    def stats(self) -> dict:
        """Bytes held by buffers and cached idle, the bound, and the counts of reuses, driver
        allocations and driver frees."""
        with self._lock:
            self._drain()
            return {"enabled": self.enabled, "allocated_bytes": sum(self._live.values()),
                    "cached_bytes": self.cached_bytes, "limit_bytes": self.limit,
                    "cached_blocks": len(self._order), "live_blocks": len(self._live),
                    "reused": self.counts["reused"],
                    "driver_allocs": self.counts["driver_allocs"],
                    "driver_frees": self.counts["driver_frees"]}

    # ---- the free lists (the lock is held) ----------------------------------------------------
    def _drain(self) -> None:
        while self._returned:
            self._file(self._returned.popleft())

    def _file(self, ptr: int) -> None:
        size = self._live.pop(ptr, None)
        if size is None:  # not ours (a double release would be a bug elsewhere): leave it
            return
        if ptr in self._shared or not self.enabled or size > self.limit:
            self._shared.discard(ptr)
            self._driver_free(ptr)
            return
        while self.cached_bytes + size > self.limit and self._order:
            old, old_size = self._order.popitem(last=False)
            self._idle[old_size].remove(old)
            self.cached_bytes -= old_size
            self._driver_free(old)
        self._idle.setdefault(size, []).append(ptr)
        self._order[ptr] = size
        self.cached_bytes += size

    def _driver_free(self, ptr: int) -> None:
        self.counts["driver_frees"] += 1
        self._free(ptr)


class CUDABuffer:
    """A device allocation (`ptr`, `nbytes`), freed when the last reference goes."""

    __slots__ = ("__weakref__", "_free", "nbytes", "owner", "ptr")

    def __init__(self, ptr: int, nbytes: int, free=None, owner=None):
        self.ptr, self.nbytes, self.owner = ptr, nbytes, owner
        self._free = weakref.finalize(self, free, ptr) if free is not None and ptr else None

    def __repr__(self) -> str:
        return f"CUDABuffer(ptr=0x{self.ptr:x}, nbytes={self.nbytes})"
