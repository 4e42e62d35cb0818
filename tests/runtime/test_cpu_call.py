"""The native caller of a CPU kernel (runtime/cpu/call.py): the warm launch of tack.call.fast
without ctypes. Serial and pooled launches, a block it cannot read, Python threads sharing a
kernel, the GIL released while a kernel runs, and kernel calls that go through it."""
from __future__ import annotations

import struct
import threading
import time

import numpy as np
import pytest
import tack
from tack import dtypes as D
from tack.ir.nodes import Assign, For
from tack.ir.ops import Op
from tack.runtime.cpu import call as cpu_call
from tack.runtime.cpu.engine import CPUEngine

from tests.runtime.irbuild import C, E, L, arr, kir, st

pytestmark = pytest.mark.skipif(not cpu_call.available(), reason="no native caller here")


def iota(threads):
    from tests.runtime.irbuild import iota_kir

    return CPUEngine(threads).compile(iota_kir())


@pytest.mark.parametrize("threads", [1, 2])
def test_the_caller_launches_serially_and_through_the_pool(threads):
    k = iota(threads)
    n = 50_000
    out = np.full(n + 2, -1, np.int64)
    assert k._caller.fn(struct.pack("@Qq", out.ctypes.data, n)) is k._caller.record
    assert np.array_equal(out[:n], 3 * np.arange(n)) and (out[n:] == -1).all()
    if threads > 1:  # the policy, once final, is the record's: this launch goes to the pool
        k.set_policy(n_par=2, grain=64)
        assert struct.unpack_from("@qq", k._caller.record) == (2, 64)
        out[:] = -1
        k._caller.fn(struct.pack("@Qq", out.ctypes.data, n))
        assert np.array_equal(out[:n], 3 * np.arange(n)) and (out[n:] == -1).all()


def test_a_block_that_is_not_bytes_raises():
    with pytest.raises(TypeError):
        iota(1)._caller.fn(bytearray(16))


def test_the_caller_releases_the_gil():
    i64 = D.i64
    s = E(Op.VAR, i64, arg="s")
    spin = [Assign(L, "s", C(0)),
            For(L, "j", C(0), C(150_000_000), None,
                [Assign(L, "s", E(Op.XOR, i64, E(Op.MUL, i64, s, C(31)),
                                  E(Op.VAR, i64, arg="j")))]),
            st("o", s)]
    k = CPUEngine(1).compile(kir("spin", [arr("o", i64, True)], spin, {"s": i64, "j": i64}))
    out = np.zeros(1, np.int64)
    th = threading.Thread(target=k._caller.fn, args=(struct.pack("@Qq", out.ctypes.data, 1),))
    ticks = 0
    th.start()
    t0 = time.perf_counter()
    while th.is_alive() and time.perf_counter() - t0 < 30:
        ticks += 1
        time.sleep(0.001)
    th.join()
    assert ticks >= 5


@tack.kernel
def scaled(x, a, out):
    for i in range(x.shape[0]):
        out[i] = a * x[i]


@pytest.fixture(params=[1, 2], ids=["serial", "threads2"])
def cpu_device(request):
    return tack.set_default_device("cpu", num_threads=request.param)


def test_warm_kernel_calls_from_two_python_threads(cpu_device):
    """Both threads take the prebuilt path through the caller with their own arrays."""
    errors = []

    def worker(seed):
        rng = np.random.default_rng(seed)
        for it in range(300):
            n = int(rng.integers(1, 3000))
            x = rng.standard_normal(n).astype(np.float32)
            a = float(rng.integers(-4, 5))
            out = tack.zeros(n)
            scaled(tack.array(x), a, out)
            if not np.allclose(out.numpy(), np.float32(a) * x, rtol=1e-6, atol=1e-6):
                errors.append((seed, it, n))

    ths = [threading.Thread(target=worker, args=(s,)) for s in (1, 2)]
    for th in ths:
        th.start()
    for th in ths:
        th.join(timeout=120)
    assert not any(th.is_alive() for th in ths), "deadlock"
    assert errors == []


def test_warm_calls_go_through_the_caller(cpu_device):
    x, out = tack.array(np.arange(4, dtype=np.float32)), tack.zeros(4)
    scaled(x, 2.0, out)
    scaled(x, 2.0, out)  # a variant's second call builds its prebuilt path
    assert "_pack_n" in scaled._entry.__code__.co_names  # the caller's block, packed inline
    scaled(x, 3.0, out)
    np.testing.assert_array_equal(out.numpy(), 3 * np.arange(4))
