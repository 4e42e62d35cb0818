"""BITCAST in LLVM IR and PTX: one `bitcast` instruction (a register move on the GPU), no
conversion, on the CPU and NVPTX renderers alike (render/llvm/bits.py)."""
import tack
from tack.compiler import specialize
from tack.render.llvm.printer import render

from tests.kernels.bitcast import bits32


def _kir():
    return specialize(bits32, [tack.zeros(2, tack.f32), tack.zeros(2, tack.u32),
                                 tack.zeros(2, tack.i32), tack.zeros(2, tack.f32)])


def test_llvm_bitcast():
    text = render(_kir())
    assert "bitcast float" in text and "to i32" in text
    assert "bitcast i32" in text and "to float" in text
    assert "fptoui" not in text and "uitofp" not in text


def test_ptx_moves_bits():
    from tack.toolchain.nvptx import compile_ptx

    ptx = compile_ptx(_kir(), "sm_90").ptx
    assert "cvt.rzi" not in ptx and "cvt.rn.f32" not in ptx  # no conversion: bits moved
