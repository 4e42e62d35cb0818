"""Ctrl-C inside a long sequential loop of a CPU kernel: where the polls go
(passes/polls.py), that polled loops compute what plain ones do, and, in subprocesses, that SIGINT
stops such a kernel within a second on 1 and 2 threads, in debug mode and from another thread,
with the process usable afterwards."""
from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest
import tack
from tack.passes import polls
from tack.render.llvm.polls import PollingRenderer
from tack.render.llvm.printer import LLVMRenderer

from tests.sigint_state import TERMINAL_SIGINT

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _kir(kernel, *args):
    from tack.compiler import specialize

    return specialize(kernel, args)


@tack.kernel
def short_loops(a, out):
    for i in range(out.shape[0]):
        s = 0.0
        for k in range(3):
            for m in range(4):
                s += a[(i + k + m) % 8]
        out[i] = s


@tack.kernel
def long_loops(a, steps, out):
    for i in range(out.shape[0]):
        s = 0.0
        for k in range(steps[0]):  # runtime bound: polled
            s += a[k % 8]
        j = 0
        while j < steps[0]:  # a while: polled
            j += 1
        for k in range(1000):  # constant, 1000 x 100 > POLL_WORK: polled
            for m in range(100):  # constant and short: not polled
                s += 1.0
        out[i] = s


def _polls(llvm_ir: str) -> int:
    """The polls in rendered IR (render/llvm/polls.py: each continues at a `poll.go` block)."""
    return len(re.findall(r"^poll\.go[.\d]*:", llvm_ir, re.MULTILINE))


def _loops(body, out=None):
    out = [] if out is None else out
    for s in body:
        if type(s).__name__ in ("For", "While"):
            out.append(s)
        for f in s.BLOCKS:
            _loops(getattr(s, f), out)
    return out


def test_short_loops_get_no_polls_and_render_as_before():
    a, out = tack.ones(8), tack.zeros(8)
    kir = _kir(short_loops, a, out)
    assert polls.poll_plan(kir) == {}
    assert PollingRenderer().render(kir) == LLVMRenderer().render(kir)


def test_long_loops_are_polled_with_strips_that_bound_the_work_between_polls():
    a, steps, out = tack.ones(8), tack.array(np.array([5], np.int64)), tack.zeros(8)
    kir = _kir(long_loops, a, steps, out)
    plan = polls.poll_plan(kir)
    runtime_for, while_, outer, inner = _loops(kir.body)
    assert plan[id(runtime_for)] == polls.POLL_WORK // 1
    assert plan[id(while_)] == polls.POLL_WORK // 1
    assert plan[id(outer)] == polls.POLL_WORK // 101  # each outer trip runs 100 inner ones
    assert id(inner) not in plan
    text = PollingRenderer().render(kir)
    assert _polls(text) == 3
    assert polls.sigints_symbol("tack_long_loops") in text


def _reference(lo, hi, stop_at):
    total = count = 0
    j = lo
    for j in range(lo, hi):
        if j == stop_at:
            break
        if j % 3 == 0:
            continue
        total += j
        count += 1
    wh, w = 0, lo
    while w < hi:
        w += 1
        if w % 2:
            continue
        wh += w
    return [total, count, wh]


@pytest.mark.parametrize("work", [1, 5, 64, polls.POLL_WORK])
def test_polled_loops_compute_what_plain_loops_do(monkeypatch, work):
    """Strips of 1, 5 and 64 iterations (POLL_WORK lowered for the test; no disk cache) give
    the same results as Python, with break, continue, a reassigned loop variable, empty and
    negative ranges."""
    monkeypatch.setenv("TACK_CACHE", "off")
    monkeypatch.setattr(polls, "POLL_WORK", work)

    @tack.kernel
    def loops(b, out):
        for i in range(out.shape[0]):
            lo, hi, stop_at = b[i, 0], b[i, 1], b[i, 2]
            total = 0
            count = 0
            for j in range(lo, hi):
                if j == stop_at:
                    break
                if j % 3 == 0:
                    continue
                total += j
                count += 1
                j = 1000  # the next trip still takes the next value
            wh = 0
            w = lo
            while w < hi:
                w += 1
                if w % 2 != 0:
                    continue
                wh += w
            out[i, 0] = total
            out[i, 1] = count
            out[i, 2] = wh

    cases = [(0, 0, 99), (0, 1, 99), (0, 5, 99), (0, 6, 99), (-7, 13, 99), (3, 2, 99),
             (0, 200, 150), (-300, 300, 99), (5, 6, 5), (0, 64, 99), (0, 65, 99)]
    b = tack.array(np.array(cases, np.int64))
    out = tack.zeros((len(cases), 3), dtype=tack.i64)
    loops(b, out)
    assert out.numpy().tolist() == [_reference(*c) for c in cases]
    assert _polls(tack.inspect(loops, b, out)) == 2  # the for, the while


def test_polled_loops_over_narrow_and_unsigned_counters(monkeypatch):
    monkeypatch.setenv("TACK_CACHE", "off")
    monkeypatch.setattr(polls, "POLL_WORK", 7)

    @tack.kernel
    def narrow(nb, out):
        for i in range(out.shape[0]):
            s = 0
            for j in range(nb[i]):
                s += 1
            out[i] = s

    for dt, top in ((np.uint32, 300), (np.int16, 300), (np.uint8, 255), (np.int8, 127)):
        nb = tack.array(np.array([0, 1, 6, 7, 8, top], dt))
        out = tack.zeros(6, dtype=tack.i64)
        narrow(nb, out)
        assert out.numpy().tolist() == [0, 1, 6, 7, 8, top], dt


# ---- SIGINT, in subprocesses ----------------------------------------------------------------------
CHILD = r"""
import sys, threading, time
sys.path.insert(0, {python!r})
import numpy as np
import tack

tack.set_default_device("cpu", num_threads={threads})


@tack.kernel
def spin_for(out, steps):
    for i in range(out.shape[0]):
        for j in range(steps[0]):
            out[i] = out[i] * 0.5 + 1.0


@tack.kernel
def spin_while(out, steps):
    for i in range(out.shape[0]):
        j = 0
        while j < steps[0]:
            out[i] = out[i] * 0.5 + 1.0
            j += 1


@tack.kernel
def fill(out, n):  # no polled loop: a long launch is a long parallel loop
    for i in range(n):
        s = out[i % 64]
        for k in range(64):
            s = s * 0.5 + 1.0
        out[i % 64] = s


@tack.kernel
def double(x, y):
    for i in range(x.shape[0]):
        y[i] = 2.0 * x[i]


def usable():
    x, y = tack.array(np.arange(1 << 16, dtype=np.float32)), tack.empty((1 << 16,))
    double(x, y)
    assert np.array_equal(y.numpy(), 2 * np.arange(1 << 16, dtype=np.float32))
    out = tack.zeros(64)
    spin_for(out, short)
    spin_while(out, short)
    for _ in range(3):  # calibrated: a warm call of n >= n_par goes through the C caller
        fill(out, 1 << 18)
    assert np.all(out.numpy() == 2.0)


out = tack.zeros(64)
short, endless = (tack.array(np.array([k], np.int64)) for k in (100, 1 << 60))
usable()  # compiled and warm: the long calls below launch at once
for scenario in {scenarios!r}:
    kernel = spin_while if "while" in scenario else spin_for
    arg = endless
    if "parallel" in scenario:
        kernel, arg = fill, (1 << 31) - 1  # minutes; the same variant as the warm calls
        assert fill._entry.__globals__["_K"]._calibrated  # it launches through the C caller
    tack.set_debug("debug" in scenario)
    if "thread" in scenario:  # the launch runs on another thread; the main thread waits
        got = []

        def run():
            print("ready", flush=True)  # a SIGINT before the launch began would not stop it
            try:
                kernel(out, arg)
                got.append("finished")
            except KeyboardInterrupt:
                got.append("interrupted")
                print("interrupted", flush=True)

        t = threading.Thread(target=run)
        t.start()
        try:
            while t.is_alive():
                time.sleep(0.01)
        except KeyboardInterrupt:
            pass
        t.join()
        assert got == ["interrupted"], got
    else:
        print("ready", flush=True)
        try:
            kernel(out, arg)
            print("finished?!", flush=True)
        except KeyboardInterrupt:
            print("interrupted", flush=True)
    tack.set_debug(False)
    usable()
    print("usable", flush=True)
"""


def _interrupt_each(tmp_path, threads: int, scenarios: list[str]) -> list[float]:
    """Run the scenarios in one child; for each, SIGINT 0.5 s after it is ready; the seconds
    from each signal to the child's report."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TACK_")}
    env.update(PYTHONDONTWRITEBYTECODE="1", TACK_CACHE_DIR=os.environ.get("TACK_CACHE_DIR", ""))
    code = TERMINAL_SIGINT + CHILD.format(python=os.path.join(ROOT, "python"), threads=threads,
                                          scenarios=scenarios)
    (tmp_path / "child.py").write_text(code)
    proc = subprocess.Popen([sys.executable, str(tmp_path / "child.py")], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [lines.put(x.strip()) for x in proc.stdout], daemon=True).start()

    def expect(what: str, scenario: str, timeout: float = 120) -> None:
        try:
            line = lines.get(timeout=timeout)
        except queue.Empty:
            line = f"nothing within {timeout} s"
        if line != what:
            proc.kill()
            pytest.fail(f"{scenario}: expected {what!r}, got {line!r}\n{proc.stderr.read()[-3000:]}")

    delays = []
    try:
        for scenario in scenarios:
            expect("ready", scenario)
            time.sleep(0.5)
            t0 = time.perf_counter()
            proc.send_signal(signal.SIGINT)
            expect("interrupted", scenario, timeout=30)
            delays.append(time.perf_counter() - t0)
            expect("usable", scenario)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err[-3000:]
    return delays


SCENARIOS = ["for", "while", "debug for", "debug while", "thread for", "thread while"]


LINUX = pytest.mark.skipif(not sys.platform.startswith("linux"),
                           reason="the SIGINT hook is Linux-only")


@LINUX
@pytest.mark.parametrize("threads", [1, 2])
def test_ctrl_c_stops_a_long_inner_loop_within_a_second(tmp_path, threads):
    delays = _interrupt_each(tmp_path, threads, SCENARIOS)
    assert max(delays) < 1.0, dict(zip(SCENARIOS, delays))


@LINUX
def test_ctrl_c_stops_a_warm_parallel_launch_of_another_thread(tmp_path):
    """The C caller's pool launch reports the interrupt: the launching thread raises."""
    scenarios = ["thread parallel", "parallel"]
    delays = _interrupt_each(tmp_path, 2, scenarios)
    assert max(delays) < 1.0, dict(zip(scenarios, delays))
