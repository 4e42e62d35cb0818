"""Warp operations on CUDA: the PTX they become (checked here without a GPU: NVPTX is part of
llvmlite, and ptxas, where installed, assembles it). tests/exec/test_warps.py runs the warp
operations themselves on the GPU (its cuda engine cases), where shuffles, votes and butterfly
reductions give the simulator's bits."""
import re
import subprocess

import pytest
import tack
from tack.compiler import specialize
from tack.toolchain.nvptx import compile_ptx

from tests.cuda.ptxas import PTXAS
from tests.kernels import warps


def _ptx(kernel, *args, arch="sm_90") -> str:
    return compile_ptx(specialize(kernel, list(args)), arch).ptx


def test_shuffles_are_shfl_sync_over_the_full_warp():
    ptx = _ptx(warps.shuffles, *[tack.zeros(256)] * 1, tack.zeros(256, tack.i32),
               *[tack.zeros(256)] * 4, 256)
    for mode, clamp in (("idx", 31), ("bfly", 31), ("up", 0), ("down", 31)):
        assert re.search(rf"shfl\.sync\.{mode}\.b32\s+%r\d+, %r\d+, %r\d+, {clamp}, -1;", ptx), \
            mode


@pytest.mark.parametrize("dtype, count", [(tack.f64, 2), (tack.f16, 1), (tack.bf16, 1),
                                          (tack.i8, 1), (tack.u64, 2)])
def test_a_value_moves_as_32_bit_words(dtype, count):
    ptx = _ptx(warps.shuffles, tack.zeros(256, dtype), tack.zeros(256, tack.i32),
               *[tack.zeros(256, dtype)] * 4, 256)
    assert len(re.findall(r"shfl\.sync\.idx\.b32", ptx)) == count
    assert "cvt.f32.f16" not in ptx and "cvt.rn" not in ptx  # bits, not values


def test_votes_are_vote_sync():
    ptx = _ptx(warps.votes, tack.zeros(256), 0.0, tack.zeros(256, tack.i32),
               tack.zeros(256, tack.i32), tack.zeros(256, tack.u32), 256)
    for kind in ("any.pred", "all.pred", "ballot.b32"):
        assert f"vote.sync.{kind}" in ptx


@pytest.mark.parametrize("dtype, op, arch", [
    (tack.f32, "add.rn.f32", "sm_90"), (tack.f64, "add.rn.f64", "sm_90"),
    (tack.i64, "add.s64", "sm_90"), (tack.i32, "add.s32", "sm_75"),
    (tack.u32, "min.u32", "sm_75")])
def test_reductions_are_five_butterfly_steps(dtype, op, arch):
    """Floats and 64-bit integers everywhere, 32-bit integers before sm_80 (no redux.sync)."""
    ptx = _ptx(warps.reductions, *[tack.zeros(256, dtype)] * 4, 256, arch=arch)
    words = 2 if dtype.bits == 64 else 1
    assert len(re.findall(r"shfl\.sync\.bfly\.b32", ptx)) == 3 * 5 * words
    for step in (16, 8, 4, 2, 1):
        assert re.search(rf"shfl\.sync\.bfly\.b32\s+%r\d+, %r\d+, {step}, 31, -1;", ptx)
    assert op in ptx and "redux" not in ptx


def _assemble(ptx: str, arch: str, tmp_path) -> None:
    if PTXAS is None:
        pytest.skip("ptxas not found (pip install nvidia-cuda-nvcc, or put it on PATH)")
    src = tmp_path / "k.ptx"
    src.write_text(ptx)
    r = subprocess.run([PTXAS, f"-arch={arch}", str(src), "-o", str(tmp_path / "k.cubin")],
                       capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize("dtype, sign", [(tack.i32, "s32"), (tack.u32, "u32")])
def test_32_bit_integer_reductions_are_redux_sync_from_sm_80(dtype, sign, arch, tmp_path):
    """warp_sum/min/max of i32 and u32: one redux.sync each over the full warp, no shuffles
    (capabilities.SM_LOWERINGS); a sum is `.s32` for both (the same bits)."""
    ptx = _ptx(warps.reductions, *[tack.zeros(256, dtype)] * 4, 256, arch=arch)
    for op in ("add.s32", f"min.{sign}", f"max.{sign}"):
        assert len(re.findall(rf"redux\.sync\.{re.escape(op)}\s", ptx)) == 1, op
    assert "shfl.sync" not in ptx
    _assemble(ptx, arch, tmp_path)


@pytest.mark.parametrize("dtype", [d for d in warps.DTYPES if d not in (tack.i32, tack.u32)],
                         ids=lambda d: d.name)
def test_other_dtypes_keep_the_butterfly(dtype, tmp_path):
    """No redux.sync for any other dtype (it has no 8-, 16- or 64-bit or float form that gives
    the butterfly's bits); the PTX assembles for sm_80."""
    ptx = _ptx(warps.reductions, *[tack.zeros(256, dtype)] * 4, 256, arch="sm_80")
    assert "redux" not in ptx and "shfl.sync.bfly.b32" in ptx
    _assemble(ptx, "sm_80", tmp_path)


def test_lane_and_warp_ids_come_from_tid():
    ptx = _ptx(warps.ids, tack.zeros(256, tack.i32), tack.zeros(256, tack.i32), 256)
    assert "%tid.x" in ptx and re.search(r"and\.b32\s+%r\d+, %r\d+, 31;", ptx)
    assert re.search(r"shr\.u32\s+%r\d+, %r\d+, 5;", ptx)
