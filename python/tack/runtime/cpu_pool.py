"""A native thread pool for CPU launches, written in LLVM IR over pthreads and JIT-compiled once.

Why native: waking Python threads costs 50-200 µs and they would need the GIL; these workers never
touch Python. The calling thread (inside a GIL-releasing ctypes call) takes part in every job.

Protocol (state in one calloc'ed `%Pool`, never freed, so a late worker never reads freed memory):
  * job: `fn(t_begin, t_end, args)` (the kernel's CPU entry) over [0, n) in chunks of `chunk`,
    handed out by `atomicrmw add` on `next`, so uneven iterations balance themselves.
  * `tack_pool_run` trylocks `dispatch` (another launch is using the pool → returns 0 and the
    caller runs serially: a second Python thread never waits and nothing can deadlock), writes
    the job, sets `pending` = workers, bumps `gen` (release) under `mutex` and broadcasts `cond`.
    It then works on chunks itself and waits (spin, then sched_yield) until `pending` is 0: each
    worker decrements it after its last chunk, so no worker still reads the job when it returns.
  * workers poll `gen` (acquire) for `spin` rounds of `pause`, then sleep on `cond` under `mutex`
    (the bump is under `mutex`, so no wakeup is lost). Back-to-back launches find them spinning.
  * `tack_pool_shutdown` (atexit) trylocks `dispatch` and never unlocks it, sets `shutdown` and
    bumps `gen`: workers exit, and later runs fall back to serial.
The engine holding this code is deliberately leaked (never freed) so that no thread can ever be
inside freed code, even during interpreter teardown.
"""
from __future__ import annotations

import atexit
import ctypes
import ctypes.util
import functools
import os
import platform
import threading

import llvmlite.binding as llvm

from ..render.llvm import host_target_machine, optimize_module

# Field indices of %Pool; hot fields sit on separate 64-byte lines.
_POOL_IR = r"""
%Pool = type { i64, [7 x i64], i64, [7 x i64], i64, [7 x i64], ptr, ptr, i64, i64, i64, i64, i64,
               [3 x i64], [128 x i8], [128 x i8], [128 x i8] }
; 0 gen | 2 next | 4 pending | 6 fn | 7 args | 8 n | 9 chunk | 10 nworkers | 11 shutdown | 12 spin
; 14 mutex | 15 cond | 16 dispatch   (pthread objects: 128 bytes covers glibc, musl and macOS)

declare ptr @calloc(i64, i64)
declare i32 @pthread_create(ptr, ptr, ptr, ptr)
declare i32 @pthread_detach(ptr)
declare i32 @pthread_mutex_init(ptr, ptr)
declare i32 @pthread_mutex_lock(ptr)
declare i32 @pthread_mutex_trylock(ptr)
declare i32 @pthread_mutex_unlock(ptr)
declare i32 @pthread_cond_init(ptr, ptr)
declare i32 @pthread_cond_wait(ptr, ptr)
declare i32 @pthread_cond_broadcast(ptr)
declare i32 @sched_yield()

define internal void @relax() alwaysinline {
  @PAUSE@
  ret void
}
"""


def _pool_ir(pause: str) -> str:
    f = "getelementptr inbounds %Pool, ptr %p, i32 0, i32 "
    return _POOL_IR.replace("@PAUSE@", pause) + f"""
define internal void @run_chunks(ptr %p) nounwind {{
entry:
  %fnp = {f}6
  %fn = load ptr, ptr %fnp, align 8
  %argsp = {f}7
  %args = load ptr, ptr %argsp, align 8
  %np = {f}8
  %n = load i64, ptr %np, align 8
  %chunkp = {f}9
  %chunk = load i64, ptr %chunkp, align 8
  %nextp = {f}2
  br label %loop
loop:
  %s = atomicrmw add ptr %nextp, i64 %chunk monotonic, align 8
  %more = icmp slt i64 %s, %n
  br i1 %more, label %body, label %done
body:
  %left = sub i64 %n, %s
  %short = icmp slt i64 %left, %chunk
  %len = select i1 %short, i64 %left, i64 %chunk
  %e = add i64 %s, %len
  call void %fn(i64 %s, i64 %e, ptr %args)
  br label %loop
done:
  ret void
}}

define internal ptr @worker(ptr %p) nounwind {{
entry:
  %genp = {f}0
  %spinp = {f}12
  %spin = load i64, ptr %spinp, align 8
  %mutex = {f}14
  %cond = {f}15
  br label %wait
wait:
  %seen = phi i64 [0, %entry], [%g, %finish]
  br label %spinloop
spinloop:
  %i = phi i64 [0, %wait], [%i1, %spinnext]
  %g0 = load atomic i64, ptr %genp acquire, align 8
  %new0 = icmp ne i64 %g0, %seen
  br i1 %new0, label %got, label %spinnext
spinnext:
  call void @relax()
  %i1 = add i64 %i, 1
  %more = icmp ult i64 %i1, %spin
  br i1 %more, label %spinloop, label %sleep
sleep:
  call i32 @pthread_mutex_lock(ptr %mutex)
  br label %sleeploop
sleeploop:
  %g1 = load atomic i64, ptr %genp acquire, align 8
  %new1 = icmp ne i64 %g1, %seen
  br i1 %new1, label %woke, label %dowait
dowait:
  call i32 @pthread_cond_wait(ptr %cond, ptr %mutex)
  br label %sleeploop
woke:
  call i32 @pthread_mutex_unlock(ptr %mutex)
  br label %got
got:
  %g = phi i64 [%g0, %spinloop], [%g1, %woke]
  %sdp = {f}11
  %sd = load atomic i64, ptr %sdp acquire, align 8
  %stop = icmp ne i64 %sd, 0
  br i1 %stop, label %exit, label %work
work:
  call void @run_chunks(ptr %p)
  br label %finish
finish:
  %pendp = {f}4
  atomicrmw sub ptr %pendp, i64 1 acq_rel, align 8
  br label %wait
exit:
  ret ptr null
}}

define i32 @tack_pool_run(ptr %p, ptr %fn, ptr %args, i64 %n, i64 %chunk) nounwind {{
entry:
  %dispatch = {f}16
  %busy = call i32 @pthread_mutex_trylock(ptr %dispatch)
  %isbusy = icmp ne i32 %busy, 0
  br i1 %isbusy, label %refuse, label %go
refuse:
  ret i32 0
go:
  %fnp = {f}6
  store ptr %fn, ptr %fnp, align 8
  %argsp = {f}7
  store ptr %args, ptr %argsp, align 8
  %np = {f}8
  store i64 %n, ptr %np, align 8
  %chunkp = {f}9
  store i64 %chunk, ptr %chunkp, align 8
  %nextp = {f}2
  store atomic i64 0, ptr %nextp monotonic, align 8
  %nwp = {f}10
  %nw = load i64, ptr %nwp, align 8
  %pendp = {f}4
  store atomic i64 %nw, ptr %pendp monotonic, align 8
  call void @bump(ptr %p)
  call void @run_chunks(ptr %p)
  br label %join
join:
  %k = phi i64 [0, %go], [%k1, %relax]
  %pend = load atomic i64, ptr %pendp acquire, align 8
  %done = icmp eq i64 %pend, 0
  br i1 %done, label %out, label %relax
relax:
  call void @relax()
  %k1 = add i64 %k, 1
  %lap = and i64 %k1, 1023
  %yield = icmp eq i64 %lap, 0
  br i1 %yield, label %doyield, label %join
doyield:
  call i32 @sched_yield()
  br label %relax
out:
  call i32 @pthread_mutex_unlock(ptr %dispatch)
  ret i32 1
}}

; Publish a new job (or shutdown): bump `gen` under `mutex` and wake every sleeper.
define internal void @bump(ptr %p) nounwind {{
entry:
  %mutex = {f}14
  %cond = {f}15
  %genp = {f}0
  call i32 @pthread_mutex_lock(ptr %mutex)
  %g = load atomic i64, ptr %genp monotonic, align 8
  %g1 = add i64 %g, 1
  store atomic i64 %g1, ptr %genp release, align 8
  call i32 @pthread_cond_broadcast(ptr %cond)
  call i32 @pthread_mutex_unlock(ptr %mutex)
  ret void
}}

; Returns the pool, with as many workers as pthread_create allowed (nworkers field).
define ptr @tack_pool_create(i64 %nworkers, i64 %spin) nounwind {{
entry:
  %size = ptrtoint ptr getelementptr (%Pool, ptr null, i32 1) to i64
  %p = call ptr @calloc(i64 1, i64 %size)
  %tid = alloca ptr, align 8
  %spinp = {f}12
  store i64 %spin, ptr %spinp, align 8
  %mutex = {f}14
  call i32 @pthread_mutex_init(ptr %mutex, ptr null)
  %cond = {f}15
  call i32 @pthread_cond_init(ptr %cond, ptr null)
  %dispatch = {f}16
  call i32 @pthread_mutex_init(ptr %dispatch, ptr null)
  %nwp = {f}10
  br label %loop
loop:
  %i = phi i64 [0, %entry], [%i1, %made]
  %more = icmp slt i64 %i, %nworkers
  br i1 %more, label %make, label %done
make:
  %rc = call i32 @pthread_create(ptr %tid, ptr null, ptr @worker, ptr %p)
  %ok = icmp eq i32 %rc, 0
  br i1 %ok, label %made, label %done
made:
  %t = load ptr, ptr %tid, align 8
  call i32 @pthread_detach(ptr %t)
  %i1 = add i64 %i, 1
  store i64 %i1, ptr %nwp, align 8
  br label %loop
done:
  ret ptr %p
}}

define i64 @tack_pool_workers(ptr %p) nounwind {{
entry:
  %nwp = {f}10
  %nw = load i64, ptr %nwp, align 8
  ret i64 %nw
}}

define void @tack_pool_shutdown(ptr %p) nounwind {{
entry:
  %dispatch = {f}16
  %busy = call i32 @pthread_mutex_trylock(ptr %dispatch)
  %isbusy = icmp ne i32 %busy, 0
  br i1 %isbusy, label %out, label %stop
stop:
  %sdp = {f}11
  store atomic i64 1, ptr %sdp release, align 8
  call void @bump(ptr %p)
  br label %out
out:
  ret void
}}
"""


def _pause_asm() -> str:
    """A spin-wait hint: x86 `pause`, AArch64 `yield`; nothing elsewhere."""
    m = platform.machine().lower()
    if m in ("x86_64", "amd64", "i386", "i686"):
        return 'call void asm sideeffect "pause", "~{memory}"()'
    if m in ("aarch64", "arm64"):
        return 'call void asm sideeffect "yield", "~{memory}"()'
    return ""


@functools.cache
def load_system_libraries() -> None:
    """Make libm/libc/libpthread symbols resolvable by MCJIT (tanf, fmod, pthread_create...)."""
    for name in ("m", "c", "pthread"):
        path = ctypes.util.find_library(name)
        if path:
            try:
                llvm.load_library_permanently(path)
            except RuntimeError:  # e.g. libpthread folded into libc: nothing to load
                pass


_LEAKED: list = []  # engines whose code must outlive every thread (never freed)


class _Native:
    """The JIT-compiled pool functions, compiled once per process."""

    def __init__(self):
        load_system_libraries()
        tm = host_target_machine(jit=True)
        mod = optimize_module(llvm.parse_assembly(_pool_ir(_pause_asm())), host_target_machine())
        engine = llvm.create_mcjit_compiler(mod, tm)
        engine.finalize_object()
        _LEAKED.append(engine)
        ctypes.pythonapi.Py_IncRef(ctypes.py_object(engine))  # survive module teardown too
        addr = engine.get_function_address
        c_int64, c_void_p = ctypes.c_int64, ctypes.c_void_p
        self.create = ctypes.CFUNCTYPE(c_void_p, c_int64, c_int64)(addr("tack_pool_create"))
        self.workers = ctypes.CFUNCTYPE(c_int64, c_void_p)(addr("tack_pool_workers"))
        self.shutdown = ctypes.CFUNCTYPE(None, c_void_p)(addr("tack_pool_shutdown"))
        self.run_addr = addr("tack_pool_run")
        self.run = ctypes.CFUNCTYPE(ctypes.c_int, c_void_p, c_void_p, c_void_p, c_int64,
                                    c_int64)(self.run_addr)


@functools.cache
def native() -> _Native:
    return _Native()


class Pool:
    """`num_threads - 1` native workers; the launching thread is the last worker."""

    def __init__(self, num_threads: int, spin: int):
        self.num_threads = num_threads
        self.ptr = native().create(num_threads - 1, spin)
        if not self.ptr:
            raise MemoryError("tack: cannot allocate the CPU thread pool")
        self.workers = native().workers(self.ptr)

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


def _forget_after_fork() -> None:
    # The child has no worker threads: its pools must be rebuilt (old state is leaked).
    global _pools_lock
    _pools.clear()
    _pools_lock = threading.Lock()


atexit.register(_shutdown_all)
os.register_at_fork(after_in_child=_forget_after_fork)
