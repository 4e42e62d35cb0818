"""The native launch trampoline (runtime.cuda.launch), driven by a stand-in for cuLaunchKernel:
it needs no GPU, so it runs everywhere."""
import ctypes

import pytest

pytest.importorskip("llvmlite")

from tack.runtime.cuda.launch import Record, trampoline

_VP, _U = ctypes.c_void_p, ctypes.c_uint
_LAUNCH = ctypes.CFUNCTYPE(ctypes.c_int, _VP, _U, _U, _U, _U, _U, _U, _U, _VP, _VP, _VP)


@pytest.mark.parametrize("n, span, grid", [(1, 256, 1), (256, 256, 1), (257, 256, 2),
                                            (1025, 512, 3), ((2**31 - 1) * 256, 256, 2**31 - 1)])
def test_trampoline_passes_the_record_and_the_grid(n, span, grid):
    seen = []

    def fake(f, gx, gy, gz, bx, by, bz, smem, stream, params, extra):
        seen.append((f, gx, gy, gz, bx, by, bz, smem, stream, params, extra))
        return 7 if gx == 3 else 0  # a CUresult comes back unchanged

    cb = _LAUNCH(fake)
    slots = (ctypes.c_int64 * 3)(11, 22, n)
    params = (ctypes.c_void_p * 3)()
    rec = Record(ctypes.cast(cb, ctypes.c_void_p).value, 0x1234, span, 0x5678,
                 ctypes.addressof(params), ctypes.addressof(slots) + 16)
    code = trampoline()(rec.address)
    assert seen == [(0x1234, grid, 1, 1, 256, 1, 1, 0, 0x5678, ctypes.addressof(params), None)]
    assert code == (7 if grid == 3 else 0)


@pytest.mark.parametrize("shared", [0, 48 * 1024 + 16, 227 * 1024])
def test_trampoline_requests_the_dynamic_shared_memory(shared):
    """The record's last field is cuLaunchKernel's sharedMemBytes: a kernel whose shared arrays
    pass 48 KiB has them as dynamic shared memory (render/llvm/ptx_shared.py)."""
    seen = []
    cb = _LAUNCH(lambda f, gx, gy, gz, bx, by, bz, smem, *rest: seen.append(smem) or 0)
    slot = (ctypes.c_int64 * 1)(300)
    rec = Record(ctypes.cast(cb, ctypes.c_void_p).value, 1, 256, 0, 0, ctypes.addressof(slot),
                 shared)
    trampoline()(rec.address)
    assert seen == [shared]


def test_trampoline_reads_n_at_each_call():
    grids = []
    cb = _LAUNCH(lambda f, gx, *rest: grids.append(gx) or 0)
    slot = (ctypes.c_int64 * 1)(1)
    rec = Record(ctypes.cast(cb, ctypes.c_void_p).value, 1, 256, 0, 0, ctypes.addressof(slot))
    for n in (1, 512, 513, 100000):
        slot[0] = n
        trampoline()(rec.address)
    assert grids == [1, 2, 3, 391]


def test_prebuilt_path_inlines_the_native_launch():
    """A prebuilt call path (call/fast.py) packs the parameter block and calls the trampoline
    itself: the stand-in driver sees the grid and the packed values of each warm call."""
    import struct
    import threading

    import numpy as np

    pytest.importorskip("cuda.bindings", reason="tack.runtime.cuda imports cuda-bindings")

    import tack
    from tack.call import fast
    from tack.call.plan import Variant
    from tack.runtime.cuda.engine import CUDAKernel

    @tack.kernel
    def axpy(y, a, x, n):
        for i in range(n):
            y[i] = a * x[i] + y[i]

    x, y = tack.array(np.ones(4, np.float32)), tack.zeros(4)
    axpy(y, 2.0, x, 4)  # builds the specialization on the CPU
    plan = next(iter(axpy._plans.values()))
    seen = []
    cb = _LAUNCH(lambda f, gx, *rest: seen.append(gx) or 0)
    # A CUDAKernel without a GPU: only what the native launch path reads.
    k = object.__new__(CUDAKernel)
    k.name, k._lock, k._max, k._pending_add = "axpy", threading.Lock(), 10**6, set().add
    fmt = struct.Struct("@QfQiq")
    k._pack, k._buf = fmt.pack_into, ctypes.create_string_buffer(fmt.size)
    base = ctypes.addressof(k._buf)
    k._record = Record(ctypes.cast(cb, ctypes.c_void_p).value, 1, 256, 0, 0, base + 32)
    k._tramp, k._rec = trampoline(), k._record.address
    k._via = "native"
    call = fast.build(axpy, plan, (), Variant(k, []), [y, 2.0, x, 4])
    assert call((y, 0.5, x, 1000)) is None
    assert seen == [4] and fmt.unpack(k._buf.raw) == (y._ptr, 0.5, x._ptr, 1000, 1000)
    assert call((y, 0.5, x, 0)) is None and seen == [4]  # nothing to launch
    assert call((y, 0.5, x, 10**7)) is fast.MISS  # beyond one launch: the general path
    assert call((y, 0.5, x, 2**40)) is fast.MISS  # not an i32: another specialization
