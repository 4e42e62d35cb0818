"""`tack.sync()` asks only the engines that may still be running something (`Engine.queues`): the
CPU engine's launches return finished, so the warm `k(...); tack.sync()` pays no call into it,
while `tack.sync(device)` still asks the device's engine whatever it says."""
from __future__ import annotations

import numpy as np
import tack
from tack.runtime.cpu.engine import CPUEngine


@tack.kernel
def add_one(x):
    for i in range(x.shape[0]):
        x[i] = x[i] + 1.0


def test_sync_skips_an_engine_that_queues_nothing(monkeypatch):
    cpu = tack.set_default_device("cpu")
    x = tack.array(np.zeros(3, np.float32))
    add_one(x)  # the engine has started
    asked = []
    monkeypatch.setattr(CPUEngine, "sync", lambda self: asked.append(self))
    assert CPUEngine.queues is False
    tack.sync()
    assert asked == []
    tack.sync(cpu)  # one device: its engine, asked
    assert asked == [cpu._engine]
    monkeypatch.setattr(CPUEngine, "queues", True)  # an engine that queues: asked by sync()
    asked.clear()
    tack.sync()  # every started CPU engine (others of this process may have started too)
    assert cpu._engine in asked
    assert all(isinstance(e, CPUEngine) for e in asked)
    np.testing.assert_array_equal(x.numpy(), 1.0)


def test_sync_waits_for_a_started_engine_that_queues():
    x = tack.array(np.zeros(4, np.float32), device="sim:3")
    add_one(x)
    assert tack.device("sim:3")._engine.queues  # (the engine's default)
    assert tack.sync() is None
    np.testing.assert_array_equal(x.numpy(), 1.0)
