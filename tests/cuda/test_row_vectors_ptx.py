"""The row kernels of tack.ops (softmax, layer_norm, rms_norm) in PTX, checked without a GPU: a
lane takes 8 consecutive elements a step, and where the row length is a multiple of 8 the
NVPTX printer's aligned entry (render/llvm/ptx.py, `emit_aligned`) lets LLVM merge each step's
accesses into 16-byte ones: per step one `ld.global.v4.b32` of a half row (two of an f32 row)
for x, weight and bias, and one `st.global.v4.b32` (two) for the result — in the one-read
kernels and in the long-row kernels that read a row once per sweep (softmax's online kernel,
the norms' `_long`). Rows of a length that is not a multiple of 8 are accessed element by
element. gelu and silu on a workgroup
engine take a step of 8 elements per iteration the same way. Where `ptxas` is installed, the
kernels assemble for sm_90 without spilling."""
import functools
import importlib
import re
import subprocess
import types

import pytest
import tack
from tack.compiler import specialize
from tack.ops import _wide
from tack.runtime.registry import NATIVE_CUDA
from tack.toolchain.nvptx import compile_ptx

from tests.cuda.ptxas import PTXAS

SM = importlib.import_module("tack.ops.softmax")  # tack.ops.softmax the attribute is the function
NM = importlib.import_module("tack.ops.norms")
EW = importlib.import_module("tack.ops.elementwise")


@pytest.fixture(autouse=True)
def cpu():
    tack.set_default_device("cpu")  # specialization only: nothing runs
    yield


# what the ops pass on a CUDA device: its capabilities pick the workgroup tree (`_wide.funcs`)
CUDA = types.SimpleNamespace(capabilities=NATIVE_CUDA.capabilities["cuda"])


@functools.cache
def _ptx(op: str, dtype, n: int, device=CUDA) -> str:
    x, y = tack.zeros((2, n), dtype), tack.zeros((2, n), dtype)
    w, st = tack.zeros((n,), dtype), tack.zeros((2,), dtype)
    per, start = SM._per_lane(n), SM.start_func(n)
    if n > 256 * SM.MAX_PER_LANE:  # the long-row kernels
        kernel, args = {
            "softmax": (SM._online, [x, y, 2, n, 0, start,
                                     *_wide.funcs(dtype, "reduce", device=device)]),
            "layer_norm": (NM._layer_long, [x, w, w, y, st, st, 2, n, 1e-5, start,
                                            *_wide.funcs(dtype, "reduce", device=device)]),
            "rms_norm": (NM._rms_long, [x, w, y, 2, n, 1e-5, start,
                                        *_wide.funcs(dtype, "reduce", "wide", device=device)])}[op]
    elif op == "softmax":
        kernel, args = SM._cached(per), [x, y, 2, n, 0, *SM.cached_funcs(dtype, start, device)]
    elif op == "layer_norm":
        kernel = NM._cached(NM._layer_cached_kernel, per)
        args = [x, w, w, y, st, st, 2, n, 1e-5, start,
                *_wide.funcs(dtype, "reduce", device=device)]
    else:
        kernel = NM._cached(NM._rms_cached_kernel, per)
        args = [x, w, y, 2, n, 1e-5, start, *_wide.funcs(dtype, "reduce", "wide", device=device)]
    return compile_ptx(specialize(kernel, args, library_math=False), "sm_90").ptx  # as CUDA


def _count(pattern: str, ptx: str) -> int:
    return len(re.findall(pattern, ptx))


READS = {"softmax": 1, "layer_norm": 3, "rms_norm": 2}  # arrays read per element: x, w, b


@pytest.mark.parametrize("op", list(READS))
@pytest.mark.parametrize("dtype", [tack.bf16, tack.f16, tack.f32], ids=lambda d: d.name)
def test_aligned_steps_are_16_byte_accesses(op, dtype):
    n = 8192  # 32 elements a lane: 4 steps of 8
    ptx = _ptx(op, dtype, n)
    words = 8 * dtype.bits // 128  # 16-byte accesses per step of 8 elements
    assert _count(r"ld\.global\.v4\.b32", ptx) == 4 * READS[op] * words
    assert _count(r"st\.global\.v4\.b32", ptx) == 4 * words


STATISTICS = {"softmax": 2, "layer_norm": 2, "rms_norm": 1}  # workgroup reductions a row


@pytest.mark.parametrize("op", list(STATISTICS))
@pytest.mark.parametrize("dtype", [tack.bf16, tack.f32], ids=lambda d: d.name)
def test_each_row_statistic_costs_two_barriers_on_cuda(op, dtype):
    """The workgroup tree with its last levels by shuffles (lib/warp_reductions.py,
    `tree_by_warps`): two barriers a reduction, in each of the aligned entry's two bodies;
    the shared-memory tree the Julia engine keeps has ten."""
    stats = STATISTICS[op]
    assert _count(r"bar\.sync", _ptx(op, dtype, 8192)) == 2 * 2 * stats
    assert _count(r"shfl\.sync", _ptx(op, dtype, 8192)) == 2 * 6 * stats
    assert _count(r"bar\.sync", _ptx(op, dtype, 8192, device=None)) == 2 * 10 * stats


@pytest.mark.parametrize("op", list(READS))
def test_a_length_off_the_step_reads_and_writes_its_rows_by_element(op):
    """n = 8191: a row starts anywhere, so x and the result are accessed element by element;
    weight and bias, indexed from their own start, still take 16 bytes a step."""
    ptx = _ptx(op, tack.bf16, 8191)
    assert _count(r"ld\.global\.v4\.b32", ptx) == 4 * (READS[op] - 1)
    assert _count(r"st\.global\.v\d", ptx) == 0
    assert _count(r"ld\.global\.b16", ptx) > 0 and _count(r"st\.global\.b16", ptx) > 0


# the long kernels' loops, each one step a lane: (the sweeps reading x, weight and bias)
LONG_READS = {"softmax": (2, 0), "layer_norm": (3, 2), "rms_norm": (2, 1)}


@pytest.mark.parametrize("op", list(LONG_READS))
@pytest.mark.parametrize("dtype", [tack.bf16, tack.f32], ids=lambda d: d.name)
def test_long_rows_take_16_byte_steps_too(op, dtype):
    ptx = _ptx(op, dtype, 16384)
    words = 8 * dtype.bits // 128
    sweeps, params = LONG_READS[op]
    assert _count(r"ld\.global\.v4\.b32", ptx) == (sweeps + params) * words
    assert _count(r"st\.global\.v4\.b32", ptx) == words
    off = _ptx(op, dtype, 16383)  # x and the result by element; weight and bias by 16 bytes
    assert _count(r"ld\.global\.v4\.b32", off) == params * words
    assert _count(r"st\.global\.v\d", off) == 0


@pytest.mark.parametrize("op", ["gelu_tanh", "gelu_erf", "silu"])
@pytest.mark.parametrize("dtype", [tack.bf16, tack.f32], ids=lambda d: d.name)
def test_gelu_and_silu_steps_are_16_byte_accesses(op, dtype):
    n = 1 << 12
    x, y = tack.zeros((n,), dtype), tack.zeros((n,), dtype)
    kir = specialize(EW._UNARY[op][1], [x, y, n // 8, n, *_wide.funcs(dtype, "wide")],
                     library_math=False)
    ptx = compile_ptx(kir, "sm_90").ptx
    words = 8 * dtype.bits // 128
    assert _count(r"ld\.global\.v4\.b32", ptx) == _count(r"st\.global\.v4\.b32", ptx) == words


@pytest.mark.skipif(PTXAS is None, reason="ptxas is not installed")
@pytest.mark.parametrize("op, dtype, n", [("softmax", tack.bf16, 8192),
                                          ("layer_norm", tack.f32, 8192),
                                          ("layer_norm", tack.bf16, 16384)], ids=str)
def test_ptxas_assembles_them_without_spills(tmp_path, op, dtype, n):
    src = tmp_path / "rows.ptx"
    src.write_text(_ptx(op, dtype, n))
    run = subprocess.run([PTXAS, "-arch=sm_90", "-v", str(src), "-o", str(tmp_path / "o")],
                         capture_output=True, text=True, check=True)
    assert "0 bytes spill stores, 0 bytes spill loads" in run.stderr, run.stderr
    assert "bytes stack frame" in run.stderr and ".local" not in _ptx(op, dtype, n)
