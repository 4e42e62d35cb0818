"""The thread count of a CPU device is bounded, and the pool's calibration
costs about the same whatever the thread count."""
from __future__ import annotations

import time

import numpy as np
import pytest
import tack
from tack.runtime.cpu import timing as cpu_timing
from tack.runtime.cpu.engine import CPUEngine, default_num_threads
from tack.runtime.cpu.threads import MAX_THREADS

from tests.runtime.irbuild import saxpy_kir


def test_num_threads_above_the_limit_is_a_value_error(monkeypatch):
    for make in (lambda n: tack.device("cpu", num_threads=n), lambda n: CPUEngine(n)):
        with pytest.raises(ValueError, match=f"at most {MAX_THREADS}"):
            make(MAX_THREADS + 1)
    with pytest.raises(tack.TackError):
        tack.device("cpu", num_threads=20_000)
    monkeypatch.setenv("TACK_CPU_THREADS", str(MAX_THREADS + 1))
    with pytest.raises(ValueError, match="TACK_CPU_THREADS must be at most"):
        default_num_threads()
    monkeypatch.setenv("TACK_CPU_THREADS", str(MAX_THREADS))
    assert default_num_threads() == MAX_THREADS
    assert MAX_THREADS >= 1024


def test_a_timing_phase_stops_at_its_budget():
    calls = []

    def slow():
        calls.append(1)
        time.sleep(0.002)

    cpu_timing._median_ns(slow, 300, budget_ns=10_000_000)
    assert 5 <= len(calls) <= 8


def test_first_parallel_launch_at_many_threads_is_quick():
    """Before: 81 s at 8,000 threads on 2 cores, calibration alone 5 s at 512. Now bounded by
    a time budget per phase (plus starting the workers)."""
    n = 1 << 16
    x, y = np.ones(n, np.float32), np.zeros(n, np.float32)
    k = CPUEngine(num_threads=256).compile(saxpy_kir())
    t0 = time.perf_counter()
    k.launch([np.float32(2), x.ctypes.data, y.ctypes.data], n)
    assert time.perf_counter() - t0 < 20
    np.testing.assert_array_equal(y, 2)
