"""The warpgroup MMA in PTX, checked without a GPU (NVPTX is part of llvmlite): the module
targets sm_90a; each `tack.wgmma` is `wgmma.fence` and one `wgmma.mma_async` of its shape with
descriptors carrying the layout's byte offsets and swizzle mode; commits and waits are there;
stores that stage tiles are fenced for the async proxy before the barrier; the tiles are
1024-byte aligned; and, where `ptxas` is installed, it assembles for sm_90a. Every other target
(sm_80, sm_100) and the CPU engine refuse a wgmma before anything renders."""
import re
import subprocess

import pytest
import tack
from tack.compiler import specialize
from tack.errors import CapabilityError
from tack.ir.wgmma import descriptor
from tack.toolchain.nvptx import compile_ptx

from tests.cuda.ptxas import PTXAS
from tests.kernels import wgmma as K

CASES = {  # name: (n, layout, tf32, the instruction's shape and types)
    "f16-n64-swizzle": (64, "swizzle128", False, "m64n64k16.f32.f16.f16"),
    "f16-n128-interleave": (128, "interleave", False, "m64n128k16.f32.f16.f16"),
    "f16-n256-swizzle": (256, "swizzle128", False, "m64n256k16.f32.f16.f16"),
    "tf32-n64-swizzle": (64, "swizzle128", True, "m64n64k8.f32.tf32.tf32"),
    "tf32-n128-interleave": (128, "interleave", True, "m64n128k8.f32.tf32.tf32"),
}


@pytest.fixture(autouse=True)
def cpu():
    tack.set_default_device("cpu")  # specialization only: nothing runs
    yield


def _kir(name: str, dtype=None):
    n, layout, tf32, _ = CASES[name]
    k = 32 if tf32 else 64
    dt = tack.f32 if tf32 else (dtype or tack.f16)
    args = [tack.zeros((128, k), dt), tack.zeros((k, n), dt), tack.zeros((128, n)), 256]
    return specialize(K.tile_kernel(n, layout, tf32), args, library_math=False)


def _ptx(name: str, arch: str = "sm_90") -> str:
    return compile_ptx(_kir(name), arch).ptx


@pytest.mark.parametrize("name", CASES)
def test_each_wgmma_is_one_instruction_after_a_fence(name):
    n, layout, tf32, shape = CASES[name]
    ptx = _ptx(name)
    assert re.search(r"^\.target sm_90a$", ptx, re.MULTILINE)
    regs = r"\{" + r"%r\d+, " * (n // 2 - 1) + r"%r\d+\}"
    tail = r"" if tf32 else r", 0, 0"
    found = re.findall(rf"wgmma\.fence\.sync\.aligned;\s*wgmma\.mma_async\.sync\.aligned\."
                       rf"{re.escape(shape)} {regs}, %rd\d+, %rd\d+, p, 1, 1{tail};", ptx)
    assert len(found) == 4, ptx  # K = 64 (32 for f32): four k-steps
    assert len(re.findall(r"wgmma\.commit_group\.sync\.aligned;", ptx)) == 1
    assert len(re.findall(r"wgmma\.wait_group\.sync\.aligned 0;", ptx)) == 1
    # the descriptor's constant part: byte offsets and swizzle mode, the address or-ed in
    assert re.search(rf"or\.b64\s+%rd\d+, %rd\d+, {descriptor(layout, 0)};", ptx)


def test_the_staging_stores_are_fenced_for_the_async_proxy_and_tiles_aligned():
    ptx = _ptx("f16-n64-swizzle")
    assert re.search(r"fence\.proxy\.async\.shared::cta;\s*// end inline asm\s*bar\.sync\s+0;",
                     ptx)
    assert len(re.findall(r"\.shared \.align 1024 \.b8", ptx)) == 2


def test_bf16_names_its_types():
    ptx = compile_ptx(_kir("f16-n64-swizzle", tack.bf16), "sm_90").ptx
    assert "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16" in ptx


def test_a_kernel_without_wgmma_keeps_its_target():
    from tests.kernels import mma as M

    args = [tack.zeros((128, 16), tack.f16), tack.zeros((128, 8), tack.f16),
            tack.zeros((128, 8)), tack.zeros((128, 8)), 256]
    ptx = compile_ptx(specialize(M.tile_mma, args, library_math=False), "sm_90").ptx
    assert re.search(r"^\.target sm_90$", ptx, re.MULTILINE) and "fence.proxy" not in ptx


@pytest.mark.parametrize("arch", ["sm_80", "sm_89", "sm_100", "sm_120"])
def test_other_gpus_refuse_it_before_rendering(arch):
    with pytest.raises(CapabilityError, match=rf"warpgroup MMA .*only sm_90a .*{arch}"):
        compile_ptx(_kir("f16-n64-swizzle"), arch)


def test_the_cpu_engine_refuses_it():
    kernel = K.tile_kernel(64, "swizzle128")
    args = [tack.zeros((128, 64), tack.f16), tack.zeros((64, 64), tack.f16),
            tack.zeros((128, 64)), 256]
    with pytest.raises(RuntimeError, match="wgmma"):
        kernel(*args)


@pytest.mark.skipif(PTXAS is None, reason="ptxas is not installed")
@pytest.mark.parametrize("name", [*CASES, "tiled"])
def test_ptxas_assembles_it_for_sm_90a(tmp_path, name):
    if name == "tiled":
        args = [tack.zeros((200, 100), tack.bf16), tack.zeros((100, 70), tack.bf16),
                tack.zeros((200, 70)), K.launch_size(200, 70)]
        ptx = compile_ptx(specialize(K.tiled_matmul, args, library_math=False), "sm_90").ptx
    else:
        ptx = _ptx(name)
    src = tmp_path / "k.ptx"
    src.write_text(ptx)
    run = subprocess.run([PTXAS, "-arch=sm_90a", str(src), "-o", str(tmp_path / "k.cubin")],
                         check=False, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "serialized" not in run.stderr, run.stderr  # ptxas kept the wgmma pipeline


@pytest.mark.skipif(PTXAS is None, reason="ptxas is not installed")
def test_a_register_budget_below_the_accumulators_fails_the_jit(tmp_path):
    """Why the CUDA engine keeps a kernel's first load when a second JIT with a smaller
    `.maxnreg` fails (runtime/cuda/kernel.py, `_reload_with`): the two-block budget of a
    256-lane block (128 registers) cannot hold a 64×256 wgmma's accumulators, and ptxas refuses
    the instruction instead of spilling it (the driver's CUDA_ERROR_INVALID_PTX on an H200)."""
    from tack.runtime.cuda.occupancy import limit_registers

    kir = _kir("f16-n256-swizzle")
    built = compile_ptx(kir, "sm_90")
    src = tmp_path / "k.ptx"
    src.write_text(limit_registers(built.ptx, built.name, 128))
    run = subprocess.run([PTXAS, "-arch=sm_90a", str(src), "-o", str(tmp_path / "k.cubin")],
                         check=False, capture_output=True, text=True, timeout=300)
    assert run.returncode != 0 and "Insufficient registers" in run.stderr, run.stderr
