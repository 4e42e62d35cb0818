"""The native CPU engine: KernelIR → LLVM IR → O3 → MCJIT, launched through a ctypes caller.

    engine = CPUEngine(num_threads=None)      # None: TACK_CPU_THREADS, else os.cpu_count()
    kernel = engine.compile(kir)              # CPUKernel; .llvm_ir, .optimized_ir
    kernel.launch(args, n)                    # args in kir.params order: array → data address
                                              # (int), scalar → Python/NumPy int or float

A launch packs the arguments into a prebuilt buffer of 8-byte slots (one `struct.pack_into`) and
makes one GIL-releasing ctypes call: the kernel entry itself (`num_threads=1`), or
`tack_pool_launch` (cpu_pool.py), which runs small launches on the calling thread and large ones
on the native pool. The adaptive policy (docs/design/002-cpu-engine.md): per pool, the fan-out
cost F of a parallel launch is measured once; per kernel, the first launches run serially in
timed prefixes until ~20 µs of work give the cost per iteration c; from then on a launch of n goes
parallel iff n >= n_par = SAFETY * F / (c * (1 - 1/P)), one compare done natively.
"""
from __future__ import annotations

import ctypes
import functools
import math
import os
import statistics
import struct
import threading
import time

import llvmlite.binding as llvm

from ..errors import TackTypeError, TackValueError
from ..ir.nodes import KernelIR
from ..render.llvm import entry_name, host_target_machine, optimize_module, render
from . import cpu_pool

CALIBRATE_NS = 20_000  # serial work to time before trusting the per-iteration cost
GRAIN_NS = 4_000  # least work per chunk of a parallel launch: chunk hand-out stays < ~3%
FIRST_PROBE = 256  # iterations of the first timed prefix (grows 4x per prefix)
SAFETY = 2.0  # parallel must look 2x better than serial: memory-bound kernels scale sublinearly
NEVER = 1 << 62  # n_par meaning "always serial"
_ENTRY = ctypes.CFUNCTYPE(None, ctypes.c_int64, ctypes.c_int64, ctypes.c_void_p)
_SLOT = {"i8": "b7x", "u8": "B7x", "i16": "h6x", "u16": "H6x", "i32": "i4x", "u32": "I4x",
         "i64": "q", "u64": "Q", "f32": "f4x", "f64": "d", "bool": "?7x"}
_PACK_ERRORS = (struct.error, OverflowError, TypeError, ValueError)


def default_num_threads() -> int:
    """TACK_CPU_THREADS if set (<= 0 means 1; not an integer: ValueError), else os.cpu_count()."""
    env = os.environ.get("TACK_CPU_THREADS", "").strip()
    if not env:
        return os.cpu_count() or 1
    try:
        return max(1, int(env))
    except ValueError:
        raise TackValueError(f"TACK_CPU_THREADS must be an integer, got {env!r}") from None


def _median_ns(fn, reps: int) -> float:
    xs = []
    for _ in range(reps):
        t0 = time.perf_counter_ns()
        fn()
        xs.append(time.perf_counter_ns() - t0)
    return statistics.median(xs)


@functools.cache
def call_overhead_ns() -> float:
    """Warm cost of one serial launch of an empty kernel via ctypes (subtracted from timings)."""
    nat, buf = cpu_pool.native(), ctypes.create_string_buffer(8)
    noop, addr = _ENTRY(nat.noop), ctypes.addressof(buf)
    return _median_ns(lambda: noop(0, 1, addr), 300)


@functools.cache
def fanout_ns(num_threads: int) -> float:
    """What a parallel launch costs beyond its share of the work, measured once per pool: a small
    streaming kernel over 4096 hot floats per thread, F = T_parallel - T_serial / P. A no-op kernel
    would miss the chunk hand-out and the cache lines that move to the workers (3x less here)."""
    pool, nat = cpu_pool.get_pool(num_threads), cpu_pool.native()
    n = 4096 * num_threads
    buf = (ctypes.c_float * n)()
    addr = ctypes.addressof(buf)

    def run(n_par):
        return lambda: nat.launch(pool.ptr, nat.probe, addr, 0, n, n_par, 1)

    _median_ns(run(0), 50)  # start the workers, warm the caches
    ser = _median_ns(run(NEVER), 300)
    par = _median_ns(run(0), 300)
    return max(par - ser / num_threads, 100.0)


class CPUEngine:
    """Compiles final KernelIR for this CPU; `num_threads` workers per parallel launch."""

    def __init__(self, num_threads: int | None = None):
        n = default_num_threads() if num_threads is None else int(num_threads)
        self.num_threads = max(1, n)
        self.pool = cpu_pool.get_pool(self.num_threads) if self.num_threads > 1 else None

    def compile(self, kir: KernelIR) -> CPUKernel:
        return CPUKernel(self, kir)


class CPUKernel:
    """One compiled specialization. `launch(args, n)` runs the body for t in [0, n)."""

    def __init__(self, engine: CPUEngine, kir: KernelIR):
        self.kir, self.name, self.num_threads = kir, kir.name, engine.num_threads
        self.llvm_ir = render(kir)
        mod = optimize_module(llvm.parse_assembly(self.llvm_ir), host_target_machine())
        self.optimized_ir = str(mod)
        cpu_pool.load_system_libraries()
        self._engine = llvm.create_mcjit_compiler(mod, host_target_machine(jit=True))
        self._engine.finalize_object()
        self.entry_address = self._engine.get_function_address(entry_name(kir))
        self._entry = _ENTRY(self.entry_address)
        # Native mode ("@"): C conversions (f32 overflow gives inf, as in C); every field starts at
        # a multiple of 8, so native alignment adds no padding (checked).
        layout = struct.Struct("@" + "".join(
            "Q" if p.kind == "array" else _SLOT[p.dtype.name] for p in kir.params))
        assert layout.size == 8 * len(kir.params)
        self._pack = layout.pack_into
        self._size = 8 * max(1, len(kir.params))
        self._buf = ctypes.create_string_buffer(self._size)
        self._addr = ctypes.addressof(self._buf)
        self._lock = threading.Lock()  # guards _buf; a contended launch packs a private buffer
        self.n_par, self.grain, self._calibrated = NEVER, 1, False
        self.ns_per_iter: float | None = None
        self._acc_ns = self._acc_iters = 0
        self._probe = FIRST_PROBE
        if engine.pool is None:
            self._run = self._run_serial
        else:
            self._pool_ptr, self._fanout = engine.pool.ptr, fanout_ns(self.num_threads)
            self._call_ns = call_overhead_ns()
            self._pool_launch = cpu_pool.native().launch
            self._run = self._run_calibrating

    # ---- the hot path --------------------------------------------------------------------------
    def launch(self, args, n: int) -> None:
        """Run the kernel for launch indices [0, n); blocks until done (GIL released inside)."""
        if not self._lock.acquire(False):
            return self._launch_private(args, n)
        try:
            try:
                self._pack(self._buf, 0, *args)
            except _PACK_ERRORS:
                self._pack_slow(self._buf, args)
            self._run(self._addr, n)
        finally:
            self._lock.release()

    def _launch_private(self, args, n: int) -> None:
        buf = ctypes.create_string_buffer(self._size)
        try:
            self._pack(buf, 0, *args)
        except _PACK_ERRORS:
            self._pack_slow(buf, args)
        self._run(ctypes.addressof(buf), n)

    def _run_serial(self, addr: int, n: int) -> None:
        self._entry(0, n, addr)

    def _run_policy(self, addr: int, n: int) -> None:
        self._pool_launch(self._pool_ptr, self.entry_address, addr, 0, n, self.n_par, self.grain)

    # ---- calibration ---------------------------------------------------------------------------
    def _run_calibrating(self, addr: int, n: int) -> None:
        """Run timed serial prefixes of growing size until CALIBRATE_NS of work was seen, then
        hand the rest of this launch to the policy."""
        if n < 64:  # too small to time: it would measure the call, not the kernel
            return self._entry(0, n, addr)
        done = 0
        while done < n and not self._calibrated:
            k = min(self._probe, n - done)
            t0 = time.perf_counter_ns()
            self._entry(done, done + k, addr)
            dt = time.perf_counter_ns() - t0 - self._call_ns
            done += k
            self._acc_ns += max(0.0, dt)
            self._acc_iters += k
            self._probe *= 4
            if self._acc_ns >= CALIBRATE_NS:
                self._calibrate(self._acc_ns / self._acc_iters)
        if done < n:
            self._pool_launch(self._pool_ptr, self.entry_address, addr, done, n, self.n_par,
                              self.grain)

    def _calibrate(self, ns_per_iter: float) -> None:
        p, c = self.num_threads, max(ns_per_iter, 1e-3)
        self.ns_per_iter = ns_per_iter
        self.set_policy(max(2 * p, math.ceil(SAFETY * self._fanout / (c * (1.0 - 1.0 / p)))),
                        math.ceil(GRAIN_NS / c))

    def set_policy(self, n_par: int, grain: int = 1) -> None:
        """Fix the policy instead of measuring it: launches of n >= n_par iterations go to the
        pool, in chunks of at least `grain` iterations (tests, benchmarks, tuning)."""
        self.n_par, self.grain = min(NEVER, int(n_par)), max(1, min(NEVER, int(grain)))
        self._calibrated = True
        if self.num_threads > 1:
            self._run = self._run_policy

    # ---- argument conversion off the fast path -------------------------------------------------
    def _pack_slow(self, buf, args) -> None:
        params = self.kir.params
        if len(args) != len(params):
            raise TackTypeError(f"kernel {self.name!r} takes {len(params)} arguments "
                                f"({', '.join(p.name for p in params)}), got {len(args)}")
        values = []
        for p, v in zip(params, args):
            try:
                values.append(_convert(p, v))
            except (TypeError, ValueError, OverflowError) as exc:
                raise TackTypeError(f"kernel {self.name!r}: argument {p.name!r} "
                                    f"({p.kind} {p.dtype.name}) cannot take {v!r}: {exc}") from None
        self._pack(buf, 0, *values)


def _convert(p, v):
    """C conversion of one argument: ints wrap modulo 2**bits (floats give ints by truncation)."""
    if p.kind == "array":
        return 0 if v is None else int(v)
    dt = p.dtype
    if dt.is_float:
        return float(v)
    if dt.kind == "b":
        return bool(v)
    v = int(v) & ((1 << dt.bits) - 1)
    return v - (1 << dt.bits) if dt.is_signed and v >> (dt.bits - 1) else v
