"""The native CPU engine: KernelIR → LLVM IR → O3 → object code, launched through a ctypes caller.

    engine = CPUEngine(num_threads=None)      # None: TACK_CPU_THREADS, else os.cpu_count()
    kernel = engine.compile(kir)              # CPUKernel; .llvm_ir, .optimized_ir (lazy)
    kernel.launch(args, n)                    # args in kir.params order: array → data address
                                              # (int), scalar → Python/NumPy int or float

A launch packs the arguments into a prebuilt buffer of 8-byte slots (one `struct.pack_into`) and
makes one GIL-releasing ctypes call: the kernel entry itself on the calling thread, or
`tack_pool_launch` (pool.py), which splits the range over the native pool. The adaptive policy
(docs/design/002-cpu-engine.md): per pool, the fan-out cost F of a parallel launch is measured
once; per kernel, the first two launches time serial prefixes (~10 µs each) for the cost per
iteration c; from then on a launch of n goes parallel iff n >= n_par = SAFETY * F / (c (1 - 1/P)):
one compare per launch. The pool is started, and F measured, by the first launch whose serial
rest would cost more than starting it (POOL_START_NS), so a process that only makes small
launches, like most first calls, never pays for them; until then n_par assumes F_PRIOR_NS.
Warm launches through tack.call.fast call the kernel's native caller (call.py), not ctypes.

The object code comes from toolchain/objload.py: from the disk cache (tack.cache) when an earlier
process compiled the same KernelIR for this target with this Tack, mapped without rendering and
without loading LLVM at all; otherwise rendered, compiled by llvmlite and stored
(docs/design/005-disk-cache.md).
"""
from __future__ import annotations

import ctypes
import math
import os
import threading
import time

from ... import cache
from ... import dtypes as d
from ...capabilities import workgroup_features
from ...errors import TackRuntimeError, TackValueError
from ...ir.nodes import Expr, KernelIR, Loc, Param, Store
from ...ir.ops import Op
from ...ir.printer import kernel_str
from ...toolchain import llvm_host, objload
from ..base import Engine, Launchable
from ..host import HostMemory
from ..packing import PACK_ERRORS, layout, pack_slow
from ..registry import NATIVE_CPU
from . import call as cpu_call
from . import record as cpu_record
from . import threads as cpu_threads
from .symbols import entry_symbol, nomem_of, sigints_of, symbols_of, words_of
from .threads import NEVER

PREFIX_NS = 10_000  # serial work timed per calibrating launch (the rest of it runs parallel)
SAMPLE_NS = 2_000  # a prefix timed this long gives a per-iteration sample (timer noise << 5%)
CALIBRATION_LAUNCHES = 2  # the second launch usually finds warm caches
FIRST_PROBE = 256  # iterations of the first timed prefix
GRAIN_NS = 4_000  # least work per chunk of a parallel launch: chunk hand-out stays < ~3%
SAFETY = 1.0  # F already includes moving a chunk's cache lines (see fanout_ns); c is the warm cost
POOL_START_NS = 2_000_000  # starting the pool (its code, F) costs ~ms: a cheaper rest runs serially
F_PRIOR_NS = 20_000  # the fan-out cost assumed while the pool is not started (see _finish)


def default_num_threads() -> int:
    """TACK_CPU_THREADS if set (<= 0 means 1; not an integer, or above cpu_threads.MAX_THREADS:
    ValueError), else os.cpu_count()."""
    env = os.environ.get("TACK_CPU_THREADS", "").strip()
    if not env:
        return min(os.cpu_count() or 1, cpu_threads.MAX_THREADS)
    try:
        n = max(1, int(env))
    except ValueError:
        raise TackValueError(f"TACK_CPU_THREADS must be an integer, got {env!r}") from None
    return cpu_threads.check_num_threads(n, "TACK_CPU_THREADS")


class CPUEngine(HostMemory, Engine):
    """Compiles final KernelIR for this CPU; `num_threads` workers per parallel launch. Arrays
    are host memory (NumPy buffers used in place); launches return finished."""

    capabilities = NATIVE_CPU.capabilities["cpu"]
    stages = NATIVE_CPU.stages

    def __init__(self, num_threads: int | None = None):
        n = default_num_threads() if num_threads is None else int(num_threads)
        self.num_threads = cpu_threads.check_num_threads(max(1, n))

    @classmethod
    def create(cls, arch: str, options: dict) -> CPUEngine:
        return cls(num_threads=options.get("num_threads"))  # None: TACK_CPU_THREADS, else all

    @property
    def pool(self):
        """The native pool (pool.Pool), made and its code loaded by the first launch that
        needs it; None with one thread."""
        if self.num_threads == 1:
            return None
        # with the pool: a first call that stays serial never loads it
        from . import pool as cpu_pool

        return cpu_pool.get_pool(self.num_threads)

    def compile(self, kir: KernelIR) -> CPUKernel:
        needs = workgroup_features(kir)
        if needs:  # checked on the structure, before rendering (no workgroups on the CPU)
            raise TackRuntimeError(
                f"Kernel '{kir.name}' failed on CPUBackend: CPU backend does not support "
                f"workgroup execution required by {', '.join(needs)}; use tack.local_array / "
                f"tack.local_array_like for per-iteration scratch")
        return CPUKernel(self, kir)

    def record_key(self) -> list | None:
        """The host CPU and LLVM's build, read without LLVM (None where they cannot be), and
        the target chosen instead of the host's, if any (llvm_host.cpu_target)."""
        fp = llvm_host.host_fingerprint()
        chosen = llvm_host.chosen_target()
        if fp is None:
            return None
        return ["cpu", fp, llvm_host.PIPELINE] + ([list(chosen)] if chosen else [])

    def from_record(self, data: bytes, make_kir, expected) -> CPUKernel | None:
        return CPUKernel.from_record(self, data, make_kir, expected)

    queues = False  # (tack.sync() skips the engine)

    def sync(self) -> None:
        """Launches return finished: nothing is ever queued."""

    def stage(self, kir: KernelIR, name: str) -> str:
        if name == "ir":
            return kernel_str(kir)
        text = render(kir)  # with the Ctrl-C polls the object code has
        return llvm_host.optimize(text) if name == "optimized" else text


class CPUKernel(Launchable):
    """One compiled specialization. `launch(args, n)` runs the body for t in [0, n)."""

    def __init__(self, engine: CPUEngine, kir: KernelIR):
        self._kir, self._make_kir, self._llvm_ir, self._optimized_ir = kir, None, None, None
        from ...passes.frames import heap_layout  # (a kernel from the disk cache needs none)

        entry = entry_symbol(kir)
        self._with_caller = with_caller = cpu_call.available()  # (read by `_render`)
        polled = bool(poll_plan(kir))  # Ctrl-C polls (too)
        symbols = symbols_of(entry, with_caller, polled, bool(heap_layout(kir)[0]))
        self._sigints = sigints_of(entry, symbols)  # (read by `_render`)
        code = objload.load_code(self._render, symbols, kir.name, words=words_of(entry, symbols),
                                 source=lambda: _source(kir, with_caller))
        self._setup(engine, kir.name, kir.params, code, symbols)

    @classmethod
    def from_record(cls, engine: CPUEngine, data: bytes, make_kir, expected):
        """The kernel a launch record describes (record.py), its code from the disk cache;
        None if unusable. `make_kir()` gives the KernelIR if asked for (`llvm_ir`)."""
        got = cpu_record.loads(data)
        if got is None or [(p.name, p.kind, p.dtype, p.ndim) for p in got[1]] != expected:
            return None
        name, params, key, symbols = got
        entry = f"tack_{name}"
        ok = symbols in (symbols_of(entry, cpu_call.available(), polls, heap)
                         for polls in (False, True) for heap in (False, True))
        code = objload.load_cached(key, symbols, words=words_of(entry, symbols)) if ok else None
        if code is None:
            return None
        self = cls.__new__(cls)
        self._kir, self._make_kir, self._llvm_ir, self._optimized_ir = None, make_kir, None, None
        self._setup(engine, name, params, code, symbols)
        return self

    def record(self) -> bytes | None:
        """This kernel's launch record (record.py); None if its code is not in the cache."""
        key = getattr(self._code, "cache_key", None)
        return None if key is None else cpu_record.dumps(self.name, self.params, key,
                                                         self._symbols)

    @property
    def kir(self) -> KernelIR:
        if self._kir is None:
            self._kir = self._make_kir()
        return self._kir

    def _setup(self, engine: CPUEngine, name: str, params, code, symbols) -> None:
        self.name, self.params, self.num_threads = name, params, engine.num_threads
        self.engine, self._code, self._symbols = engine, code, symbols
        self._with_caller = cpu_call.caller_symbol(symbols[0]) in symbols
        # (`symbols` is what `symbols_of` makes: the entry, its caller, the polls' pointer, the
        # heap frame's failure count)
        self._sigints = sigints_of(symbols[0], symbols)
        nomem = nomem_of(symbols[0], symbols)
        self._nomem = None if nomem is None else ctypes.c_int64.from_address(code.address(nomem))
        self.entry_address = code.address(symbols[0])
        self._entry = cpu_call.ENTRY(self.entry_address)
        # the SIGINT count (a ctypes view): with polls, or once the pool runs the kernel
        self._count = count_address = None
        if self.polled:
            from . import interrupt as cpu_interrupt  # signal handling: with kernels that poll
            from . import pool as cpu_pool

            self._count = cpu_interrupt.watch_sigints(cpu_pool.native(),
                                                      code.address(self._sigints))
            count_address = ctypes.addressof(self._count)
        # A kernel with a heap frame launches through `launch`, which checks its allocations
        self._caller = (cpu_call.Caller(symbols[1], code.address(symbols[1]), count_address or 0)
                        if self._with_caller and self._nomem is None else None)
        self._pack = layout(params).pack_into
        self._pack_n = layout(params, "q").pack  # the caller's block: the slots, then n
        self._size = 8 * max(1, len(params))
        self._buf = ctypes.create_string_buffer(self._size)
        self._addr = ctypes.addressof(self._buf)
        self._lock = threading.Lock()  # guards _buf; a contended launch packs a private buffer
        self.n_par, self.grain, self._calibrated = NEVER, 1, False
        self.ns_per_iter, self._acc_ns, self._acc_iters, self._timed = None, 0, 0, 0
        self._c_min, self._probe = math.inf, FIRST_PROBE
        self._pool_ptr = None  # the pool and its fan-out cost: at the first launch that needs it
        self._fanout, self._call_ns = F_PRIOR_NS, None
        self._run = self._run_serial if self.num_threads == 1 else self._run_calibrating

    def _render(self) -> str:
        if self._llvm_ir is None:
            self._llvm_ir = render(self.kir)
        if self._with_caller:  # the object code holds the caller too (not `llvm_ir`)
            entry = entry_symbol(self.kir)
            return self._llvm_ir + cpu_call.caller_ir(entry, len(self.kir.params),
                                                      self._sigints is not None)
        return self._llvm_ir

    @property
    def polled(self) -> bool:
        """Whether the kernel has loops that poll for Ctrl-C (passes/polls.py)."""
        return self._sigints is not None

    def interrupted(self) -> None:
        """After a launch that a SIGINT stopped (cpu_interrupt.interrupted)."""
        _interrupted(self.name)

    @property
    def llvm_ir(self) -> str:
        """The LLVM IR rendered from the kernel's IR (on demand: a kernel from the disk cache
        never renders it)."""
        self._render()
        return self._llvm_ir

    @property
    def optimized_ir(self) -> str:
        """The O3 LLVM IR the object code was made from (recomputed on demand: a kernel from
        the disk cache has only its object code)."""
        if self._optimized_ir is None:
            self._optimized_ir = llvm_host.optimize(self.llvm_ir)
        return self._optimized_ir

    def _attach_pool(self) -> None:
        """Start the pool (its code comes from the disk cache too) and measure its fan-out cost,
        on the first launch whose serial rest would cost more than that (POOL_START_NS): a
        kernel only ever launched small, like most first calls, never pays."""
        from . import pool as cpu_pool  # (see CPUEngine.pool)
        from .timing import fanout_ns

        pool = self.engine.pool
        self._fanout = fanout_ns(self.num_threads)
        nat = cpu_pool.native()
        self._pool_launch = nat.launch
        self._pool_address = ctypes.cast(self._pool_launch, ctypes.c_void_p).value
        self._pool_ptr = pool.ptr
        if self._count is None:  # the pool's chunks stop once the count moved
            self._count = ctypes.c_int64.from_address(nat.sigint_count)

    # ---- the hot path --------------------------------------------------------------------------
    def launch(self, args, n: int) -> None:
        """Run the kernel for launch indices [0, n); blocks until done (GIL released inside)."""
        if not self._lock.acquire(False):
            return self._launch_private(args, n)
        try:
            try:
                self._pack(self._buf, 0, *args)
            except PACK_ERRORS:
                pack_slow(self.name, self.params, self._pack, self._buf, args)
            if self._nomem is None:
                self._run(self._addr, n)
            else:
                self._run_frames(self._addr, n)
        finally:
            self._lock.release()

    def inline_launch(self, values: list[str], env: dict) -> list[str] | None:
        """The launch as lines for call/fast.py's call path: the caller (cpu_call) on a block
        packed per call. Launches that still calibrate the policy (n >= 64 before it is final)
        take `launch`; a value the block cannot hold returns MISS (the general path raises)."""
        if self._caller is None:
            return None
        env.update(_K=self, _call=self._caller.fn, _pack_n=self._pack_n,
                   _pack_errors=PACK_ERRORS, _launch=self.launch)
        vals = ", ".join(values)
        lines = ["try:", f"    block = _pack_n({vals}, n)", "except _pack_errors:",
                 "    return MISS"]
        if self.num_threads > 1:
            lines += ["if n >= 64 and not _K._calibrated:", f"    return _launch([{vals}], n)"]
        return lines + ["if _call(block) is None:", "    _K.interrupted()"]

    def _launch_private(self, args, n: int) -> None:
        buf = ctypes.create_string_buffer(self._size)
        try:
            self._pack(buf, 0, *args)
        except PACK_ERRORS:
            pack_slow(self.name, self.params, self._pack, buf, args)
        if self._nomem is None:
            self._run(ctypes.addressof(buf), n)
        else:
            self._run_frames(ctypes.addressof(buf), n)

    def _run_frames(self, addr: int, n: int) -> None:
        """`_run` for a kernel with a heap frame (passes/frames.py): MemoryError if an entry
        call could not allocate its frame (it ran none of its iterations)."""
        failed = self._nomem.value
        self._run(addr, n)
        if self._nomem.value != failed:
            raise MemoryError(f"Kernel '{self.name}': no memory for its local arrays (their "
                              "heap frame, one per thread running the launch); the launch "
                              "ran partially")

    def _sig0(self) -> int | None:
        """The launch's SIGINT baseline (cpu_interrupt.baseline; it raises a KeyboardInterrupt
        that came before it), read once per launch before anything of it runs; None while
        nothing can stop the launch (no polls, no pool)."""
        if self._count is None:
            return None
        from .interrupt import baseline  # (loaded with the pool or the polls)

        return baseline(self._count)

    def _serial(self, t0: int, t1: int, addr: int, s0: int | None) -> None:
        """The entry over [t0, t1) on this thread, from baseline `s0`."""
        self._entry(t0, t1, addr, s0 or 0)
        if s0 is not None and self._count.value != s0:  # a poll returned early
            _interrupted(self.name)

    def _run_serial(self, addr: int, n: int) -> None:
        self._serial(0, n, addr, self._sig0())

    def _run_policy(self, addr: int, n: int) -> None:
        # The policy's one compare, here rather than in tack_pool_launch: the 4-argument entry
        # call is ~0.2 µs cheaper than the 8-argument pool call.
        if n < self.n_par:
            self._serial(0, n, addr, self._sig0())
        elif self._pool_launch(self._pool_ptr, self.entry_address, addr, 0, n, self.n_par,
                               self.grain, self._sig0()):
            _interrupted(self.name)

    def _run_provisional(self, addr: int, n: int) -> None:
        if n < self.n_par:
            return self._serial(0, n, addr, self._sig0())
        self._finish()
        self._run(addr, n)

    # ---- calibration ---------------------------------------------------------------------------
    def _run_calibrating(self, addr: int, n: int) -> None:
        """Time serial prefixes (growing 4x) until PREFIX_NS of this launch's work was seen, and
        hand the rest of the launch to the pool under the policy known so far. The per-iteration
        cost c is the least one measured over prefixes timed >= SAMPLE_NS: a launch on warm
        caches costs several times less per iteration than the first, cold one, and the policy
        must hold for the warm case. The policy is final after CALIBRATION_LAUNCHES launches."""
        s0 = self._sig0()  # one baseline for the whole launch, prefixes and rest
        if n < 64:  # too small to time: it would measure the call, not the kernel
            return self._serial(0, n, addr, s0)
        if self._call_ns is None:
            from .timing import entry_overhead_ns  # with the first calibration

            self._call_ns = entry_overhead_ns(self._entry, addr)
        done = spent = 0
        if self._c_min < math.inf:  # start near PREFIX_NS / 4 of work
            self._probe = max(64, math.ceil(PREFIX_NS / 4 / self._c_min))
        while done < n and spent < PREFIX_NS:
            k = min(self._probe, n - done)
            t0 = time.perf_counter_ns()
            self._entry(done, done + k, addr, s0 or 0)
            dt = max(0.0, time.perf_counter_ns() - t0 - self._call_ns)
            if s0 is not None and self._count.value != s0:
                return self.interrupted()  # the main thread's KeyboardInterrupt is on its way
            done, spent = done + k, spent + dt
            self._acc_ns, self._acc_iters = self._acc_ns + dt, self._acc_iters + k
            if dt >= SAMPLE_NS and self._acc_iters > k:  # not the very first call: cold code
                self._c_min = min(self._c_min, dt / k)
            self._probe = k * 4
        self._timed += 1
        c = self._c_min
        if c == math.inf and self._acc_ns >= PREFIX_NS:  # only tiny launches so far
            c = self._acc_ns / self._acc_iters
        if done < n and self._pool_ptr is None and not c * (n - done) < POOL_START_NS:
            self._attach_pool()
            if s0 is None:  # the pool's count, read only now; a signal before it raises here
                s0 = self._sig0()
        if c < math.inf:
            self._apply(c)
            if self._timed >= CALIBRATION_LAUNCHES:
                self._finish(attach=False)
        if done < n:
            if self._pool_ptr is None:
                return self._serial(done, n, addr, s0)
            if self._pool_launch(self._pool_ptr, self.entry_address, addr, done, n, self.n_par,
                                 self.grain, s0):
                _interrupted(self.name)

    def _apply(self, ns_per_iter: float) -> None:
        """n_par = SAFETY * F / (c (1 - 1/P)): where P threads save more than the fan-out costs."""
        p, c = self.num_threads, max(ns_per_iter, 1e-3)
        self.ns_per_iter = ns_per_iter
        self.n_par = min(NEVER, max(2 * p, math.ceil(SAFETY * self._fanout / (c * (1 - 1 / p)))))
        self.grain = min(NEVER, math.ceil(GRAIN_NS / c))

    def _finish(self, attach: bool = True) -> None:
        """The policy is final. Without the pool yet (`attach` False: no launch needed it), n_par
        assumes F_PRIOR_NS until a launch of n >= n_par starts the pool and measures F."""
        if self.num_threads > 1 and self._pool_ptr is None:
            if not attach:
                self._run = self._run_provisional
                return
            self._attach_pool()
            self._apply(self.ns_per_iter)
        self._calibrated = True
        if self.num_threads > 1:
            self._run = self._run_policy
            if self._caller is not None:
                self._caller.set_policy(self.n_par, self.grain, self._pool_ptr,
                                        self._pool_address,
                                        0 if self._count is None else ctypes.addressof(self._count))

    def set_policy(self, n_par: int, grain: int = 1) -> None:
        """Fix the policy instead of measuring it: launches of n >= n_par iterations go to the
        pool, in chunks of at least `grain` iterations (tests, benchmarks, tuning)."""
        if self.num_threads > 1 and self._pool_ptr is None:
            self._attach_pool()
        self.n_par, self.grain = min(NEVER, int(n_par)), max(1, min(NEVER, int(grain)))
        self._finish()


def _interrupted(name: str) -> None:
    # a SIGINT stopped a pool launch: loaded with the pool
    from . import interrupt as cpu_interrupt

    cpu_interrupt.interrupted(name)


def poll_plan(kir: KernelIR) -> dict:
    """passes/polls.py's plan of the kernel's Ctrl-C polls; that module loads with the first
    compile (a kernel from the disk cache needs none of it)."""
    from ...passes import polls

    return polls.poll_plan(kir)


def render(kir: KernelIR) -> str:
    """The kernel's LLVM IR for this host (the triple from llvm_host: no LLVM needed), with its
    Ctrl-C polls (render/llvm/polls.py)."""
    from ...render.llvm.polls import PollingRenderer
    from ...render.llvm.printer import entry_name  # llvmlite loads on first render

    assert entry_name(kir) == entry_symbol(kir)
    r = PollingRenderer()
    r.triple = llvm_host.process_triple()
    r.f16_native = llvm_host.has_f16_conversions()
    return r.render(kir)


def _source(kir: KernelIR, with_caller: bool):
    """What identifies the kernel's code in the disk cache: the KernelIR by value (everything
    the renderer reads: the body with every inlined function and constant, parameter kinds,
    dtypes, baked extents, debug checks); None (key on the rendered IR) if it holds something
    cache.digest_object cannot digest."""
    try:
        return ["kir", cache.digest_object(kir)] + ([cpu_call.ABI] if with_caller else [])
    except (TypeError, RecursionError):
        return None


# ---- `python -m tack.runtime.cpu.engine`: the numbers docs/design/002-cpu-engine.md quotes -----
def _saxpy_kernel() -> KernelIR:
    loc = Loc("saxpy.py", 1, 1, 1, 2)

    def e(op, *args, arg=None, dt=d.f32):
        return Expr(op, dt, args, arg, loc)

    t = e(Op.LAUNCH, dt=d.i64)
    y = e(Op.ADD, e(Op.MUL, e(Op.PARAM, arg="a"), e(Op.LOAD, t, arg="x")), e(Op.LOAD, t, arg="y"))
    return KernelIR("saxpy", [Param("a", "scalar", d.f32), Param("x", "array", d.f32, 1),
                              Param("y", "array", d.f32, 1, written=True)],
                    [Store(loc, "y", (t,), y)], {}, loc)


def _report() -> None:
    import statistics

    import numpy as np

    from . import pool as cpu_pool
    from .timing import _median_ns, call_overhead_ns, fanout_ns

    kir, cpus = _saxpy_kernel(), os.cpu_count() or 1
    print(f"host: {llvm_host.host_info()['cpu']}, {cpus} CPUs; call overhead "
          f"{call_overhead_ns():.0f} ns")
    threads = sorted({p for p in (2, 4, 8, 16, 32, 64, cpus) if p <= cpus})
    nat, buf = cpu_pool.native(), ctypes.create_string_buffer(8)
    for p in threads:
        ptr = cpu_pool.get_pool(p).ptr

        def noop(n_par, idle=0.0, ptr=ptr, n=64 * p):
            time.sleep(idle)
            return lambda: nat.launch(ptr, nat.noop, ctypes.addressof(buf), 0, n, n_par, 1,
                                      nat.sigints())

        def after_idle(n_par):
            return statistics.median(_median_ns(noop(n_par, 0.01), 1) for _ in range(20))

        print(f"{p} threads: fan-out cost F {fanout_ns(p):.0f} ns; empty launch, parallel/serial: "
              f"warm {_median_ns(noop(0), 300):.0f}/{_median_ns(noop(NEVER), 300):.0f} ns, "
              f"after 10 ms idle {after_idle(0):.0f}/{after_idle(NEVER):.0f} ns")
    n_max = 1 << 24
    x, y = np.ones(n_max, np.float32), np.ones(n_max, np.float32)
    args = [1.0, x.ctypes.data, y.ctypes.data]
    auto = {}
    for p in [1, *threads]:
        k = auto[p] = CPUEngine(p).compile(kir)
        for n in (1 << 16, n_max, 1 << 16):  # calibration: two timed launches, then final
            k.launch(args, n)
        one = _median_ns(lambda: k.launch(args, 1), 20000)  # noqa: B023
        print(f"threads={p}: launch(n=1) {one / 1e3:.2f} µs; c = {k.ns_per_iter} ns/iter, "
              f"n_par {k.n_par}, grain {k.grain}")
    print("saxpy µs: n | serial | per thread count P: forced parallel / adaptive policy")
    for n in [1 << s for s in range(10, 25, 2)]:
        reps = max(5, min(2000, (1 << 24) // n))
        row = [_median_ns(lambda: auto[1].launch(args, n), reps)]  # noqa: B023
        for p in threads:
            k = CPUEngine(p).compile(kir)
            k.set_policy(1, max(1, n // (4 * p)))
            row += [_median_ns(lambda: k.launch(args, n), reps),  # noqa: B023
                    _median_ns(lambda: auto[p].launch(args, n), reps)]  # noqa: B023
        print(f"{n:>9} | {row[0] / 1e3:8.1f} | " + " | ".join(
            f"{a / 1e3:8.1f} /{b / 1e3:8.1f}" for a, b in zip(row[1::2], row[2::2])))


if __name__ == "__main__":
    _report()
