"""A native thread pool for CPU launches, written in LLVM IR over pthreads and JIT-compiled once.

Why native: waking Python threads costs 50-200 µs and they would need the GIL; these workers never
touch Python. The calling thread (inside a GIL-releasing ctypes call) takes part in every job.

`tack_pool_launch(pool, fn, args, begin, end, n_par, grain, sig0)` runs `fn(t0, t1, args, sig0)` (a
kernel's CPU entry; `sig0` is the SIGINT count the launcher read, interrupt.py) over [begin, end):
  * serially on the caller when end - begin < n_par (the adaptive policy's one compare), or when
    `dispatch` is already held by another thread's launch (trylock: a second Python thread never
    waits on the pool, so launches from several threads cannot deadlock);
  * otherwise it writes the job, publishes a fresh job id in `open` under `mutex`, broadcasts
    `cond`, and takes chunks itself (`atomicrmw add` on `next`: uneven iterations balance). When
    `next` passes the end it closes the job (`open` = 0) and waits (pause, then sched_yield) for
    `active` to drop to 0. It never waits for a worker that has not woken yet: a worker enters by
    `active` += 1 and then re-reads `open` (seq_cst on both sides, Dekker-style), so either the
    dispatcher sees it and waits for its chunk, or it sees the job closed and leaves. This matters:
    waking a sleeping worker took 100-450 µs on the test VM.
Workers poll `open` (acquire) for `spin` rounds of `pause`, then sleep on `cond` under `mutex` (the
publish holds `mutex`, so no wakeup is lost): back-to-back launches find them spinning.
The state (`%Pool`, calloc'ed) and the pages holding this code are never freed, so no thread can
ever touch freed memory or code, even during interpreter teardown. atexit: `tack_pool_shutdown`
keeps `dispatch` locked (later launches run serially) and lets the workers exit. fork(): the child
re-initializes the state in place and restarts its workers on its first parallel launch.
"""
from __future__ import annotations

import atexit
import ctypes
import functools
import os
import threading

from ...toolchain.objload import load_ir
from .threads import MAX_THREADS, check_num_threads  # noqa: F401 (re-exported)

_SYMBOLS = ("tack_pool_create", "tack_pool_init", "tack_pool_workers", "tack_pool_shutdown",
            "tack_pool_noop", "tack_pool_probe", "tack_pool_launch", "tack_on_sigint",
            "tack_set_prev_sigint", "tack_sigints", "tack_sigint_count")
_c = ctypes


class _Native:
    """The pool functions, compiled once per machine: a later process maps them from the disk
    cache. Their code is never unmapped (workers may run it during interpreter teardown)."""

    def __init__(self):
        # Loaded with the pool, not with the engine: a first call that stays serial (most
        # first calls) needs neither the pool's IR nor the SIGINT machinery (`signal`, ~1 ms).
        from . import interrupt as cpu_interrupt
        from .pool_ir import pause_asm, pool_ir

        self.code = load_ir(pool_ir(pause_asm()), _SYMBOLS, "tack_pool", keep=True,
                            words=("tack_sigint_count",))
        addr = self.code.address
        i64, ptr = _c.c_int64, _c.c_void_p
        self.create = _c.CFUNCTYPE(ptr, i64, i64)(addr("tack_pool_create"))
        self.init = _c.CFUNCTYPE(None, ptr, i64, i64)(addr("tack_pool_init"))
        self.workers = _c.CFUNCTYPE(i64, ptr)(addr("tack_pool_workers"))
        self.shutdown = _c.CFUNCTYPE(None, ptr)(addr("tack_pool_shutdown"))
        self.noop, self.probe = addr("tack_pool_noop"), addr("tack_pool_probe")
        # launch(pool, fn, args, begin, end, n_par, grain, sig0); a CFUNCTYPE call releases the
        # GIL. It returns 1 if a SIGINT stopped it (interrupt.py).
        self.launch = _c.CFUNCTYPE(i64, ptr, ptr, ptr, i64, i64, i64, i64, i64)(
            addr("tack_pool_launch"))
        self.sigints = _c.CFUNCTYPE(i64)(addr("tack_sigints"))
        # The count's address, which kernels with polled loops read (passes/polls.py)
        self.sigint_count = _c.c_void_p.from_address(addr("tack_sigint_count")).value
        self.interruptible = cpu_interrupt.install(
            addr("tack_on_sigint"), _c.CFUNCTYPE(None, ptr)(addr("tack_set_prev_sigint")))


@functools.cache
def native() -> _Native:
    return _Native()


class Pool:
    """`num_threads - 1` native workers (started by the first parallel launch); the launching
    thread is the last worker."""

    def __init__(self, num_threads: int, spin: int):
        self.num_threads, self.spin = num_threads, spin
        self.ptr = native().create(num_threads - 1, spin)
        if not self.ptr:
            raise MemoryError("tack: cannot allocate the CPU thread pool")

    def workers(self) -> int:
        return native().workers(self.ptr)

    def after_fork(self) -> None:
        native().init(self.ptr, self.num_threads - 1, self.spin)

    def shutdown(self) -> None:
        native().shutdown(self.ptr)


DEFAULT_SPIN = 1 << 14  # rounds of `pause` a worker polls before sleeping (see 002-cpu-engine.md)
_pools: dict[int, Pool] = {}
_pools_lock = threading.Lock()


def get_pool(num_threads: int, spin: int = DEFAULT_SPIN) -> Pool:
    """The process's pool with `num_threads` threads (workers + caller), made on first use."""
    with _pools_lock:
        pool = _pools.get(num_threads)
        if pool is None:
            pool = _pools[num_threads] = Pool(num_threads, spin)
        return pool


def _shutdown_all() -> None:
    for pool in list(_pools.values()):
        pool.shutdown()


def _after_fork_in_child() -> None:
    # The child has none of the parent's threads: reset each pool's state in place (a launch that
    # was in flight in the parent may have left its locks held); workers restart lazily.
    global _pools_lock
    _pools_lock = threading.Lock()
    for pool in _pools.values():
        pool.after_fork()


atexit.register(_shutdown_all)
os.register_at_fork(after_in_child=_after_fork_in_child)
