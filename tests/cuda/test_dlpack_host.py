"""DLPack capsules built and read without a GPU: the ctypes structures round-trip, the deleter
runs, and CPU arrays exchange with NumPy through DLPack."""
import gc

import numpy as np
import pytest
import tack
from tack.runtime.cuda import dlpack as D

SHARED = []  # what export marked as shared (the caching allocator does not reuse it)


class _FakeEngine:
    index, stream_ptr = 0, 12345

    def share(self, ptr):
        SHARED.append(ptr)


class _FakeDevice:
    arch, is_host, engine = "cuda", False, _FakeEngine()


class _Buf:
    def __init__(self, ptr):
        self.ptr = ptr


def _fake_gpu_array(shape, dtype=tack.f32, ptr=0x7000_0000):
    return tack.Array(None, _FakeDevice(), _Buf(ptr), shape, dtype)


@pytest.mark.parametrize("versioned", [False, True])
def test_capsule_round_trip(versioned):
    before = set(D._live)  # another test's capsules, if any, are not this test's business
    a = _fake_gpu_array((3, 5), tack.i16)
    cap = a.__dlpack__(stream=-1, max_version=(1, 0) if versioned else None)
    assert len(set(D._live) - before) == 1
    ptr, t, deleter = D._consume(cap)
    assert t.data == 0x7000_0000 and t.ndim == 2 and tuple(t.shape[k] for k in range(2)) == (3, 5)
    assert (t.device.device_type, t.device.device_id) == (D.kDLCUDA, 0)
    assert (t.dtype.code, t.dtype.bits, t.dtype.lanes) == (0, 16, 1) and not t.strides
    D._Imported(ptr, deleter, cap)  # dropped at once: the deleter runs
    gc.collect()
    assert not set(D._live) - before


def test_unconsumed_capsule_releases():
    before = set(D._live)
    cap = _fake_gpu_array((4,)).__dlpack__(stream=-1)
    assert set(D._live) - before
    del cap
    gc.collect()
    assert not set(D._live) - before


def test_export_checks():
    a = _fake_gpu_array((4,))
    assert a.__dlpack_device__() == (D.kDLCUDA, 0)
    with pytest.raises(BufferError):
        a.__dlpack__(stream=-1, dl_device=(D.kDLCPU, 0))
    with pytest.raises(BufferError):
        a.__dlpack__(stream=-1, copy=True)
    SHARED.clear()
    cai = a.__cuda_array_interface__
    assert SHARED == [0x7000_0000]  # exported: its block is not reused
    assert cai["version"] == 3 and cai["typestr"] == "<f4" and cai["data"] == (0x7000_0000, False)
    assert cai["stream"] == 12345 and cai["shape"] == (4,)


def test_cpu_arrays_exchange_with_numpy():
    tack.set_default_device("cpu")
    a = tack.array(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert a.__dlpack_device__() == (D.kDLCPU, 0)
    v = np.from_dlpack(a)
    v[0, 0] = 42
    assert a.numpy()[0, 0] == 42  # shared, not copied
    h = np.arange(4.0)
    b = tack.from_dlpack(h)
    h[1] = -1
    assert b.numpy()[1] == -1 and b.dtype is tack.f64
    assert not hasattr(a, "__cuda_array_interface__")
    with pytest.raises(BufferError, match="contiguous"):
        tack.from_dlpack(np.arange(8.0)[::2])


def test_contiguity_rule():
    D._check_contiguous((2, 3), (3, 1))
    D._check_contiguous((2, 1), (1, 7))  # a size-1 dimension's stride does not matter
    with pytest.raises(BufferError):
        D._check_contiguous((2, 3), (1, 2))


def test_vector_arrays_export_components_as_a_trailing_dimension():
    before = set(D._live)
    vec3 = tack.dtypes.VecType(tack.f32, (3,))
    a = tack.Array(None, _FakeDevice(), _Buf(0x7000_0000), (5, 3), vec3)
    assert a.shape == (5,)
    ptr, t, deleter = D._consume(a.__dlpack__(stream=-1))
    assert tuple(t.shape[k] for k in range(t.ndim)) == (5, 3)
    assert (t.dtype.code, t.dtype.bits) == (2, 32)
    assert a.__cuda_array_interface__["shape"] == (5, 3)
    D._Imported(ptr, deleter, None)
    gc.collect()
    assert not set(D._live) - before


@pytest.mark.parametrize("dtype,code", [(tack.f16, (2, 16, 1)), (tack.bf16, (4, 16, 1))])
def test_half_dlpack_codes_round_trip(dtype, code):
    """f16 is kDLFloat of 16 bits, bf16 kDLBfloat (dlpack.h): exported and read back as such."""
    a = _fake_gpu_array((2, 3), dtype)
    ptr, t, deleter = D._consume(a.__dlpack__(stream=-1))
    assert (t.dtype.code, t.dtype.bits, t.dtype.lanes) == code
    assert D._tensor_dtype(t) is dtype
    D._Imported(ptr, deleter, None)


def test_half_cuda_array_interface():
    assert _fake_gpu_array((4,), tack.f16).__cuda_array_interface__["typestr"] == "<f2"
    b = _fake_gpu_array((4,), tack.bf16)
    assert not hasattr(b, "__cuda_array_interface__")  # no typestr a consumer reads as bf16
    with pytest.raises(AttributeError, match="__dlpack__"):
        b.__cuda_array_interface__  # noqa: B018


def test_f16_host_dlpack_shares_memory():
    a = tack.array(np.arange(4, dtype=np.float16))
    b = np.from_dlpack(a)
    assert b.dtype == np.float16 and b.tolist() == [0, 1, 2, 3]
    back = tack.from_dlpack(np.arange(3, dtype=np.float16))
    assert back.dtype is tack.f16
