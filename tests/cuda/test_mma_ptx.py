"""Matrix multiply-accumulate in PTX, checked without a GPU (NVPTX is part of llvmlite): each
`tack.mma` is one `mma.sync` of its shape and types (the four element expressions of one MMA
merge), fragments are plain loads, TF32 inputs are rounded before the instruction, and, where
`ptxas` is installed, it assembles the PTX for sm_80 and sm_90 (tests/exec/test_mma.py runs the
kernels themselves on a GPU)."""
import re
import shutil
import subprocess

import pytest
import tack
from tack.compiler import specialize
from tack.toolchain.nvptx import compile_ptx

from tests.kernels import mma as K

PTXAS = shutil.which("ptxas")
CASES = {
    "f16": (K.tile_mma, tack.f16, "m16n8k16.row.col.f32.f16.f16.f32", 16),
    "bf16": (K.tile_mma, tack.bf16, "m16n8k16.row.col.f32.bf16.bf16.f32", 16),
    "tf32": (K.tile_mma_tf32, tack.f32, "m16n8k8.row.col.f32.tf32.tf32.f32", 8),
}


@pytest.fixture(autouse=True)
def cpu():
    tack.set_default_device("cpu")  # specialization only: nothing runs
    yield


def _ptx(name: str, arch: str = "sm_80") -> str:
    kernel, dtype, _, k = CASES[name]
    args = [tack.zeros((128, k), dtype), tack.zeros((8 * k, 8), dtype), tack.zeros((128, 8)),
            tack.zeros((128, 8)), 256]
    return compile_ptx(specialize(kernel, args, library_math=False), arch).ptx


def _tiled_ptx(dtype, k: int) -> str:
    kernel = K.tiled_matmul_tf32 if dtype is tack.f32 else K.tiled_matmul
    args = [tack.zeros((64, k), dtype), tack.zeros((k, 64), dtype), tack.zeros((64, 64)), 512]
    return compile_ptx(specialize(kernel, args, library_math=False), "sm_90").ptx


@pytest.mark.parametrize("name", CASES)
def test_one_mma_is_one_mma_sync(name):
    ptx = _ptx(name)
    shape = CASES[name][2]
    found = re.findall(rf"mma\.sync\.aligned\.{re.escape(shape)}\s+\{{(%r\d+, ){{3}}%r\d+\}}, "
                       r"\{(%r\d+, ){3}%r\d+\}, \{%r\d+, %r\d+\}, \{(%r\d+, ){3}%r\d+\};", ptx)
    assert len(found) == 1, ptx
    assert "ldmatrix" not in ptx and "shfl" not in ptx  # fragments: the lanes' own loads


@pytest.mark.parametrize("dtype, k, count", [(tack.bf16, 48, 3 * 2), (tack.f32, 24, 3 * 2)],
                         ids=["bf16", "tf32"])
def test_the_tiled_matmul_issues_two_mmas_per_k_step(dtype, k, count):
    ptx = _tiled_ptx(dtype, k)
    assert len(re.findall(r"mma\.sync\.aligned", ptx)) == count
    assert len(re.findall(r"bar\.sync\s+0", ptx)) >= 2


def test_tf32_inputs_are_rounded_before_the_instruction():
    ptx = _ptx("tf32")
    # the rounding of frontend/typing/mma.py: + 0x1000, keep the top 19 bits (NaN kept)
    assert re.search(r"add\.s32\s+%r\d+, %r\d+, 4096;", ptx)
    assert re.search(r"and\.b32\s+%r\d+, %r\d+, -8192;", ptx)
    assert "cvt.rna.tf32" not in ptx


@pytest.mark.skipif(PTXAS is None, reason="ptxas is not installed")
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize("name", CASES)
def test_ptxas_assembles_it(tmp_path, name, arch):
    for i, ptx in enumerate((_ptx(name, arch), _tiled_ptx(CASES[name][1], 32))):
        if i:  # the tiled kernel: assembled for the architecture too
            ptx = re.sub(r"\.target sm_\d+", f".target {arch}", ptx)
        src = tmp_path / f"{name}{i}.ptx"
        src.write_text(ptx)
        out = str(tmp_path / "k.cubin")
        run = subprocess.run([PTXAS, f"-arch={arch}", str(src), "-o", out], check=False,
                             capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stderr


def test_a_gpu_older_than_sm_80_refuses_mma_before_compiling():
    from tack.capabilities import check_mma_arch
    from tack.errors import CapabilityError

    kernel, dtype, _, k = CASES["bf16"]
    kir = specialize(kernel, [tack.zeros((128, k), dtype), tack.zeros((8 * k, 8), dtype),
                              tack.zeros((128, 8)), tack.zeros((128, 8)), 256])
    check_mma_arch(kir, (8, 0), "an A100")
    check_mma_arch(kir, (9, 0), "an H100")
    with pytest.raises(CapabilityError, match="sm_80 or newer.*this GPU is sm_75") as info:
        check_mma_arch(kir, (7, 5), "this GPU")
    assert info.value.loc is not None and info.value.loc.line > 0
