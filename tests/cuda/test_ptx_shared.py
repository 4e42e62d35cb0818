"""Shared arrays in PTX (render/llvm/ptx_shared.py), checked without a GPU: within the 48 KiB a
CUDA kernel may declare statically they stay static `.shared` arrays; past it they become
1024-byte aligned offsets into one `.extern .shared` array, the bytes a launch requests
(`dynamic_bytes`, which runtime/cuda/kernel.py passes to cuFuncSetAttribute and to every launch
path; tests/cuda/test_launch_trampoline.py: the native path's record carries them). Where
`ptxas` is installed, both assemble, and the dynamic kernel declares no static shared memory.
On a GPU, the dynamic kernel computes what NumPy does."""
import re
import subprocess

import numpy as np
import pytest
import tack
from tack.compiler import specialize
from tack.render.llvm import ptx_shared
from tack.toolchain.nvptx import compile_ptx

from tests import engines
from tests.cuda.ptxas import PTXAS


def _kernel(first: int, second: int):
    """Two shared f32 arrays of `first` and `second` elements; lane t of group g writes
    x[i] to the first array and 2 x[i] to the second, then y[i] reads lane 255 - t's pair."""
    A, B = tack.constant(first), tack.constant(second)

    @tack.kernel
    def pair(x, y, n):
        for i in range(n):
            a_s = tack.shared(tack.f32, A)
            b_s = tack.shared(tack.f32, B)
            t = tack.thread_id()
            a_s[A - 256 + t] = x[i]
            b_s[B - 256 + t] = x[i] * 2.0
            tack.barrier()
            y[i] = a_s[A - 1 - t] + b_s[B - 1 - t]
    return pair


def _kir(first: int, second: int):
    args = [tack.zeros(256), tack.zeros(256), 256]
    with tack.device("cpu"):
        return specialize(_kernel(first, second), args, library_math=False)


def test_arrays_within_48_kib_stay_static():
    kir = _kir(8192, 4096)  # 48 KiB exactly
    assert ptx_shared.layout(kir) is None and ptx_shared.dynamic_bytes(kir) == 0
    ptx = compile_ptx(kir, "sm_80").ptx
    static = re.findall(r"^\s*\.shared \.align 16 \.b8 \S+\[(\d+)\];", ptx, re.MULTILINE)
    assert sorted(static) == ["16384", "32768"]
    assert ".extern" not in ptx


def test_arrays_past_48_kib_are_dynamic_at_aligned_offsets():
    kir = _kir(10000, 6000)  # 40000 + 24000 bytes
    offsets, total = ptx_shared.layout(kir)
    assert sorted(offsets.values()) == [0, 40960] and total == 40960 + 24576
    ptx = compile_ptx(kir, "sm_80").ptx
    assert ".extern .shared .align 1024 .b8 tack_dynamic_shared[];" in ptx
    assert not re.search(r"^\s*\.shared ", ptx, re.MULTILINE)
    # the second array's last 256 elements: at 40960 + 4 * (6000 - 256) from the base
    assert re.search(r"st\.shared\.b32 \t\[%rd\d+\+63936\]", ptx), ptx


@pytest.mark.skipif(PTXAS is None, reason="ptxas is not installed")
@pytest.mark.parametrize("sizes", [(8192, 4096), (10000, 6000), (40000, 16000)], ids=str)
def test_ptxas_assembles_both(tmp_path, sizes):
    src = tmp_path / "k.ptx"
    src.write_text(compile_ptx(_kir(*sizes), "sm_80").ptx)
    run = subprocess.run([PTXAS, "-arch=sm_80", "-v", str(src), "-o", str(tmp_path / "k.cubin")],
                         check=False, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    static = re.search(r"(\d+) bytes smem", run.stderr)
    assert (int(static.group(1)) if static else 0) == (49152 if sizes == (8192, 4096) else 0)


@pytest.mark.cuda
@pytest.mark.parametrize("sizes", [(8192, 4096), (10000, 6000), (16000, 8000)], ids=str)
def test_the_dynamic_kernel_runs(sizes):
    """On a GPU: the launch requests the bytes (up to 97,280 here: sm_86 and sm_89 hold 99 KiB
    a block, sm_80 163 KiB, sm_90 227 KiB), and the kernel reads what each lane wrote."""
    reason = engines.cuda_unavailable()
    if reason:
        pytest.skip(reason)
    tack.set_default_device("cuda")
    x = np.arange(512, dtype=np.float32)
    y = tack.zeros(512)
    _kernel(*sizes)(tack.array(x), y, 512)
    want = 3.0 * (x.reshape(2, 256)[:, ::-1]).reshape(-1)
    np.testing.assert_array_equal(y.numpy(), want)
