"""The CPU engine's launch machinery: control flow, parameters, launch sizes, the thread pool
and its policy, concurrency, the GIL, the environment, fork and interpreter exit."""
from __future__ import annotations

import math
import os
import subprocess
import sys
import threading
import time

import numpy as np
import pytest
from tack import dtypes as D
from tack.errors import TackTypeError, TackValueError
from tack.ir.nodes import (
    Assign,
    Break,
    Continue,
    ExprStmt,
    For,
    If,
    Param,
    While,
)
from tack.ir.ops import Op
from tack.runtime.cpu.engine import CPUEngine, default_num_threads

from tests.runtime.irbuild import (
    FLOATS,
    INTS,
    C,
    E,
    L,
    T,
    arr,
    iota_kir,
    kir,
    ld,
    run,
    saxpy_kir,
    st,
    wrap,
)


# ---- control flow, locals, params ---------------------------------------------------------------
def var(name, dt=D.i64):
    return E(Op.VAR, dt, arg=name)

def test_for_while_if_break_continue(engine):
    """o[t] = sum over i in [0, a[t]) of i, skipping i % 3 == 1, stopping once i > 20; then a
    while loop halves it down below 100, and an if/else marks odd results negative."""
    i64 = D.i64
    body = [
        Assign(L, "s", C(0)),
        For(L, "i", C(0), ld("a", i64), None, [
            If(L, E(Op.EQ, D.bool_, E(Op.IREM, i64, var("i"), C(3)), C(1)), [Continue(L)], []),
            If(L, E(Op.GT, D.bool_, var("i"), C(20)), [Break(L), Assign(L, "s", C(-999))], []),
            Assign(L, "s", E(Op.ADD, i64, var("s"), var("i"))),
        ]),
        While(L, E(Op.GE, D.bool_, var("s"), C(100)), [
            Assign(L, "s", E(Op.IDIV, i64, var("s"), C(2))),
            If(L, E(Op.LT, D.bool_, var("s"), C(0)), [Break(L)], [Continue(L)]),
            Assign(L, "s", C(-12345)),  # unreachable: both arms left the iteration
        ]),
        If(L, E(Op.EQ, D.bool_, E(Op.AND_, i64, var("s"), C(1)), C(1)),
           [Assign(L, "s", E(Op.NEG, i64, var("s")))], [ExprStmt(L, ld("a", i64))]),
        st("o", var("s")),
    ]
    a = np.array([0, 1, 2, 3, 5, 10, 21, 22, 40, 1000], np.int64)
    out = np.zeros_like(a)
    run(engine, kir("flow", [arr("a", i64), arr("o", i64, 1)], body, {"s": i64, "i": i64}),
        [a, out])

    def ref(n):
        s = 0
        for i in range(n):
            if i % 3 == 1:
                continue
            if i > 20:
                break
            s += i
        while s >= 100:
            s //= 2
        return -s if s & 1 else s

    assert out.tolist() == [ref(int(n)) for n in a]


@pytest.mark.parametrize("dt", [D.i32, D.u8, D.u64, D.i8], ids=lambda d: d.name)
def test_for_semantics(engine, dt):
    """`stop` is evaluated once; assigning the loop variable does not change the trip; the
    variable keeps its last value; unsigned and narrow counters stop at the bound."""
    body = [
        Assign(L, "c", C(0, dt)),
        Assign(L, "i", C(77, dt)),
        For(L, "i", ld("lo", dt), ld("hi", dt), None, [
            st("hi", E(Op.ADD, dt, ld("hi", dt), C(1, dt))),  # the stop must not move
            Assign(L, "c", E(Op.ADD, dt, var("c", dt), C(1, dt))),
            Assign(L, "last", var("i", dt)),
            Assign(L, "i", C(0, dt)),  # Python: the next iteration takes the next value anyway
        ]),
        st("o", var("c", dt)),
        st("o", var("i", dt), E(Op.ADD, D.i64, T, C(4))),
    ]
    top = dt.max()
    lo = np.array([0, 5, 9, top - 3], dt.np)
    hi = np.array([4, 5, 3, top], dt.np)
    out = np.zeros(8, dt.np)
    run(engine, kir(f"for_{dt.name}", [arr("lo", dt), arr("hi", dt), arr("o", dt, 1)], body,
                    {"c": dt, "i": dt, "last": dt}), [lo, hi, out], n=4)
    assert out[:4].tolist() == [4, 0, 0, 3]
    assert out[4:].tolist() == [0, 77, 77, 0]  # the body set i = 0 after the last iteration
    assert [int(v) for v in hi] == [8, 5, 3, wrap(top + 3, dt)]


def test_params_and_scalar_conversion(engine):
    """Every scalar dtype as a parameter; Python and NumPy scalars; ints wrap, f32 overflows to
    inf, bad argument counts raise."""
    ps = [Param(f"s_{d.name}", "scalar", d) for d in INTS + FLOATS]
    outs = [arr(f"o_{d.name}", d, True) for d in INTS + FLOATS]
    body = [st(o.name, E(Op.PARAM, o.dtype, arg=p.name), C(0)) for p, o in zip(ps, outs)]
    k = engine.compile(kir("params", ps + outs, body))
    bufs = [np.zeros(1, d.np) for d in INTS + FLOATS]
    vals = [-5, 250, -300, 65535, -(2**31), 2**32 - 1, -(2**63), 2**64 - 1, 1.5, -2.25]
    k.launch(vals + [b.ctypes.data for b in bufs], 1)
    assert [b[0].item() for b in bufs] == vals
    wrapped = [300, -1, 70000, -1, 2**31, -1, 2**63, -1, 1e39, np.float32(3)]
    k.launch(wrapped + [b.ctypes.data for b in bufs], 1)
    assert [b[0].item() for b in bufs] == [
        44, 255, 4464, 65535, -(2**31), 2**32 - 1, -(2**63), 2**64 - 1, math.inf, 3.0]
    k.launch([np.int8(-3), np.uint8(7)] + vals[2:-1] + [np.float64(0.25)]
             + [b.ctypes.data for b in bufs], 1)
    assert bufs[0][0] == -3 and bufs[1][0] == 7 and bufs[-1][0] == 0.25
    with pytest.raises(TackTypeError, match="takes 20 arguments"):
        k.launch(vals, 1)
    with pytest.raises(TackTypeError, match="s_i8"):
        k.launch(["x"] + vals[1:] + [b.ctypes.data for b in bufs], 1)


# ---- launches: sizes, threads, concurrency ------------------------------------------------------
@pytest.mark.parametrize("n", [0, 1, 2, 7, 101, 1009, 1025, 4099, 100_003, 1_000_000])
def test_launch_sizes(engine, n):
    k = engine.compile(iota_kir())
    if engine.num_threads > 1:
        k.set_policy(n_par=2, grain=1 if n < 5000 else 64)
    out = np.full(n + 3, -1, np.int64)
    k.launch([out.ctypes.data], n)
    assert np.array_equal(out[:n], np.arange(n) * 3)
    assert (out[n:] == -1).all()  # nothing past n is touched


def test_calibration_and_policy():
    """The first launches time serial prefixes; then n_par and grain are set, and a big launch
    goes to the pool with a correct result."""
    eng = CPUEngine(num_threads=2)
    k = eng.compile(saxpy_kir())
    n = 2_000_000
    x, y = np.arange(n, dtype=np.float32), np.ones(n, np.float32)
    for _ in range(3):
        k.launch([np.float32(0.5), x.ctypes.data, y.ctypes.data], n)
    assert k.ns_per_iter is not None and 0 < k.ns_per_iter < 1000
    assert 4 <= k.n_par < 1 << 62 and k.grain >= 1
    np.testing.assert_allclose(y, 1 + 1.5 * x, rtol=1e-6)


def test_many_more_iterations_than_threads_with_uneven_work():
    """Iteration t loops t % 97 times: chunks are handed out dynamically and all complete."""
    i64 = D.i64
    body = [Assign(L, "s", C(0)),
            For(L, "j", C(0), E(Op.IREM, i64, T, C(97)), None,
                [Assign(L, "s", E(Op.ADD, i64, var("s"), var("j")))]),
            st("o", var("s"))]
    eng = CPUEngine(num_threads=2)
    k = eng.compile(kir("uneven", [arr("o", i64, True)], body, {"s": i64, "j": i64}))
    k.set_policy(n_par=2, grain=16)
    n = 300_007
    out = np.zeros(n, np.int64)
    k.launch([out.ctypes.data], n)
    m = np.arange(n) % 97
    assert np.array_equal(out, m * (m - 1) // 2)


@pytest.mark.parametrize("threads", [1, 2])
def test_concurrent_launches_from_python_threads(threads):
    """Two Python threads hammer the same kernel (and the same pool) with their own arrays."""
    eng = CPUEngine(num_threads=threads)
    k = eng.compile(saxpy_kir())
    if threads > 1:
        k.set_policy(n_par=64, grain=64)
    errors = []

    def worker(seed):
        rng = np.random.default_rng(seed)
        for it in range(200):
            n = int(rng.integers(0, 5000))
            a = float(rng.integers(-4, 5))
            x = rng.standard_normal(n).astype(np.float32)
            y = rng.standard_normal(n).astype(np.float32)
            want = np.float32(a) * x + y
            k.launch([a, x.ctypes.data, y.ctypes.data], n)
            if not np.allclose(y, want, rtol=1e-6, atol=1e-6):
                errors.append((seed, it, n))

    ths = [threading.Thread(target=worker, args=(s,)) for s in (1, 2)]
    for th in ths:
        th.start()
    for th in ths:
        th.join(timeout=120)
    assert not any(th.is_alive() for th in ths), "deadlock"
    assert errors == []


def test_launch_releases_the_gil():
    """A long kernel on one thread must not stop another Python thread from running."""
    i64 = D.i64
    spin = [Assign(L, "s", C(0)),
            For(L, "j", C(0), C(150_000_000), None,
                [Assign(L, "s", E(Op.XOR, i64, E(Op.MUL, i64, var("s"), C(31)), var("j")))]),
            st("o", var("s"))]
    k = CPUEngine(1).compile(kir("spin", [arr("o", i64, True)], spin, {"s": i64, "j": i64}))
    out = np.zeros(1, np.int64)
    th = threading.Thread(target=k.launch, args=([out.ctypes.data], 1))
    ticks = 0
    th.start()
    t0 = time.perf_counter()
    while th.is_alive() and time.perf_counter() - t0 < 30:
        ticks += 1
        time.sleep(0.001)
    th.join()
    assert ticks >= 5


def test_num_threads_from_environment(monkeypatch):
    monkeypatch.delenv("TACK_CPU_THREADS", raising=False)
    assert default_num_threads() == (os.cpu_count() or 1)
    for env, want in (("3", 3), ("0", 1), ("-4", 1), (" 2 ", 2)):
        monkeypatch.setenv("TACK_CPU_THREADS", env)
        assert default_num_threads() == want
        assert CPUEngine().num_threads == want
    monkeypatch.setenv("TACK_CPU_THREADS", "many")
    with pytest.raises(ValueError):
        CPUEngine()
    with pytest.raises(TackValueError):
        default_num_threads()
    assert CPUEngine(num_threads=5).num_threads == 5
    assert CPUEngine(num_threads=0).num_threads == 1


_EXIT_SCRIPT = """
import os, sys, threading
import numpy as np
sys.path[:0] = {path!r}
from tack import dtypes as D
from tack.ir.nodes import Expr, KernelIR, Loc, Param, Store
from tack.ir.ops import Op
from tack.runtime.cpu.engine import CPUEngine
L = Loc("t.py", 1, 1, 1, 2)
T = Expr(Op.LAUNCH, D.i64, (), None, L)
k = CPUEngine(2).compile(KernelIR("w", [Param("o", "array", D.i64, 1, written=True)],
                                  [Store(L, "o", (T,), T)], {{}}, L))
k.set_policy(n_par=2, grain=64)
o = np.zeros(100_000, np.int64)
k.launch([o.ctypes.data], len(o))
assert o[-1] == len(o) - 1
{tail}
"""


@pytest.mark.parametrize("tail", [
    # launches keep running on a daemon thread while the interpreter exits
    ("def loop():\n    while True: k.launch([o.ctypes.data], len(o))\n"
     "threading.Thread(target=loop, daemon=True).start()\nimport time; time.sleep(0.05)"),
    # a forked child gets a fresh pool and still launches in parallel; the parent still works
    ("pid = os.fork()\nif pid == 0:\n    o[:] = 0; k.launch([o.ctypes.data], len(o))\n"
     "    os._exit(0 if o[-1] == len(o) - 1 else 3)\n"
     "_, st = os.waitpid(pid, 0); assert st == 0, st\no[:] = 0\n"
     "k.launch([o.ctypes.data], len(o))\nassert o[-1] == len(o) - 1"),
], ids=["exit-while-launching", "fork"])
def test_process_lifecycle(tail):
    script = _EXIT_SCRIPT.format(path=sys.path, tail=tail)
    res = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=120, check=False)
    assert res.returncode == 0, res.stderr


def test_launch_overhead_budget():
    """Warm Python-side cost of a 1-element launch (budget: 5 µs; asserted loosely for CI)."""
    for threads in (1, 2):
        k = CPUEngine(threads).compile(saxpy_kir())
        x, y = np.ones(1, np.float32), np.ones(1, np.float32)
        args = [2.0, x.ctypes.data, y.ctypes.data]
        best = math.inf
        for _ in range(5):
            t0 = time.perf_counter()
            for _ in range(2000):
                k.launch(args, 1)
            best = min(best, (time.perf_counter() - t0) / 2000)
        assert best < 20e-6, f"{threads} threads: {best * 1e6:.2f} µs per launch"
