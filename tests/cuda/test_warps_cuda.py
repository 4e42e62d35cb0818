"""Warp operations on CUDA: the PTX they become (checked here without a GPU: NVPTX is part of
llvmlite). tests/exec/test_warps.py runs the warp operations themselves on the GPU (its cuda
engine cases), where shuffles, votes and butterfly reductions give the simulator's bits."""
import re

import pytest
import tack
from tack.compiler import specialize
from tack.toolchain.nvptx import compile_ptx

from tests.kernels import warps


def _ptx(kernel, *args) -> str:
    return compile_ptx(specialize(kernel, list(args)), "sm_90").ptx


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


@pytest.mark.parametrize("dtype, op", [(tack.f32, "add.rn.f32"), (tack.f64, "add.rn.f64"),
                                       (tack.i32, "add.s32"), (tack.u32, "min.u32")])
def test_reductions_are_five_butterfly_steps(dtype, op):
    ptx = _ptx(warps.reductions, *[tack.zeros(256, dtype)] * 4, 256)
    words = 2 if dtype.bits == 64 else 1
    assert len(re.findall(r"shfl\.sync\.bfly\.b32", ptx)) == 3 * 5 * words
    for step in (16, 8, 4, 2, 1):
        assert re.search(rf"shfl\.sync\.bfly\.b32\s+%r\d+, %r\d+, {step}, 31, -1;", ptx)
    assert op in ptx


def test_lane_and_warp_ids_come_from_tid():
    ptx = _ptx(warps.ids, tack.zeros(256, tack.i32), tack.zeros(256, tack.i32), 256)
    assert "%tid.x" in ptx and re.search(r"and\.b32\s+%r\d+, %r\d+, 31;", ptx)
    assert re.search(r"shr\.u32\s+%r\d+, %r\d+, 5;", ptx)
