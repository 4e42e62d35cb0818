"""The tensor-core matmul kernels (ops/matmul_mma.py) in PTX, checked without a GPU (NVPTX is
part of llvmlite): per slab, each warp's 2 × 16 MMAs of its shape, its f16/bf16 fragments as
`ldmatrix` (4 `.x4` for A, 4 `.x2.trans` for B a k-step: render/llvm/ptx_ldmatrix.py proves
their rows aligned), TF32 fragments as plain loads, the slabs as 16-byte `cp.async.cg`; and,
where `ptxas` is installed, the PTX assembles for sm_80 and sm_90 within 48 KiB of static
shared memory, and for sm_90 (the H100 and H200 it is tuned on) without spills at 128
registers, the budget at which the CUDA engine loads a kernel to fit two 256-lane blocks per
SM (runtime/cuda/occupancy.py; for sm_80 ptxas spills 8 bytes there, so the engine keeps that
kernel at one block per SM)."""
import functools
import re
import subprocess

import numpy as np
import pytest
import tack
from tack.compiler import specialize
from tack.ops import matmul_mma
from tack.toolchain.nvptx import compile_ptx

from tests.cuda.ptxas import PTXAS

CASES = {"f16": ("half", tack.f16, "m16n8k16.row.col.f32.f16.f16.f32"),
         "bf16": ("half", tack.bf16, "m16n8k16.row.col.f32.bf16.bf16.f32"),
         "tf32": ("tf32", tack.f32, "m16n8k8.row.col.f32.tf32.tf32.f32")}


@pytest.fixture(autouse=True)
def cpu():
    tack.set_default_device("cpu")  # specialization only: nothing runs
    yield


@functools.cache
def _ptx(name: str, arch: str = "sm_90", width=int) -> str:
    key, dtype, _ = CASES[name]
    args = [tack.zeros(64, dtype), tack.zeros(64, dtype), tack.zeros(64, dtype)] + [
        width(v) for v in (1, 4096, 4096, 4096)]
    return compile_ptx(specialize(matmul_mma.KERNELS[key], args, library_math=False), arch).ptx


@pytest.mark.parametrize("width", [int, np.int64], ids=["i32", "i64"])  # ops._args.sizes
@pytest.mark.parametrize("name", CASES)
def test_each_slab_is_two_k_steps_of_sixteen_mmas(name, width):
    ptx = _ptx(name, width=width)
    shape = CASES[name][2]
    assert len(re.findall(rf"mma\.sync\.aligned\.{re.escape(shape)}", ptx)) == 32
    assert len(re.findall(r"mma\.sync", ptx)) == 32
    x4 = re.findall(r"ldmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16 \{(%r\d+, ){3}%r\d+\}", ptx)
    x2 = re.findall(r"ldmatrix\.sync\.aligned\.m8n8\.x2\.trans\.shared\.b16 \{%r\d+, %r\d+\}",
                    ptx)
    if name == "tf32":
        assert not x4 and not x2 and "ldmatrix" not in ptx
    else:
        assert (len(x4), len(x2)) == (8, 8) and ptx.count("ldmatrix") == 16
    # A and B slabs: two 16-byte pieces of each per lane, in the prologue and in the loop
    assert len(re.findall(r"cp\.async\.cg\.shared\.global \[%rd\d+\], \[%rd\d+\], 16;", ptx)) == 8


@pytest.mark.skipif(PTXAS is None, reason="ptxas is not installed")
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize("name", CASES)
def test_ptxas_assembles_it_for_two_blocks_per_sm(tmp_path, name, arch):
    src = tmp_path / f"{name}.ptx"
    src.write_text(_ptx(name, arch))
    run = subprocess.run([PTXAS, f"-arch={arch}", "-v", "-maxrregcount=128", str(src), "-o",
                          str(tmp_path / "k.cubin")], check=False, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    if arch == "sm_90":
        assert "0 bytes spill stores, 0 bytes spill loads" in run.stderr, run.stderr
    smem = int(re.search(r"(\d+) bytes smem", run.stderr).group(1))
    assert smem == 2 * (128 * (20 if name == "tf32" else 40) + (16 if name == "tf32" else 32)
                        * 136) * (4 if name == "tf32" else 2) <= 48 * 1024, run.stderr
