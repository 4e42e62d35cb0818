"""The CUDA engine's caching allocator (runtime/cuda/alloc.py) over a fake driver: size classes,
reuse, the bound, exported blocks, out-of-memory recovery, turning it off, teardown, finalizers
and threads. No GPU: tests/cuda/test_cuda_alloc_gpu.py runs it on one."""
from __future__ import annotations

import gc
import subprocess
import sys
import threading

import pytest
import tack
from tack.errors import TackValueError
from tack.runtime.cuda.alloc import (
    BlockCache,
    CUDABuffer,
    enabled_from_env,
    limit_from_env,
    size_class,
)

MiB = 1 << 20


class FakeDriver:
    """cuMemAlloc / cuMemFree over a counter of addresses, with an optional capacity."""

    def __init__(self, capacity: int | None = None):
        self.capacity, self.next, self.live = capacity, 1 << 20, {}
        self.allocs, self.frees, self.waits = [], [], 0

    def malloc(self, nbytes: int) -> int:
        if self.capacity is not None and sum(self.live.values()) + nbytes > self.capacity:
            raise MemoryError(f"out of memory ({nbytes} bytes)")
        ptr, self.next = self.next, self.next + nbytes + 4096
        self.live[ptr] = nbytes
        self.allocs.append(nbytes)
        return ptr

    def free(self, ptr: int) -> None:
        assert ptr in self.live, "freed twice or never allocated"
        self.frees.append(self.live.pop(ptr))

    def wait(self) -> None:
        self.waits += 1


def cache(limit=64 * MiB, enabled=True, capacity=None):
    d = FakeDriver(capacity)
    return BlockCache(d.malloc, d.free, limit, enabled, wait=d.wait), d


@pytest.mark.parametrize("nbytes, block", [
    (1, 512), (512, 512), (513, 1024), (4000, 4096), (MiB, MiB), (MiB + 1, MiB + MiB // 4),
    (3 * MiB, 3 * MiB), (5 * MiB, 5 * MiB), (5 * MiB + 1, 6 * MiB), (1 << 33, 1 << 33)])
def test_size_classes(nbytes, block):
    assert size_class(nbytes) == block
    assert block - nbytes <= max(511, nbytes // 4)  # at most a quarter more than asked


def test_a_released_block_is_reused_by_the_next_allocation_of_its_class():
    c, d = cache()
    a = c.alloc(1000)
    c.release(a)
    assert c.alloc(900) == a  # the same 1024-byte class
    assert d.allocs == [1024] and d.frees == []
    b = c.alloc(1000)  # the class's only block is in use: a new one
    assert b != a and d.allocs == [1024, 1024]
    s = c.stats()
    assert s["reused"] == 1 and s["driver_allocs"] == 2 and s["allocated_bytes"] == 2048
    assert s["cached_bytes"] == 0 and s["live_blocks"] == 2


def test_the_last_freed_block_of_a_class_is_reused_first():
    c, _ = cache()
    a, b = c.alloc(100), c.alloc(100)
    c.release(a)
    c.release(b)
    assert c.alloc(100) == b and c.alloc(100) == a


def test_another_class_gets_a_new_block():
    c, d = cache()
    c.release(c.alloc(1000))
    c.alloc(5000)
    assert d.allocs == [1024, 5120] and c.stats()["cached_bytes"] == 1024


def test_the_bound_returns_the_oldest_idle_blocks_to_the_driver():
    c, d = cache(limit=3 * 4096)
    blocks = [c.alloc(4096) for _ in range(4)]
    for p in blocks:
        c.release(p)
    assert d.frees == [4096] and c.stats()["cached_bytes"] == 3 * 4096
    assert c.alloc(4096) == blocks[3]  # the first released went to the driver
    big = c.alloc(4 * 4096)  # larger than the bound: never cached
    c.release(big)
    assert d.frees == [4096, 4 * 4096] and c.stats()["cached_blocks"] == 2


def test_a_limit_of_zero_caches_nothing():
    c, d = cache(limit=0)
    c.release(c.alloc(100))
    assert d.frees == [512] and c.stats()["cached_bytes"] == 0


def test_an_exported_block_goes_back_to_the_driver():
    c, d = cache()
    a = c.alloc(1000)
    c.share(a)
    c.release(a)
    assert d.frees == [1024] and c.alloc(1000) != a
    c.share(12345)  # not a live block: nothing to mark


def test_out_of_memory_empties_the_cache_and_tries_again():
    c, d = cache(capacity=3 * MiB)
    c.release(c.alloc(MiB))
    c.release(c.alloc(2 * MiB // 3))  # a second class: two idle blocks, 1.75 MiB cached
    live = c.alloc(MiB // 2)
    got = c.alloc(2 * MiB)  # fits only once the idle blocks are gone
    assert d.waits == 1  # queued work was waited for before the cached blocks went
    assert sorted(d.frees) == sorted([MiB, size_class(2 * MiB // 3)])
    assert c.stats()["cached_bytes"] == 0 and {live, got} <= set(d.live)
    with pytest.raises(MemoryError):
        c.alloc(2 * MiB)  # nothing left to free: the driver's refusal propagates


def test_out_of_memory_with_an_empty_cache_raises_at_once():
    c, d = cache(capacity=MiB)
    with pytest.raises(MemoryError):
        c.alloc(2 * MiB)
    assert d.waits == 0


def test_turned_off_every_buffer_is_its_own_driver_allocation():
    c, d = cache(enabled=False)
    a = c.alloc(1000)
    c.release(a)
    c.alloc(1000)
    assert d.allocs == [1000, 1000] and d.frees == [1000]
    assert c.stats()["enabled"] is False and c.stats()["reused"] == 0


def test_empty_and_close():
    c, d = cache()
    a, b = c.alloc(100), c.alloc(MiB)
    c.release(a)
    assert c.empty() == 512 and d.frees == [512] and d.waits == 1
    assert c.empty() == 0 and d.waits == 1  # nothing idle: nothing to wait for
    c.release(c.alloc(100))
    assert c.close() == 512
    c.release(b)  # after teardown, blocks go straight back
    assert d.frees == [512, 512, MiB] and c.stats()["cached_bytes"] == 0


def test_a_release_never_waits_for_the_lock():
    c, _ = cache()
    a = c.alloc(100)
    with c._lock:  # another thread (or an allocation this finalizer interrupted) holds it
        c.release(a)
        assert a in c._returned
    assert c.stats()["cached_blocks"] == 1 and c.alloc(100) == a


def test_a_buffer_returns_its_block_when_it_goes():
    c, _ = cache()
    buf = CUDABuffer(c.alloc(100), 100, c.release)
    ptr = buf.ptr
    assert repr(buf) == f"CUDABuffer(ptr=0x{ptr:x}, nbytes=100)"
    del buf
    gc.collect()
    assert c.stats()["cached_blocks"] == 1 and c.alloc(64) == ptr
    assert CUDABuffer(0, 0)._free is None


def test_threads_never_share_a_block():
    c, d = cache(limit=8 * 4096)
    errors, held = [], set()
    lock = threading.Lock()

    def work():
        try:
            for k in range(300):
                p = c.alloc(512 * (1 + k % 16))
                with lock:
                    assert p not in held, "a block handed out twice"
                    held.add(p)
                with lock:
                    held.discard(p)
                c.release(p)
        except AssertionError as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    s = c.stats()
    assert not errors and s["live_blocks"] == 0 and s["cached_bytes"] <= 8 * 4096
    assert s["driver_allocs"] - s["driver_frees"] == s["cached_blocks"] == len(d.live)


@pytest.mark.parametrize("text, limit", [
    (None, 25 * MiB), ("1048576", MiB), ("512M", 512 * MiB), ("4G", 4 << 30), ("2GiB", 2 << 30),
    ("64k", 64 << 10), ("10%", 10 * MiB), ("0", 0), (" 1.5G ", 3 << 29)])
def test_the_limit_from_the_environment(text, limit):
    env = {} if text is None else {"TACK_CUDA_CACHE_LIMIT": text}
    assert limit_from_env(100 * MiB, env) == limit


@pytest.mark.parametrize("text", ["lots", "-1", "5T", "1e9"])
def test_a_bad_limit_is_refused_naming_the_variable(text):
    with pytest.raises(TackValueError, match="TACK_CUDA_CACHE_LIMIT"):
        limit_from_env(MiB, {"TACK_CUDA_CACHE_LIMIT": text})


@pytest.mark.parametrize("text, on", [(None, True), ("on", True), ("1", True), ("off", False),
                                      ("OFF", False), ("0", False), ("no", False)])
def test_turning_the_cache_off(text, on):
    assert enabled_from_env({} if text is None else {"TACK_CUDA_CACHE": text}) is on


def test_tack_cuda_without_a_started_gpu():
    # in a fresh process: earlier tests in this one may have started a CUDA engine (on a GPU)
    code = "import tack; print(tack.cuda.empty_cache())"
    got = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=True)
    assert got.stdout.strip() == "0"  # no CUDA engine started: nothing cached
    with pytest.raises(TackValueError, match="not one"):
        tack.cuda.empty_cache("sim")
    with pytest.raises(TackValueError, match="native CUDA devices"):
        tack.cuda.memory_stats(tack.device("cpu"))
