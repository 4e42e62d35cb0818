"""The process around a kernel: fork() while another thread compiles
gives a child that compiles and launches in parallel; Ctrl-C stops a kernel that would never end,
raises KeyboardInterrupt, and the process stays usable. Each scenario runs in its own process."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from tests.sigint_state import TERMINAL_SIGINT

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PYPATH = os.path.join(ROOT, "python")


def _kernels_module(path, n: int) -> None:
    """A module of `n` distinct kernels (a literal each: each one a fresh compile)."""
    src = ["import tack", ""]
    for j in range(n):
        src += ["@tack.kernel", f"def k{j}(x, out):", "    for i in range(x.shape[0]):",
                f"        out[i] = x[i] * {j}.5 + 1.0", ""]
    (path / "kgen.py").write_text("\n".join(src))


def _env(**extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("TACK_")}
    env.update({"TACK_CACHE": "off", "PYTHONDONTWRITEBYTECODE": "1"}, **extra)
    return env


FORK = """
import os, sys, threading, time
sys.path[:0] = [{pypath!r}, {here!r}]
import numpy as np
import tack, kgen

tack.set_default_device("cpu", num_threads=2)
n = 1 << 16
x, out = tack.array(np.ones(n, np.float32)), tack.empty((n,))
kgen.k0(x, out)  # the parent's pool is running
stop = threading.Event()


def compile_forever():
    for j in range(1, {count}):
        if stop.is_set():
            return
        getattr(kgen, f"k{{j}}")(x, out)


t = threading.Thread(target=compile_forever, daemon=True)
t.start()
time.sleep(0.3)
ok = 0
for round in range({forks}):
    pid = os.fork()
    if pid == 0:  # the child: compile a kernel of its own and launch it over the pool
        try:
            kgen.k{last}(x, out)
            good = bool(np.all(out.numpy() == {last}.5 + 1.0))
        except BaseException as exc:
            print("child failed:", repr(exc), flush=True)
            good = False
        os._exit(0 if good else 3)
    deadline = time.monotonic() + {wait}
    while True:
        got, status = os.waitpid(pid, os.WNOHANG)
        if got:
            break
        if time.monotonic() > deadline:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            print("child deadlocked", flush=True)
            sys.exit(2)
        time.sleep(0.01)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(3)
    ok += 1
    time.sleep(0.05 + 0.05 * round)
stop.set()
t.join()
print("forks ok", ok)
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork() here")
def test_fork_while_another_thread_compiles(tmp_path):
    count = 60
    _kernels_module(tmp_path, count)
    script = FORK.format(pypath=PYPATH, here=str(tmp_path), count=count - 1, forks=5,
                         last=count - 1, wait=120)
    res = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env=_env(), timeout=400, check=False)
    assert res.returncode == 0, res.stdout + res.stderr[-3000:]
    assert "forks ok 5" in res.stdout


ENDLESS = """
import sys, time
sys.path[:0] = [{pypath!r}, {here!r}]
import numpy as np
import tack
import kspin

tack.set_default_device("cpu", num_threads=2)
out = tack.zeros(1024)
print("started", flush=True)
t0 = time.perf_counter()
try:
    kspin.spin(out, 1 << 50)  # years of work
    print("finished?!", flush=True)
except KeyboardInterrupt:
    print("interrupted after %.1f s" % (time.perf_counter() - t0), flush=True)
x, y = tack.array(np.arange(1 << 16, dtype=np.float32)), tack.empty((1 << 16,))
kspin.double(x, y)  # the process, its pool and its kernels still work
assert np.array_equal(y.numpy(), 2 * np.arange(1 << 16, dtype=np.float32))
kspin.spin(out, 1 << 16)
print("usable", flush=True)
"""

KSPIN = """
import tack


@tack.kernel
def spin(out, n):
    for i in range(n):
        out[i % 1024] = out[i % 1024] * 0.5 + 1.0


@tack.kernel
def double(x, y):
    for i in range(x.shape[0]):
        y[i] = 2.0 * x[i]
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the SIGINT hook is Linux-only")
def test_ctrl_c_stops_an_endless_parallel_kernel(tmp_path):
    (tmp_path / "kspin.py").write_text(KSPIN)
    script = TERMINAL_SIGINT + ENDLESS.format(pypath=PYPATH, here=str(tmp_path))
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=_env(TACK_CACHE="on"))
    try:
        assert proc.stdout.readline().strip() == "started"
        time.sleep(1.5)  # compiled and running by now (or soon: the signal waits in the count)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, out + err[-3000:]
    assert "interrupted after" in out and "usable" in out, out
