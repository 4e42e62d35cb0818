"""tack.Arrays on the Julia engine's GPU devices (runtime/julia/storage.py), without Julia: the
bookkeeping against a fake juliacall whose "device memory" is NumPy bytes. What is allocated,
copied and launched when, the layout, and the errors raised before anything runs. The same
paths run on Julia 1.5.3 in test_julia153_device_arrays.py."""
import numpy as np
import pytest
import tack
from tack.devices import DeviceMismatchError
from tack.errors import TackBufferError
from tack.render.julia.ka import JL_TYPES
from tack.runtime.julia import engine as rj
from tack.runtime.julia.storage import FUNCTIONS, JuliaBuffer

from tests.julia.fake_julia import FakeJulia

JULIA_TYPES = {name: d for d, name in JL_TYPES.items()}


class DeviceArray:
    """What `tk_alloc` returns here: a Julia byte vector on a backend, as NumPy bytes."""

    def __init__(self, nbytes: int, backend):
        self.bytes, self.backend = np.full(nbytes, 0xAB, np.uint8), backend  # uninitialized


class DeviceFake(FakeJulia):
    """FakeJulia plus TackRuntime's storage functions; `calls` records their names in order."""

    def __init__(self):
        super().__init__(packages=("CUDA", "Metal"))
        self.calls, self.resident, self.fail_wait = [], [], None

    def seval(self, code: str):
        name = code.removeprefix("TackRuntime.")
        if name in FUNCTIONS:
            return lambda *a: self._storage(name, *a)
        if code in JULIA_TYPES:
            return JULIA_TYPES[code].np  # a Julia type: here the NumPy dtype
        return super().seval(code)

    def _storage(self, name, *a):
        self.calls.append(name)
        if name == "tk_alloc":
            return DeviceArray(a[1], a[0])
        if name == "tk_typed":
            return a[0].bytes.view(a[1])
        if name == "tk_upload!":
            arr, offset, host = a
            arr.bytes[offset:offset + host.size] = host
        elif name == "tk_download!":
            out, arr, offset, _ = a
            if self.fail_wait:
                raise RuntimeError(self.fail_wait)
            out[...] = arr.bytes[offset:offset + out.size]
        elif name == "tk_fill0!":
            a[0].bytes[...] = 0
        elif name == "tk_copy!":
            a[0].bytes[:a[2]] = a[1].bytes[:a[2]]
        elif name == "launch_resident!":
            self.resident.append(a)
        elif name == "tk_synchronize" and self.fail_wait:
            raise RuntimeError(self.fail_wait)
        return None


@pytest.fixture
def jl(monkeypatch, fresh_session):
    import sys
    import types

    fake = DeviceFake()
    mod = types.SimpleNamespace(newmodule=lambda name: fake, JuliaError=RuntimeError)
    monkeypatch.setitem(sys.modules, "juliacall", mod)
    return fake


@pytest.fixture
def dev():
    return tack.device("cuda", engine="julia")


@tack.kernel
def scale_into(a, x, out):
    for i in range(x.shape[0]):
        out[i] = a * x[i]


def test_an_array_is_julia_memory_on_the_backend(jl, dev):
    x = tack.array(np.arange(6, dtype=np.float32), device=dev)
    assert not dev.is_host and x.device is dev and isinstance(x._buf, JuliaBuffer)
    assert jl.calls == ["tk_alloc", "tk_upload!"]
    assert x._buf.arr.backend == "<CUDA.CUDABackend()>" and x._buf.nbytes == 24
    np.testing.assert_array_equal(x.numpy(), np.arange(6))
    assert jl.calls[-1] == "tk_download!"


def test_zeros_and_empty_are_zeroed_on_the_device(jl, dev):
    for make in (tack.zeros, tack.empty):
        a = make((2, 3), tack.i32, device=dev)
        assert jl.calls[-2:] == ["tk_alloc", "tk_fill0!"] and a._buf.nbytes == 24
        np.testing.assert_array_equal(a.numpy(), np.zeros((2, 3), np.int32))


def test_kernel_calls_run_on_device_memory_without_copies(jl, dev):
    x = tack.array(np.arange(4, dtype=np.float32), device=dev)
    out = tack.zeros(4, device=dev)
    del jl.calls[:]
    scale_into(2.0, x, out)
    assert jl.calls == ["tk_typed", "tk_typed", "launch_resident!"]  # no upload, no download
    fn, backend, n, a, xv, ov = jl.resident[-1]
    assert fn.startswith("<fn tk_scale_into_") and backend == "<CUDA.CUDABackend()>"
    assert (type(n), n, type(a), a) == (np.int64, 4, np.float32, 2.0)
    assert xv.dtype == np.float32 and np.shares_memory(xv, x._buf.arr.bytes)
    assert np.shares_memory(ov, out._buf.arr.bytes)
    scale_into(3.0, out, out)  # again: the typed views are reused, still no copy
    assert jl.calls[3:] == ["launch_resident!"]
    out.numpy()
    assert jl.calls[-1] == "tk_download!"


def test_launches_are_queued_and_a_failure_names_the_kernels(jl, dev):
    x = tack.zeros(4, device=dev)
    scale_into(2.0, x, x)
    jl.fail_wait = "KernelException: exception thrown during kernel execution"
    with pytest.raises(RuntimeError, match=r"download failed \(kernels launched since the last "
                                           r"wait: scale_into\): KernelException"):
        x.numpy()
    with pytest.raises(RuntimeError, match=r"next wait failed: KernelException"):
        tack.sync(dev)  # nothing pending now: no kernel is named
    jl.fail_wait = None
    tack.sync(dev)
    assert jl.calls[-1] == "tk_synchronize"


def test_layout_is_numpys_row_major_order(jl, dev):
    """A (2, 3) array is 6 elements in C order, as the kernels index it (flat, row-major)."""
    host = np.arange(6, dtype=np.int16).reshape(2, 3)
    a = tack.array(host, device=dev)
    assert a._buf.arr.bytes.view(np.int16).tolist() == [0, 1, 2, 3, 4, 5]
    assert a[1, 0] == 3 and a[0, 2] == 2 and a[-1, -1] == 5
    assert jl.calls[-1] == "tk_download!"  # one element: 2 bytes from its offset
    r = a.reshape(3, 2)  # a view: the same device memory
    assert r._buf is a._buf and r[2, 1] == 5
    v = tack.array(np.arange(12, dtype=np.float32).reshape(4, 3), tack.vec3, device=dev)
    assert v.shape == (4,) and v[2].tolist() == [6, 7, 8]


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32,
                                   np.int64, np.uint64, np.float32, np.float64])
def test_every_dtype_round_trips(jl, dev, dtype):
    host = np.array([0, 1, 2, 3, 4, 120], dtype)
    a = tack.array(host, device=dev)
    assert a.dtype == tack.dtypes.from_numpy(np.dtype(dtype))
    np.testing.assert_array_equal(a.numpy(), host)
    np.testing.assert_array_equal(a.copy().numpy(), host)
    assert jl.calls[-2:] == ["tk_copy!", "tk_download!"]


def test_copies_fill_and_moves(jl, dev):
    a = tack.array(np.arange(5, dtype=np.float32), device=dev)
    a.fill(7)
    assert jl.calls[-1] == "tk_upload!" and a.numpy().tolist() == [7] * 5
    tack.copyto(a, np.arange(5, dtype=np.float64))  # converted to the array's dtype on the host
    assert a.numpy().tolist() == [0, 1, 2, 3, 4]
    back = a.to("cpu")
    assert back.device.is_host and back.numpy().tolist() == [0, 1, 2, 3, 4]
    there = back.to(dev)
    assert there.device is dev and jl.calls[-2:] == ["tk_alloc", "tk_upload!"]
    assert a.to(dev) is a
    with pytest.raises(ValueError, match="read-only|Shape mismatch"):
        tack.copyto(a, np.zeros(4))


# -- errors before anything runs ---------------------------------------------------------------

def _no_launch(jl) -> bool:
    return "launch_resident!" not in jl.calls


def test_arrays_of_another_device_are_refused_before_launch(jl, dev):
    x = tack.zeros(4, device=dev)
    for other in (tack.zeros(4), tack.zeros(4, device="sim"),
                  tack.zeros(4, device=tack.device("metal", engine="julia"))):
        with pytest.raises(DeviceMismatchError, match=r"two devices.*engine='julia'"):
            scale_into(2.0, other, x)
    assert _no_launch(jl)


def test_a_julia_gpu_device_is_not_the_native_cuda_device(jl, dev):
    assert dev.place == "cuda:0 julia" and tack.device("cuda").place == "cuda:0"
    assert tack.device("cpu", engine="julia").place == "host"


def test_host_arrays_are_refused_while_a_julia_gpu_device_is_current(jl, dev):
    tack.set_default_device(dev)
    out = tack.zeros(4)
    assert out.device is dev
    with pytest.raises(DeviceMismatchError, match="current device is"):
        scale_into(2.0, tack.zeros(4, device="cpu"), tack.zeros(4, device="cpu"))
    assert _no_launch(jl)


def test_arrays_of_an_ended_session_are_freed(jl, dev, monkeypatch):
    x = tack.zeros(4, device=dev)
    monkeypatch.setattr(rj._Session, "_current", None)  # a new Julia session from here on
    with pytest.raises(RuntimeError, match="memory was freed"):
        scale_into(2.0, x, x)
    with pytest.raises(RuntimeError, match="memory was freed"):
        x.numpy()
    assert _no_launch(jl)


def test_sync_skips_an_ended_session(jl, dev, monkeypatch):
    tack.zeros(4, device=dev)
    monkeypatch.setattr(rj._Session, "_current", None)
    tack.sync(dev)  # the device's storage belongs to the ended session: nothing to wait for
    assert "tk_synchronize" not in jl.calls


def test_direct_launches_check_dtypes_and_kinds(jl, dev):
    from tack.compiler import specialize

    x = tack.zeros(4, device=dev)
    k = dev.engine.compile(specialize(scale_into, [2.0, x, x], device=dev))
    f64 = tack.zeros(4, tack.f64, device=dev)
    with pytest.raises(TypeError, match="'x' has dtype tack.f64, but this specialization"):
        k.launch([2.0, f64, x], 4)
    with pytest.raises(ValueError, match="takes a whole f32 array; this buffer is 6 bytes"):
        k.launch([2.0, dev.engine.alloc(6), x], 4)
    with pytest.raises(ValueError, match="all NumPy arrays or all arrays of julia:cuda"):
        k.launch([2.0, np.zeros(4, np.float32), x], 4)
    metal = tack.zeros(4, device=tack.device("metal", engine="julia"))
    with pytest.raises(ValueError, match="belongs to julia:metal"):
        k.launch([2.0, metal._buf, x._buf], 4)
    assert _no_launch(jl)
    k.launch([2.0, x, x._buf], 4)  # a tack.Array or its buffer
    assert jl.calls[-1] == "launch_resident!"


def test_numpy_arguments_still_upload_per_launch(jl, dev):
    from tack.compiler import specialize

    x = tack.zeros(4)
    k = dev.engine.compile(specialize(scale_into, [2.0, x, x], device=dev))
    k.launch([2.0, np.ones(4, np.float32), np.zeros(4, np.float32)], 4)
    assert jl.launches and _no_launch(jl)  # TackRuntime.launch!, as before


def test_no_dlpack_for_julia_arrays(jl, dev):
    x = tack.zeros(4, device=dev)
    assert not hasattr(x, "__cuda_array_interface__")
    with pytest.raises(TackBufferError, match="is a Julia array"):
        x.__dlpack__()
    with pytest.raises(TackBufferError, match="is a Julia array"):
        x.__dlpack_device__()
    with pytest.raises(TackBufferError, match="without a copy"):
        tack.from_dlpack(np.zeros(3, np.float32), device=dev)


def test_other_device_indices_are_refused(jl):
    with pytest.raises(ValueError, match="'cuda:1' is not supported"):
        tack.zeros(4, device=tack.device("cuda:1", engine="julia"))


def test_views_of_one_array_stay_one_device_array(jl, dev):
    """Two views (reshapes) of one array share its buffer, so a launch passes the same Julia
    vector for both: writes through one are reads through the other, as on the host."""
    x = tack.zeros((2, 2), device=dev)
    scale_into(2.0, x.reshape(4), x.reshape(4))
    _, _, _, _, xv, ov = jl.resident[-1]
    assert xv is ov
