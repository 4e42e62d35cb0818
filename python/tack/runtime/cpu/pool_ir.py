"""The thread pool's code, as LLVM IR text over pthreads (pool.py compiles and drives it;
the protocol is described there). Kept apart from the Python side because it is long and is
read as one program.
"""
from __future__ import annotations

import os
import re

# %Pool's fields; `$name` in the IR below becomes a GEP to that field of %p. The three hot words
# (open, next, active) get 64-byte lines of their own. pthread objects get 128 bytes each: enough
# for glibc, musl and macOS.
_LAYOUT = [("open", "i64"), ("pad0", "[7 x i64]"), ("next", "i64"), ("pad1", "[7 x i64]"),
           ("active", "i64"), ("pad2", "[7 x i64]"), ("fn", "ptr"), ("args", "ptr"),
           ("end", "i64"), ("chunk", "i64"), ("nworkers", "i64"), ("shutdown", "i64"),
           ("spin", "i64"), ("respawn", "i64"), ("lastid", "i64"), ("sig0", "i64"),
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

; Ctrl-C: the SIGINT handler (interrupt.py installs it in front of Python's) calls Python's
; handler, then counts the signal in @sigints: a launcher that reads the count and then checks
; Python's pending signals (call.py's caller, interrupt.py) misses no signal between the two. A
; launch takes the count its launcher read before it began (`sig0`, never a later reading,
; which would count a signal that came in between as the baseline); its chunks stop being taken
; once the count differs, and tack_pool_launch returns 1. Each chunk's entry gets `sig0` too:
; kernels with polled loops compare the count with it (passes/polls.py).
@sigints = internal global i64 0
@tack_sigint_count = constant ptr @sigints
@prev_sigint = internal global ptr null

define void @tack_on_sigint(i32 %sig) nounwind {
entry:
  %h = load atomic ptr, ptr @prev_sigint acquire, align 8
  %none = icmp eq ptr %h, null
  br i1 %none, label %count, label %chain
chain:
  call void %h(i32 %sig)
  br label %count
count:
  atomicrmw add ptr @sigints, i64 1 seq_cst, align 8
  ret void
}

define void @tack_set_prev_sigint(ptr %h) nounwind {
entry:
  store atomic ptr %h, ptr @prev_sigint release, align 8
  ret void
}

define i64 @tack_sigints() nounwind {
entry:
  %n = load atomic i64, ptr @sigints acquire, align 8
  ret i64 %n
}

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
  %sig0p = $sig0
  %sig0 = load i64, ptr %sig0p, align 8
  br label %loop
loop:
  %sig = load atomic i64, ptr @sigints monotonic, align 8
  %interrupted = icmp ne i64 %sig, %sig0
  br i1 %interrupted, label %done, label %take
take:
  %s = atomicrmw add ptr %nextp, i64 %chunk monotonic, align 8
  %more = icmp slt i64 %s, %end
  br i1 %more, label %body, label %done
body:
  %left = sub i64 %end, %s
  %short = icmp slt i64 %left, %chunk
  %len = select i1 %short, i64 %left, i64 %chunk
  %e = add i64 %s, %len
  call void %fn(i64 %s, i64 %e, ptr %args, i64 %sig0)
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
; Returns 1 if the SIGINT count differs from `sig0` at its end (chunks were left out, or a
; polled loop returned early), else 0.
define i64 @tack_pool_launch(ptr %p, ptr %fn, ptr %args, i64 %begin, i64 %end, i64 %n_par,
                             i64 %grain, i64 %sig0) nounwind {
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
  call void %fn(i64 %begin, i64 %end, ptr %args, i64 %sig0)
  %sigs1 = load atomic i64, ptr @sigints acquire, align 8
  %sstopped = icmp ne i64 %sigs1, %sig0
  %sret = zext i1 %sstopped to i64
  ret i64 %sret
go:
  %sig0p = $sig0
  store i64 %sig0, ptr %sig0p, align 8
  ; chunk = min(ceil(len / threads), max(grain, ceil(len / (4 threads))), 4096 grain), then a
  ; multiple of 64 once large: up to 4 chunks per thread balance uneven work, but none smaller
  ; than `grain` (iterations worth a few µs, from the caller's timing), so regular kernels get
  ; one block each, and none larger than 4096 grains (~16 ms: how soon Ctrl-C stops a launch)
  %threads = add i64 %nw, 1
  %even = call i64 @ceildiv(i64 %len, i64 %threads)
  %per4 = mul i64 %threads, 4
  %quarter = call i64 @ceildiv(i64 %len, i64 %per4)
  %c0 = call i64 @llvm.umax.i64(i64 %grain, i64 %quarter)
  %c1a = call i64 @llvm.umin.i64(i64 %c0, i64 %even)
  ; and at most 4096 grains (~16 ms): a SIGINT stops the launch at the next chunk boundary
  %capok = icmp ult i64 %grain, 2251799813685248
  %cap0 = shl i64 %grain, 12
  %cap = select i1 %capok, i64 %cap0, i64 %grain
  %c1 = call i64 @llvm.umin.i64(i64 %c1a, i64 %cap)
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
  %sigend = load atomic i64, ptr @sigints acquire, align 8
  %stopped = icmp ne i64 %sigend, %sig0
  %ret = zext i1 %stopped to i64
  ret i64 %ret
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
define void @tack_pool_probe(i64 %begin, i64 %end, ptr %args, i64 %sig0) nounwind {
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

define void @tack_pool_noop(i64 %begin, i64 %end, ptr %args, i64 %sig0) nounwind {
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


def pool_ir(pause: str) -> str:
    gep = "getelementptr inbounds %Pool, ptr %p, i32 0, i32 {}"
    body = re.sub(r"\$(\w+)", lambda m: gep.format(_FIELDS[m.group(1)]), _POOL_IR)
    return _POOL_TYPE + "\n" + body.replace("@PAUSE@", pause)


def pause_asm() -> str:
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
