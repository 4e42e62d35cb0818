"""Zero-copy exchange with CuPy and PyTorch on the GPU: __cuda_array_interface__ and DLPack, in
both directions, with the producer's queued work visible to the consumer without tack.sync()."""
import gc

import numpy as np
import pytest
import tack
from tack.runtime.cuda import dlpack as cuda_dlpack

from tests.cuda import gpu

pytestmark = [*gpu.MARKS, pytest.mark.usefixtures("cuda_device")]


@tack.kernel
def slow_fill(out, value, iters):
    for i in range(out.shape[0]):
        acc = 0
        for k in range(iters):  # a spin the compiler cannot fold: delays the write of `value`
            acc = acc * 1664525 + 1013904223 + k
        out[i] = value if acc != 12345 else -1.0


@tack.kernel
def add_one(x):
    for i in range(x.shape[0]):
        x[i] = x[i] + 1.0


def _ptr_torch(t):
    return t.data_ptr()


def test_torch_from_tack_shares_memory_and_waits():
    torch = gpu.optional("torch")
    before = set(cuda_dlpack._live)  # capsules of other tests are not this test's
    a = tack.zeros(1 << 16)
    slow_fill(a, 3.0, 20000)  # queued, not synced
    t = torch.from_dlpack(a)
    assert t.is_cuda and t.dtype == torch.float32 and tuple(t.shape) == (1 << 16,)
    assert _ptr_torch(t) == a._ptr
    assert bool((t == 3.0).all())  # torch's stream waited for Tack's
    t += 1
    torch.cuda.synchronize()
    assert (a.numpy() == 4.0).all()
    del t
    gc.collect()
    assert not set(cuda_dlpack._live) - before  # torch called the deleter


def test_tack_from_torch_shares_memory():
    torch = gpu.optional("torch")
    t = torch.arange(1000, dtype=torch.float32, device="cuda")
    a = tack.from_dlpack(t)
    assert a.shape == (1000,) and a.dtype is tack.f32 and a._ptr == t.data_ptr()
    add_one(a)
    tack.sync()
    assert bool((t == torch.arange(1000, device="cuda") + 1).all())
    b = tack.from_dlpack(t.reshape(10, 100)[2:])  # a contiguous view with an offset
    assert b.shape == (8, 100) and b._ptr == t.data_ptr() + 800
    with pytest.raises(BufferError, match="contiguous"):
        tack.from_dlpack(t.reshape(10, 100).t())
    for dt, td in ((tack.i64, torch.int64), (tack.u8, torch.uint8), (tack.f64, torch.float64)):
        assert tack.from_dlpack(torch.zeros(3, dtype=td, device="cuda")).dtype is dt


def test_torch_cuda_array_interface():
    torch = gpu.optional("torch")
    a = tack.array(np.arange(12, dtype=np.int32).reshape(3, 4))
    t = torch.as_tensor(a, device="cuda")
    assert t.data_ptr() == a._ptr and t.dtype == torch.int32
    assert t.cpu().numpy().tolist() == np.arange(12).reshape(3, 4).tolist()


def test_cupy_both_ways():
    cp = gpu.optional("cupy")
    a = tack.zeros(4096)
    slow_fill(a, 5.0, 20000)  # queued
    c = cp.asarray(a)  # __cuda_array_interface__ v3, with Tack's stream
    assert c.data.ptr == a._ptr and c.dtype == np.float32
    assert float(c.min()) == 5.0
    d = cp.from_dlpack(a)
    assert d.data.ptr == a._ptr
    d[:] = 2
    cp.cuda.runtime.deviceSynchronize()
    assert (a.numpy() == 2).all()
    e = cp.arange(300, dtype=cp.float64)
    b = tack.from_dlpack(e)
    add_one(b)
    tack.sync()
    assert cp.allclose(e, cp.arange(300) + 1)


def test_dropping_imported_tensor_releases_it():
    torch = gpu.optional("torch")
    t = torch.ones(1 << 20, device="cuda")
    before = torch.cuda.memory_allocated()
    a = tack.from_dlpack(t)
    del t
    gc.collect()
    assert torch.cuda.memory_allocated() == before  # Tack still holds it
    add_one(a)
    assert (a.numpy() == 2).all()
    del a
    gc.collect()
    assert torch.cuda.memory_allocated() < before
