"""A native thread pool for CPU launches, written in LLVM IR over pthreads and JIT-compiled once.

Why native: waking Python threads costs 50-200 µs and they would need the GIL; these workers never
touch Python. The calling thread (inside a GIL-releasing ctypes call) takes part in every job.

`tack_pool_launch(pool, fn, args, begin, end, n_par, grain)` runs `fn(t0, t1, args)` (a kernel's CPU
entry) over [begin, end):
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
import re
import threading

from ..toolchain.objload import load_ir
from .cpu_threads import MAX_THREADS, check_num_threads  # noqa: F401 (re-exported)

# %Pool's fields; `$name` in the IR below becomes a GEP to that field of %p. The three hot words
# (open, next, active) get 64-byte lines of their own. pthread objects get 128 bytes each: enough
# for glibc, musl and macOS.
_LAYOUT = [("open", "i64"), ("pad0", "[7 x i64]"), ("next", "i64"), ("pad1", "[7 x i64]"),
           ("active", "i64"), ("pad2", "[7 x i64]"), ("fn", "ptr"), ("args", "ptr"),
           ("end", "i64"), ("chunk", "i64"), ("nworkers", "i64"), ("shutdown", "i64"),
           ("spin", "i64"), ("respawn", "i64"), ("lastid", "i64"), ("pad3", "i64"),
           ("mutex", "[128 x i8]"), ("cond", "[128 x i8]"), ("dispatch", "[128 x i8]")]
_FIELDS = {name: k for k, (name, _) in enumerate(_LAYOUT)}
_POOL_TYPE = "%Pool = type { " + ", ".join(t for _, t in _LAYOUT) + " }"

_POOL_IR = r"""
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

define internal void @relax() alwaysinline nounwind {
  @PAUSE@
  ret void
}

; Take chunks [s, min(s + chunk, end)) off `next` until it passes `end`.
define internal void @run_chunks(ptr %p) nounwind {
entry:
  %fnp = $fn
  %fn = load ptr, ptr %fnp, align 8
  %argsp = $args
  %args = load ptr, ptr %argsp, align 8
  %endp = $end
  %end = load i64, ptr %endp, align 8
  %chunkp = $chunk
  %chunk = load i64, ptr %chunkp, align 8
  %nextp = $next
  br label %loop
loop:
  %s = atomicrmw add ptr %nextp, i64 %chunk monotonic, align 8
  %more = icmp slt i64 %s, %end
  br i1 %more, label %body, label %done
body:
  %left = sub i64 %end, %s
  %short = icmp slt i64 %left, %chunk
  %len = select i1 %short, i64 %left, i64 %chunk
  %e = add i64 %s, %len
  call void %fn(i64 %s, i64 %e, ptr %args)
  br label %loop
done:
  ret void
}

; Wait for a job id other than 0 (closed) and `seen`: spin, then sleep on `cond`. Then enter
; the job (`active` += 1) and re-read `open`: if it is still open, the dispatcher cannot close and
; return until we leave, so the job's fields stay valid while we run chunks; if it closed, leave.
define internal ptr @worker(ptr %p) nounwind {
entry:
  %openp = $open
  %spinp = $spin
  %spin = load i64, ptr %spinp, align 8
  %mutex = $mutex
  %cond = $cond
  %activep = $active
  %sdp = $shutdown
  br label %wait
wait:
  %seen = phi i64 [0, %entry], [%seen1, %leave]
  br label %spinloop
spinloop:
  %i = phi i64 [0, %wait], [%i1, %spinnext]
  %o0 = load atomic i64, ptr %openp acquire, align 8
  %z0 = icmp ne i64 %o0, 0
  %d0 = icmp ne i64 %o0, %seen
  %new0 = and i1 %z0, %d0
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
  %o1 = load atomic i64, ptr %openp acquire, align 8
  %z1 = icmp ne i64 %o1, 0
  %d1 = icmp ne i64 %o1, %seen
  %new1 = and i1 %z1, %d1
  br i1 %new1, label %woke, label %dowait
dowait:
  call i32 @pthread_cond_wait(ptr %cond, ptr %mutex)
  br label %sleeploop
woke:
  call i32 @pthread_mutex_unlock(ptr %mutex)
  br label %got
got:
  %o = phi i64 [%o0, %spinloop], [%o1, %woke]
  %sd = load atomic i64, ptr %sdp acquire, align 8
  %stop = icmp ne i64 %sd, 0
  br i1 %stop, label %exit, label %enter
enter:
  atomicrmw add ptr %activep, i64 1 seq_cst, align 8
  %o2 = load atomic i64, ptr %openp seq_cst, align 8
  %still = icmp ne i64 %o2, 0
  br i1 %still, label %work, label %leave
work:
  call void @run_chunks(ptr %p)
  br label %leave
leave:
  %seen1 = select i1 %still, i64 %o2, i64 %o
  atomicrmw sub ptr %activep, i64 1 release, align 8
  br label %wait
exit:
  ret ptr null
}

; Publish job %id (or the shutdown id): store `open` under `mutex` and wake every sleeper.
define internal void @publish(ptr %p, i64 %id) nounwind {
entry:
  %mutex = $mutex
  %cond = $cond
  %openp = $open
  call i32 @pthread_mutex_lock(ptr %mutex)
  store atomic i64 %id, ptr %openp seq_cst, align 8
  call i32 @pthread_cond_broadcast(ptr %cond)
  call i32 @pthread_mutex_unlock(ptr %mutex)
  ret void
}

define internal i64 @next_id(ptr %p) nounwind {
entry:
  %idp = $lastid
  %id0 = load i64, ptr %idp, align 8
  %id = add i64 %id0, 1
  store i64 %id, ptr %idp, align 8
  ret i64 %id
}

; Start up to %k workers; `nworkers` counts those pthread_create made.
define internal void @spawn(ptr %p, i64 %k) nounwind {
entry:
  %tid = alloca ptr, align 8
  %nwp = $nworkers
  store i64 0, ptr %nwp, align 8
  br label %loop
loop:
  %i = phi i64 [0, %entry], [%i1, %made]
  %more = icmp slt i64 %i, %k
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
  ret void
}

; (Re)initialize: zero the counters, init the pthread objects, and ask for %k workers, made by the
; next parallel launch. After fork() the child calls this on the copied state (no workers there).
define void @tack_pool_init(ptr %p, i64 %k, i64 %spin) nounwind {
entry:
  %size = ptrtoint ptr getelementptr (%Pool, ptr null, i32 1) to i64
  call void @llvm.memset.p0.i64(ptr %p, i8 0, i64 %size, i1 false)
  %spinp = $spin
  store i64 %spin, ptr %spinp, align 8
  %respawnp = $respawn
  store i64 %k, ptr %respawnp, align 8
  %mutex = $mutex
  call i32 @pthread_mutex_init(ptr %mutex, ptr null)
  %cond = $cond
  call i32 @pthread_cond_init(ptr %cond, ptr null)
  %dispatch = $dispatch
  call i32 @pthread_mutex_init(ptr %dispatch, ptr null)
  ret void
}
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)

define ptr @tack_pool_create(i64 %k, i64 %spin) nounwind {
entry:
  %size = ptrtoint ptr getelementptr (%Pool, ptr null, i32 1) to i64
  %p = call ptr @calloc(i64 1, i64 %size)
  %null = icmp eq ptr %p, null
  br i1 %null, label %out, label %init
init:
  call void @tack_pool_init(ptr %p, i64 %k, i64 %spin)
  br label %out
out:
  ret ptr %p
}

; fn over [begin, end): serially on the caller when end - begin < n_par or the pool is busy with
; another thread's launch; otherwise split among the workers and the caller.
define void @tack_pool_launch(ptr %p, ptr %fn, ptr %args, i64 %begin, i64 %end, i64 %n_par,
                              i64 %grain) nounwind {
entry:
  %len = sub i64 %end, %begin
  %small = icmp slt i64 %len, %n_par
  br i1 %small, label %serial, label %try
try:
  %dispatch = $dispatch
  %busy = call i32 @pthread_mutex_trylock(ptr %dispatch)
  %isbusy = icmp ne i32 %busy, 0
  br i1 %isbusy, label %serial, label %ready
ready:
  %respawnp = $respawn
  %want = load i64, ptr %respawnp, align 8
  %lazy = icmp ne i64 %want, 0
  br i1 %lazy, label %dospawn, label %check
dospawn:
  call void @spawn(ptr %p, i64 %want)
  store i64 0, ptr %respawnp, align 8
  br label %check
check:
  %nwp = $nworkers
  %nw = load i64, ptr %nwp, align 8
  %alone = icmp eq i64 %nw, 0
  br i1 %alone, label %unlock_serial, label %go
unlock_serial:
  call i32 @pthread_mutex_unlock(ptr %dispatch)
  br label %serial
serial:
  call void %fn(i64 %begin, i64 %end, ptr %args)
  ret void
go:
  ; chunk = min(ceil(len / threads), max(grain, ceil(len / (4 threads)))), then a multiple of 64
  ; once large: up to 4 chunks per thread balance uneven work, but none smaller than `grain`
  ; (iterations worth a few µs, from the caller's timing), so regular kernels get one block each
  %threads = add i64 %nw, 1
  %even = call i64 @ceildiv(i64 %len, i64 %threads)
  %per4 = mul i64 %threads, 4
  %quarter = call i64 @ceildiv(i64 %len, i64 %per4)
  %c0 = call i64 @llvm.umax.i64(i64 %grain, i64 %quarter)
  %c1 = call i64 @llvm.umin.i64(i64 %c0, i64 %even)
  %big = icmp ugt i64 %c1, 64
  %c2 = add i64 %c1, 63
  %c3 = and i64 %c2, -64
  %chunk = select i1 %big, i64 %c3, i64 %c1
  %fnp = $fn
  store ptr %fn, ptr %fnp, align 8
  %argsp = $args
  store ptr %args, ptr %argsp, align 8
  %endp = $end
  store i64 %end, ptr %endp, align 8
  %chunkp = $chunk
  store i64 %chunk, ptr %chunkp, align 8
  %nextp = $next
  store atomic i64 %begin, ptr %nextp monotonic, align 8
  %id = call i64 @next_id(ptr %p)
  call void @publish(ptr %p, i64 %id)
  call void @run_chunks(ptr %p)
  ; every chunk is claimed now; close the job, then wait for the workers still inside it
  %openp = $open
  store atomic i64 0, ptr %openp seq_cst, align 8
  %activep = $active
  br label %join
join:
  %k = phi i64 [0, %go], [%k1, %relax], [%k1, %doyield]
  %act = load atomic i64, ptr %activep seq_cst, align 8
  %done = icmp eq i64 %act, 0
  br i1 %done, label %out, label %relax
relax:
  call void @relax()
  %k1 = add i64 %k, 1
  %lap = and i64 %k1, 1023
  %yield = icmp eq i64 %lap, 0
  br i1 %yield, label %doyield, label %join
doyield:
  call i32 @sched_yield()
  br label %join
out:
  call i32 @pthread_mutex_unlock(ptr %dispatch)
  ret void
}

declare i64 @llvm.umax.i64(i64, i64)
declare i64 @llvm.umin.i64(i64, i64)
define internal i64 @ceildiv(i64 %a, i64 %b) alwaysinline nounwind {
entry:
  %a1 = add i64 %a, %b
  %a2 = sub i64 %a1, 1
  %q = udiv i64 %a2, %b
  ret i64 %q
}

; The fan-out probe (cpu.fanout_ns): a streaming kernel over args = float*, like a small saxpy.
define void @tack_pool_probe(i64 %begin, i64 %end, ptr %args) nounwind {
entry:
  %go = icmp slt i64 %begin, %end
  br i1 %go, label %loop, label %done
loop:
  %i = phi i64 [%begin, %entry], [%i1, %loop]
  %q = getelementptr inbounds float, ptr %args, i64 %i
  %v = load float, ptr %q, align 4
  %w = fmul float %v, 0x3FE0000000000000
  %x = fadd float %w, 1.0
  store float %x, ptr %q, align 4
  %i1 = add i64 %i, 1
  %more = icmp slt i64 %i1, %end
  br i1 %more, label %loop, label %done
done:
  ret void
}

define i64 @tack_pool_workers(ptr %p) nounwind {
entry:
  %nwp = $nworkers
  %nw = load i64, ptr %nwp, align 8
  %respawnp = $respawn
  %want = load i64, ptr %respawnp, align 8
  %n = add i64 %nw, %want
  ret i64 %n
}

define void @tack_pool_noop(i64 %begin, i64 %end, ptr %args) nounwind {
entry:
  ret void
}

; atexit: keep `dispatch` locked forever (later launches run serially) and let the workers exit.
define void @tack_pool_shutdown(ptr %p) nounwind {
entry:
  %dispatch = $dispatch
  %busy = call i32 @pthread_mutex_trylock(ptr %dispatch)
  %isbusy = icmp ne i32 %busy, 0
  br i1 %isbusy, label %out, label %stop
stop:
  %sdp = $shutdown
  store atomic i64 1, ptr %sdp seq_cst, align 8
  %id = call i64 @next_id(ptr %p)
  call void @publish(ptr %p, i64 %id)
  br label %out
out:
  ret void
}
"""


def _pool_ir(pause: str) -> str:
    gep = "getelementptr inbounds %Pool, ptr %p, i32 0, i32 {}"
    body = re.sub(r"\$(\w+)", lambda m: gep.format(_FIELDS[m.group(1)]), _POOL_IR)
    return _POOL_TYPE + "\n" + body.replace("@PAUSE@", pause)


def _pause_asm() -> str:
    """A spin-wait hint: x86 `pause`, AArch64 `yield`; nothing elsewhere."""
    if hasattr(os, "uname"):
        m = os.uname().machine.lower()
    else:  # pragma: no cover - Windows
        import platform

        m = platform.machine().lower()
    if m in ("x86_64", "amd64", "i386", "i686"):
        return 'call void asm sideeffect "pause", "~{memory}"()'
    if m in ("aarch64", "arm64"):
        return 'call void asm sideeffect "yield", "~{memory}"()'
    return ""


_SYMBOLS = ("tack_pool_create", "tack_pool_init", "tack_pool_workers", "tack_pool_shutdown",
            "tack_pool_noop", "tack_pool_probe", "tack_pool_launch")
_c = ctypes


class _Native:
    """The pool functions, compiled once per machine: a later process maps them from the disk
    cache. Their code is never unmapped (workers may run it during interpreter teardown)."""

    def __init__(self):
        self.code = load_ir(_pool_ir(_pause_asm()), _SYMBOLS, "tack_pool", keep=True)
        addr = self.code.address
        i64, ptr = _c.c_int64, _c.c_void_p
        self.create = _c.CFUNCTYPE(ptr, i64, i64)(addr("tack_pool_create"))
        self.init = _c.CFUNCTYPE(None, ptr, i64, i64)(addr("tack_pool_init"))
        self.workers = _c.CFUNCTYPE(i64, ptr)(addr("tack_pool_workers"))
        self.shutdown = _c.CFUNCTYPE(None, ptr)(addr("tack_pool_shutdown"))
        self.noop, self.probe = addr("tack_pool_noop"), addr("tack_pool_probe")
        # launch(pool, fn, args, begin, end, n_par, grain); a CFUNCTYPE call releases the GIL.
        self.launch = _c.CFUNCTYPE(None, ptr, ptr, ptr, i64, i64, i64, i64)(
            addr("tack_pool_launch"))


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
