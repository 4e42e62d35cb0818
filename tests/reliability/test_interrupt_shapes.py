"""Ctrl-C stops every shape of long CPU kernel within 100 ms: the shapes whose loops each run
less than a strip per launch index (passes/polls.py), over many indices, on the calling thread
and on the pool.

Each shape runs in a child process for a long time (2^31 launch indices, or a loop without end);
the test sends SIGINT once it runs (compiled by a first short call) and measures the time to the child's KeyboardInterrupt.
Before the polls of an entry call shared one budget of work, a runtime-bound inner loop of
45,000 iterations per index never reached a poll (each run started its strip of 65,536 afresh),
so the kernel ran on to its next chunk boundary (seconds) or, on one thread, to its end.
"""
from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import time

import pytest

from tests.sigint_state import TERMINAL_SIGINT

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BOUND_S = 0.1

KERNELS = r'''
import tack

LONG = tack.constant(60000)  # a constant loop just under POLL_WORK: the loop itself never polls


@tack.func
def recur(x, m):
    for _ in range(m):
        x = x * 0.999 + 0.5
    return x


@tack.kernel
def inner_runtime(out, n, m):  # the reported shape: a dependent f32 recurrence of m ~ 45,000 steps
    for i in range(n):
        x = tack.f32(i % 7)
        for _ in range(m):
            x = x * 0.999 + 0.5
        out[i % 64] = x


@tack.kernel
def nested_runtime(out, n, m):  # two runtime loops of ~212 trips each: neither reaches a strip
    for i in range(n):
        x = tack.f32(i % 7)
        for a in range(m // 212):
            for b in range(212 + a * 0):
                x = x * 0.999 + 0.5
        out[i % 64] = x


@tack.kernel
def while_in_for(out, n, m):  # a while inside a runtime for
    for i in range(n):
        x = tack.f32(i % 7)
        for a in range(m // 212):
            j = 0
            while j < 212:
                x = x * 0.999 + 0.5
                j += 1
        out[i % 64] = x


@tack.kernel
def short_while(out, n, m):  # a while of m steps per index
    for i in range(n):
        x = tack.f32(i % 7)
        j = 0
        while j < m:
            x = x * 0.999 + 0.5
            j += 1
        out[i % 64] = x


@tack.kernel
def in_func(out, n, m):  # the runtime loop inside a @tack.func
    for i in range(n):
        out[i % 64] = recur(tack.f32(i % 7), m)


@tack.kernel
def constant_loop(out, n, m):  # no runtime loop at all: a constant one under POLL_WORK
    for i in range(n):
        x = tack.f32(i % 7 + m * 0)
        for _ in range(LONG):
            x = x * 0.999 + 0.5
        out[i % 64] = x
'''

CHILD = r'''
import sys
sys.path[:0] = [{python!r}, {kdir!r}]
import numpy as np
import tack
import shapes

tack.set_default_device("cpu", num_threads={threads})
out = tack.zeros(64)
for name in {shapes!r}:
    kernel = getattr(shapes, name)
    kernel(out, 3, 5)  # compiled now, so that the signal finds it running
    print("ready", flush=True)
    try:
        kernel(out, (1 << 31) - 1, 45000)
        print("finished?!", flush=True)
    except KeyboardInterrupt:
        print("interrupted", flush=True)
'''

SHAPES = ["inner_runtime", "nested_runtime", "while_in_for", "short_while", "in_func",
          "constant_loop"]


def _delays(tmp_path, threads: int) -> dict:
    """Each shape in one child: SIGINT 0.3 s after it starts; the seconds from the signal to
    the child's report (None if it finished or did not report within 10 s)."""
    (tmp_path / "shapes.py").write_text(KERNELS)
    env = {k: v for k, v in os.environ.items() if not k.startswith("TACK_")}
    env.update(PYTHONDONTWRITEBYTECODE="1", TACK_CACHE="off")
    code = TERMINAL_SIGINT + CHILD.format(python=os.path.join(ROOT, "python"),
                                          kdir=str(tmp_path), threads=threads, shapes=SHAPES)
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [lines.put(x.strip()) for x in proc.stdout],
                     daemon=True).start()
    got = {}
    try:
        for shape in SHAPES:
            assert lines.get(timeout=120) == "ready", shape
            time.sleep(0.3)
            t0 = time.perf_counter()
            proc.send_signal(signal.SIGINT)
            try:
                line = lines.get(timeout=10)
            except queue.Empty:
                line = "nothing"
            got[shape] = time.perf_counter() - t0 if line == "interrupted" else None
            if line != "interrupted":
                break
    finally:
        proc.kill()
        _, err = proc.communicate()
    assert len(got) == len(SHAPES), (got, err[-2000:])
    return got


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the SIGINT hook is Linux-only")
@pytest.mark.parametrize("threads", [1, 2])
def test_ctrl_c_stops_every_shape_within_100_ms(tmp_path, threads):
    got = _delays(tmp_path, threads)
    slow = {k: v for k, v in got.items() if v is None or v > BOUND_S}
    assert not slow, got
