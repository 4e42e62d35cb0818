"""What the CPU engine's parallel policy measures: medians of short timings, the warm cost of a
kernel call, and the fan-out cost F of the pool (docs/design/002-cpu-engine.md)."""
from __future__ import annotations

import ctypes
import functools
import math
import time

from .call import ENTRY
from .threads import NEVER

CALIBRATION_NS = 20_000_000  # time budget of each timed phase of fanout_ns, whatever P is


def _median_ns(fn, reps: int, budget_ns: float = math.inf) -> float:
    """The median time of `reps` calls of fn, or of fewer (at least 5) once `budget_ns` is
    spent: a calibration costs about the same at 4 threads and at 1,000."""
    xs, spent = [], 0
    for _ in range(reps):
        t0 = time.perf_counter_ns()
        fn()
        dt = time.perf_counter_ns() - t0
        xs.append(dt)
        spent += dt
        if spent > budget_ns and len(xs) >= 5:
            break
    xs.sort()
    k = len(xs) // 2
    return xs[k] if len(xs) % 2 else (xs[k - 1] + xs[k]) / 2


_entry_ns: list = []


def entry_overhead_ns(entry, addr: int) -> float:
    """Warm cost of one ctypes call of a kernel entry over an empty range (subtracted from the
    calibration's timings), measured once per process with the first kernel that calibrates."""
    if not _entry_ns:
        _entry_ns.append(_median_ns(lambda: entry(0, 0, addr, 0), 101))
    return _entry_ns[0]


@functools.cache
def call_overhead_ns() -> float:
    """Warm cost of one serial launch of an empty kernel via ctypes (subtracted from timings)."""
    # measured with the pool; the engine's import does not load it
    from . import pool as cpu_pool

    nat, buf = cpu_pool.native(), ctypes.create_string_buffer(8)
    noop, addr = ENTRY(nat.noop), ctypes.addressof(buf)
    return _median_ns(lambda: noop(0, 1, addr, 0), 300)


@functools.cache
def fanout_ns(num_threads: int) -> float:
    """What a parallel launch costs beyond its share of the work, measured once per pool: a small
    streaming kernel over 4096 hot floats per thread, F = T_parallel - T_serial / P. A no-op kernel
    would miss the chunk hand-out and the cache lines that move to the workers (3x less here)."""
    from . import pool as cpu_pool  # (see call_overhead_ns)

    pool, nat = cpu_pool.get_pool(num_threads), cpu_pool.native()
    n = 4096 * num_threads
    buf = (ctypes.c_float * n)()
    addr = ctypes.addressof(buf)

    def run(n_par):
        return lambda: nat.launch(pool.ptr, nat.probe, addr, 0, n, n_par, 1, nat.sigints())

    _median_ns(run(0), 50, CALIBRATION_NS / 4)  # start the workers, warm the caches
    ser = _median_ns(run(NEVER), 300, CALIBRATION_NS)
    par = _median_ns(run(0), 300, CALIBRATION_NS)
    return max(par - ser / num_threads, 100.0)
