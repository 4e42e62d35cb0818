"""The native launch trampoline (runtime.cuda_launch), driven by a stand-in for cuLaunchKernel:
it needs no GPU, so it runs everywhere."""
import ctypes

import pytest

pytest.importorskip("llvmlite")

from tack.runtime.cuda_launch import Record, trampoline

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


def test_trampoline_reads_n_at_each_call():
    grids = []
    cb = _LAUNCH(lambda f, gx, *rest: grids.append(gx) or 0)
    slot = (ctypes.c_int64 * 1)(1)
    rec = Record(ctypes.cast(cb, ctypes.c_void_p).value, 1, 256, 0, 0, ctypes.addressof(slot))
    for n in (1, 512, 513, 100000):
        slot[0] = n
        trampoline()(rec.address)
    assert grids == [1, 2, 3, 391]
