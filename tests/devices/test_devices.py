"""Devices as values, on the CPU and on several simulated devices in one process ("sim:0",
"sim:1", ...): names, equality, `with` blocks per thread, where arrays live, `a.to`, where a
kernel runs, the two-device rejection, per-device compile entries and `tack.sync`."""
import threading

import numpy as np
import pytest
import tack
from tack.devices import DeviceMismatchError


@tack.kernel
def add_one(x, out):
    for i in range(x.shape[0]):
        out[i] = x[i] + 1.0


def test_devices_are_values():
    a, b = tack.device("sim:1"), tack.device("sim:1")
    assert a is b and a == b and hash(a) == hash(b)
    assert a != tack.device("sim") and a != tack.device("cpu")
    assert (a.name, a.index, a.arch) == ("sim:1", 1, "sim")
    assert (tack.device("cuda").name, tack.device("cuda").index) == ("cuda", 0)
    assert repr(a) == "tack.device('sim:1')"
    assert repr(tack.device("cuda")) == "tack.device('cuda:0')"
    assert repr(tack.device("cpu", num_threads=2)) == "tack.device('cpu', num_threads=2)"
    assert repr(tack.device("cuda", engine="julia")) == "tack.device('cuda:0', engine='julia')"
    assert a.supports_workgroups and a.is_host
    assert tack.device(a) is a
    assert {tack.device("sim:1"): 1}[a] == 1


def test_devices_lists_the_cpu_first():
    found = tack.devices()
    assert found[0] == tack.device("cpu")
    assert all(d.arch in ("cpu", "cuda") for d in found)


def test_set_default_device_takes_a_device():
    d = tack.set_default_device(tack.device("sim:2"))
    assert tack.default_device() is d
    assert tack.zeros(3).device is d


def test_with_block_selects_and_restores():
    outer = tack.default_device()
    with tack.device("sim:1") as d:
        assert tack.default_device() is d
        assert tack.zeros(2).device is d
        with tack.device("sim:2"):
            assert tack.default_device().name == "sim:2"
        assert tack.default_device() is d
    assert tack.default_device() is outer


def test_with_block_is_per_thread():
    seen = {}
    inside, done = threading.Event(), threading.Event()

    def other():
        inside.wait()
        seen["other"] = tack.default_device().name
        done.set()

    t = threading.Thread(target=other)
    t.start()
    with tack.device("sim:1"):
        inside.set()
        done.wait()
        seen["main"] = tack.default_device().name
    t.join()
    assert seen == {"other": "cpu", "main": "sim:1"}


def test_with_block_restores_after_an_exception():
    with pytest.raises(KeyError), tack.device("sim:3"):
        raise KeyError
    assert tack.default_device().name == "cpu"


def test_allocations_take_a_device_or_a_name():
    d = tack.device("sim:1")
    assert tack.zeros(3, device=d).device is d
    assert tack.empty(3, device="sim:1").device is d
    assert tack.array([1.0, 2.0], device="sim:1").device is d
    assert tack.ones(2, device="sim:1").device is d


def test_to_copies_between_devices():
    a = tack.array(np.arange(4, dtype=np.float32))
    b = a.to("sim:1")
    assert b.device is tack.device("sim:1") and b is not a
    np.testing.assert_array_equal(b.numpy(), a.numpy())
    assert b.to(tack.device("sim:1")) is b
    c = b.to("cpu")
    assert c.device is tack.device("cpu")
    np.testing.assert_array_equal(c.numpy(), a.numpy())
    v = tack.zeros(3, tack.vec3).to("sim:2")
    assert v.dtype == tack.vec3 and v.shape == (3,)


def test_a_kernel_runs_on_its_arguments_device():
    d1, d2 = tack.device("sim:1"), tack.device("sim:2")
    x = tack.array(np.arange(5, dtype=np.float32), device=d1)
    out = tack.zeros(5, device=d1)
    before = d1.engine.compiled
    add_one(x, out)  # the current device is the CPU
    assert d1.engine.compiled == before + 1
    np.testing.assert_array_equal(out.numpy(), np.arange(5) + 1)
    y, out2 = x.to(d2), tack.zeros(5, device=d2)
    add_one(y, out2)  # its own compile entry on the second device
    assert d2.engine.compiled == 1
    add_one(y, out2)
    add_one(x, out)  # the fast path keeps each call on its arguments' device
    assert (d1.engine.compiled, d2.engine.compiled) == (before + 1, 1)
    np.testing.assert_array_equal(out2.numpy(), np.arange(5) + 1)


def test_arguments_on_two_devices_are_refused_before_launch():
    x = tack.array(np.ones(3, np.float32), device="sim:1")
    out = tack.zeros(3, device="sim:2")
    with pytest.raises(ValueError, match=r"sim:1.*sim:2"):
        add_one(x, out)
    assert out.numpy().tolist() == [0, 0, 0]
    add_one(x, x)  # a call that worked, then a mismatch on the fast path's heels
    with pytest.raises(DeviceMismatchError, match="two devices"):
        add_one(x, out)


def test_cpu_arrays_serve_a_simulated_device():
    x, out = tack.array(np.ones(3, np.float32)), tack.zeros(3, device="sim:1")
    add_one(x, out)  # CPU memory is readable by every host device: it runs on sim:1
    assert out.numpy().tolist() == [2, 2, 2]


def test_concurrent_calls_on_two_devices_from_two_threads():
    outs = {}

    def work(name):
        x = tack.array(np.arange(1000, dtype=np.float32), device=name)
        out = tack.zeros(1000, device=name)
        for _ in range(3):
            add_one(x, out)
        tack.sync(out.device)
        outs[name] = out.numpy()

    threads = [threading.Thread(target=work, args=(n,)) for n in ("sim:1", "sim:2")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for got in outs.values():
        np.testing.assert_array_equal(got, np.arange(1000) + 1)


def test_sync_one_and_all():
    """sync(device) waits for that device's work, starting nothing: a device never used has
    nothing to wait for and stays unstarted; sync() waits for every started device."""
    x, out = tack.array(np.arange(5, dtype=np.float32), device="sim:1"), \
        tack.zeros(5, device="sim:1")
    add_one(x, out)
    assert tack.sync(tack.device("sim:1")) is None
    np.testing.assert_array_equal(out.numpy(), np.arange(5) + 1)
    idle = tack.device("sim:7")
    assert tack.sync(idle) is None
    assert idle not in tack.devices.started()
    add_one(out, out)
    assert tack.sync() is None
    np.testing.assert_array_equal(out.numpy(), np.arange(5) + 2)
    assert tack.device("sim:1") in tack.devices.started() and idle not in tack.devices.started()
