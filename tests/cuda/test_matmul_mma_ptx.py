"""The tensor-core matmul kernels (ops/matmul_mma.py) in PTX, checked without a GPU (NVPTX is
part of llvmlite): per slab, each warp's 2 × 16 MMAs of its shape, its f16/bf16 fragments as
`ldmatrix` (4 `.x4` for A, 4 `.x2.trans` for B a k-step: render/llvm/ptx_ldmatrix.py proves
their rows aligned), TF32 fragments as plain loads, the slabs as 16-byte `cp.async.cg`; and,
where `ptxas` is installed, the PTX assembles for sm_80 and sm_90 within 48 KiB of static
shared memory and in at most 128 registers where k and n are multiples of a 16-byte piece (two
256-lane blocks per SM); the specialization for other k and n takes a few more, and for sm_90
(the H100 and H200 it is tuned on) fits 128 without spills, the budget at which the CUDA engine
loads such a kernel again to fit two blocks per SM (runtime/cuda/occupancy.py; for sm_80
ptxas spills a few bytes there, so the engine keeps that one at one block per SM)."""
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
def _ptx(name: str, arch: str = "sm_90", width=int, k: int = 4096) -> str:
    _, dtype, _ = CASES[name]
    x = tack.zeros(64, dtype)
    kern, args = matmul_mma.launch(x, x, x, 1, 4096, k, 4096, lambda *v: [width(i) for i in v])
    return compile_ptx(specialize(kern, list(args), library_math=False), arch).ptx


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
    # A and B slabs: two 16-byte pieces of each per lane, in the prologue and in the loop; k
    # and n multiples of a piece (`stage_whole`): no global loads but the copies' own fallback
    # for a misaligned address (render/llvm/ptx_async.py: one per element, 16 / itemsize)
    copies = re.findall(r"cp\.async\.cg\.shared\.global \[%rd\d+\], \[%rd\d+\], 16;", ptx)
    per = 4 if name == "tf32" else 8
    assert len(copies) == 8 and len(re.findall(r"ld\.global", ptx)) == 8 * per
    # any k: and the element-wise loads of the pieces that overhang
    assert len(re.findall(r"ld\.global", _ptx(name, width=width, k=4095))) == 16 * per


def _ptxas(tmp_path, ptx: str, arch: str, *flags: str) -> str:
    src = tmp_path / "k.ptx"
    src.write_text(ptx)
    run = subprocess.run([PTXAS, f"-arch={arch}", "-v", *flags, str(src), "-o",
                          str(tmp_path / "k.cubin")], check=False, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    return run.stderr


@pytest.mark.skipif(PTXAS is None, reason="ptxas is not installed")
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize("name", CASES)
def test_ptxas_assembles_it_for_two_blocks_per_sm(tmp_path, name, arch):
    """k and n multiples of a piece: at most 128 registers as ptxas allocates them, two blocks
    per SM. Any k and n: the engine's two-block cap, spill-free on sm_90."""
    info = _ptxas(tmp_path, _ptx(name, arch), arch)
    assert int(re.search(r"Used (\d+) registers", info).group(1)) <= 128, info
    assert "0 bytes spill stores, 0 bytes spill loads" in info, info
    smem = int(re.search(r"(\d+) bytes smem", info).group(1))
    assert smem == 2 * (128 * (20 if name == "tf32" else 40) + (16 if name == "tf32" else 32)
                        * 136) * (4 if name == "tf32" else 2) <= 48 * 1024, info
    info = _ptxas(tmp_path, _ptx(name, arch, k=4095), arch, "-maxrregcount=128")
    if arch == "sm_90":
        assert "0 bytes spill stores, 0 bytes spill loads" in info, info
