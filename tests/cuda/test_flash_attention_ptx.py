"""The tensor-core attention kernels (ops/flash_attention.py) in PTX, checked without a GPU
(NVPTX is part of llvmlite): per key tile one `mma.sync` per 16×8×16 step of the scores and of
P V, the tiles copied with 16-byte `cp.async`, the weights' exp2 one `ex2.approx` each, the
shared buffer under the 48 KiB a block may declare statically, and, where `ptxas` is installed,
assembled for sm_80 and sm_90 without spilling to local memory (each warp's fragments stay in
registers)."""
import functools
import re
import shutil
import subprocess

import pytest
import tack
from tack.compiler import specialize
from tack.ops import flash_attention as fa
from tack.toolchain.nvptx import compile_ptx

PTXAS = shutil.which("ptxas")
CASES = [(64, tack.f16), (64, tack.bf16), (128, tack.f16), (128, tack.bf16)]


@pytest.fixture(autouse=True)
def cpu():
    tack.set_default_device("cpu")  # specialization only: nothing runs
    yield


@functools.cache
def _ptx(d, dtype, arch="sm_80") -> str:
    kernel = fa.flash64 if d == 64 else fa.flash128
    narrow = fa.to_f16 if dtype is tack.f16 else fa.to_bf16
    args = [tack.zeros((256, d), dtype) for _ in range(4)] + [512, 256, 0.18, 1, narrow]
    return compile_ptx(specialize(kernel, args, library_math=False), arch).ptx


@pytest.mark.parametrize("d, dtype", CASES, ids=lambda x: str(x))
def test_the_kernels_render(d, dtype):
    ptx = _ptx(d, dtype)
    # scores: 4 tiles of 8 keys × d / 16 steps; P V: d / 8 tiles × 2 steps of 16 keys
    assert len(re.findall(r"mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\." + dtype.name, ptx)) \
        == 4 * d // 16 + d // 8 * 2
    assert len(re.findall(r"cp\.async\.cg\.shared\.global", ptx)) > 0
    assert len(re.findall(r"\bex2\.approx", ptx)) == 4 * 4 + 4  # the weights, the rescaling
    size = int(re.search(r"\.shared \.align \d+ \.b8 \S+\[(\d+)\]", ptx).group(1))
    assert size == fa.ROWS * (d + 8) * 2 <= 48 * 1024
    assert ".local" not in ptx


@pytest.mark.skipif(PTXAS is None, reason="ptxas is not installed")
@pytest.mark.parametrize("d, dtype, arch", [(64, tack.f16, "sm_80"), (128, tack.bf16, "sm_80"),
                                            (128, tack.f16, "sm_90")], ids=str)
def test_ptxas_assembles_them_without_spills(tmp_path, d, dtype, arch):
    src = tmp_path / "flash.ptx"
    src.write_text(_ptx(d, dtype, arch))
    run = subprocess.run([PTXAS, f"-arch={arch}", "-v", str(src), "-o", str(tmp_path / "o")],
                         capture_output=True, text=True, check=True)
    assert "0 bytes spill stores, 0 bytes spill loads" in run.stderr, run.stderr
    regs = int(re.search(r"Used (\d+) registers", run.stderr).group(1))
    assert regs <= 255, run.stderr  # 256 threads a block: every block fits an SM's registers
