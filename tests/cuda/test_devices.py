"""Devices as values on one GPU: `cuda:0` by name, its arrays and `a.to`, a kernel following its
arguments onto the GPU, the rejections (a device index that does not exist, arguments on the
GPU and the CPU), `with` blocks, and per-device waits."""
import numpy as np
import pytest
import tack

from tests.cuda import gpu

pytestmark = gpu.MARKS


@tack.kernel
def add_one(x, out):
    for i in range(x.shape[0]):
        out[i] = x[i] + 1.0



def test_cuda_0_is_a_value():
    d = tack.device("cuda:0")
    assert d is tack.device("cuda") and d.index == 0 and d.name == "cuda"
    assert repr(d) == "tack.device('cuda:0')"
    assert d in tack.devices() and d.supports_workgroups and not d.is_host
    assert d.engine.index == 0


def test_an_index_that_does_not_exist_is_refused():
    n = len([d for d in tack.devices() if d.arch == "cuda"])
    with pytest.raises(RuntimeError, match=f"device index {n + 7} does not exist"):
        tack.set_default_device(f"cuda:{n + 7}")
    assert tack.default_device().name == "cpu"  # a rejected selection changes nothing
    with pytest.raises(RuntimeError, match="does not exist"):
        tack.zeros(3, device=f"cuda:{n + 7}")


def test_arrays_move_with_to_and_kernels_follow_them():
    host = np.arange(1000, dtype=np.float32)
    x = tack.array(host).to("cuda:0")
    assert x.device is tack.device("cuda:0")
    out = tack.zeros(1000, device="cuda:0")
    add_one(x, out)  # the current device is the CPU: the call follows its arguments
    add_one(x, out)  # and the fast path too
    tack.sync(tack.device("cuda:0"))
    np.testing.assert_array_equal(out.to("cpu").numpy(), host + 1)
    assert out.to("cpu").device is tack.device("cpu")
    assert x.to("cuda:0") is x


def test_gpu_and_cpu_arguments_are_refused_before_launch():
    x, out = tack.zeros(8, device="cuda:0"), tack.zeros(8)
    with pytest.raises(ValueError, match=r"cuda:0.*cpu|cpu.*cuda:0"):
        add_one(x, out)


def test_with_block_allocates_and_runs_on_the_gpu():
    with tack.device("cuda:0") as d:
        x = tack.array(np.ones(256, np.float32))
        out = tack.zeros(256)
        add_one(x, out)
    assert x.device is d and out.device is d
    tack.sync()
    np.testing.assert_array_equal(out.numpy(), np.full(256, 2.0))
