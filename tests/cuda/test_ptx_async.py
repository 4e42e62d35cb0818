"""Asynchronous copies in PTX without a GPU (render/llvm/ptx_async.py): `cp.async` of the right size
and cache level between the shared tile and the global array, the commit and the wait with its
count, the wait before the barrier that publishes the tile; `ptxas` accepts the modules for
sm_80 and sm_90 (the test skips where it is not installed); and the CUDA engine's compile refuses
them for a device before sm_80, with the position of the first."""
from __future__ import annotations

import inspect
import re
import subprocess

import numpy as np
import pytest
import tack
from tack.compiler import specialize
from tack.errors import CapabilityError
from tack.toolchain.nvptx import compile_ptx

from tests.cuda.ptxas import PTXAS
from tests.kernels import async_copies as K

ARCHS = ("sm_80", "sm_90")


def _matmul_ir(debug=False):
    return specialize(K.matmul_pipelined, list(K.matmul_args(device="cpu")),
                      library_math=False, debug=debug)


def _copy_ir(dtype, count):
    x, out = tack.zeros(256, dtype, device="cpu"), tack.zeros(256, dtype, device="cpu")
    return specialize(K.COPY[count], [x, out], library_math=False)


def _assemble(ptx: str, arch: str, tmp_path) -> None:
    src = tmp_path / f"k_{arch}.ptx"
    src.write_text(ptx)
    r = subprocess.run([PTXAS, f"-arch={arch}", str(src), "-o", str(tmp_path / "k.cubin")],
                       capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("arch", ARCHS)
def test_the_pipelined_matmul_copies_waits_then_synchronizes(arch):
    ptx = compile_ptx(_matmul_ir(), arch).ptx
    assert f".target {arch}" in ptx
    copies = re.findall(r"cp\.async\.ca\.shared\.global \[%rd\d+\], \[%rd\d+\], 4;", ptx)
    # A and B before the loop and for the next tile (LLVM may unroll the loop: more of each)
    assert len(copies) >= 4 and len(copies) % 2 == 0
    assert "cp.async.commit_group;" in ptx
    waits = [m.start() for m in re.finditer(r"cp\.async\.wait_group (\d+);", ptx)]
    assert waits and set(re.findall(r"cp\.async\.wait_group (\d+);", ptx)) == {"1"}
    for at in waits:  # each wait, then the barrier, then the tile is read
        assert ptx.index("bar.sync", at) < ptx.index("ld.shared", at)


@pytest.mark.parametrize("dtype, count, size", [(tack.f32, 1, 4), (tack.f16, 4, 8),
                                                (tack.bf16, 8, 16), (tack.f64, 2, 16),
                                                (tack.i32, 4, 16)])
def test_the_size_and_cache_level_follow_the_count(dtype, count, size):
    ptx = compile_ptx(_copy_ir(dtype, count), "sm_80").ptx
    level = "cg" if size == 16 else "ca"  # .cg (L2 only) takes 16 bytes and nothing else
    assert re.search(rf"cp\.async\.{level}\.shared\.global \[%rd\d+\], \[%rd\d+\], {size};",
                     ptx), ptx
    assert "cp.async.wait_group 0;" in ptx
    # the tile is read from shared memory after the wait (LLVM does not take the global's
    # undefined initializer for its contents: the asm writes memory whose address it was given)
    assert ptx.index("ld.shared", ptx.index("cp.async.wait_group")) > 0


@pytest.mark.parametrize("dtype, count", [(tack.f32, 1), (tack.f32, 4), (tack.f16, 2)])
def test_a_misaligned_copy_of_several_elements_is_made_element_by_element(dtype, count):
    """No fault (a sticky error) for a view that starts mid-array: the copy of several elements
    tests both addresses and falls back to plain loads and stores; one element is always
    aligned. (The kernel itself stores nothing into shared memory.)"""
    ptx = compile_ptx(_copy_ir(dtype, count), "sm_80").ptx
    assert ("st.shared" in ptx) == (count > 1)
    if count > 1:
        assert re.search(rf"and\.b64\s+%rd\d+, %rd\d+, {count * dtype.itemsize - 1};", ptx), ptx


@pytest.mark.skipif(PTXAS is None, reason="ptxas is not installed")
@pytest.mark.parametrize("arch", ARCHS)
def test_ptxas_accepts_them(arch, tmp_path):
    for kir in (_matmul_ir(), _matmul_ir(debug=True), _copy_ir(tack.f16, 8),
                _copy_ir(tack.f64, 1)):
        _assemble(compile_ptx(kir, arch).ptx, arch, tmp_path)


def test_a_device_before_sm_80_is_refused_before_rendering():
    kir = _matmul_ir()
    with pytest.raises(CapabilityError, match=r"sm_80.*this device is sm_75") as info:
        compile_ptx(kir, "sm_75")
    lines, first = inspect.getsourcelines(K.matmul_pipelined.fn)
    copy = next(k for k, line in enumerate(lines) if "tack.async_copy(" in line)
    assert info.value.loc.line == first + copy  # the first copy of the kernel
    assert "cp-async" in str(info.value)  # the PTX ISA section it cites


def test_the_capability_table_reads_architecture_names():
    from tack.capabilities import MIN_SM, sm_number
    from tack.ir.ops import ASYNC_OPS

    assert [sm_number(a) for a in ("sm_75", "sm_80", "sm_90a", "sm_100f", "cuda")] == [
        75, 80, 90, 100, None]
    assert {op.name for op in MIN_SM} >= {"ASYNC_COPY", "ASYNC_COMMIT", "ASYNC_WAIT"}
    assert np.all([MIN_SM[op][0] == 80 for op in MIN_SM if op in ASYNC_OPS])
