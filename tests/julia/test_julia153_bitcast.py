"""`tack.bitcast` on the Julia engine: the renderer spells BITCAST `reinterpret(T, x)` (Base's
same-width reinterpretation, docs/design/003-julia-rendering.md); tests/exec/test_bitcast.py
checks that the bit patterns come back unchanged from every engine, Julia's included."""
import tack
from tack.compiler import specialize
from tack.render.julia.ka import render_julia

from tests.julia.jl_checks import literal_problems, parse_problems, structure_problems
from tests.kernels.bitcast import bits32


def test_bitcast_renders_reinterpret(jl_parser):
    tack.set_default_device("cpu")
    text = render_julia(specialize(bits32, [tack.zeros(3, tack.f32), tack.zeros(3, tack.u32),
                                              tack.zeros(3, tack.i32), tack.zeros(3, tack.f32)]))
    assert "reinterpret(UInt32, x[j + 1])" in text
    assert "reinterpret(Int32, x[j + 1])" in text
    assert "reinterpret(Float32, " in text
    for check in (parse_problems, literal_problems, structure_problems):
        assert check(jl_parser, text) == []


def test_look_back_scan_renders(jl_parser):
    """The look-back scan, which a Julia GPU backend with 64-bit atomics takes: reinterpret for
    its f32 payload, atomic max for its block prefixes, valid KernelAbstractions source."""
    from tack.algorithms import lookback as LB
    from tack.algorithms.tiles import block_inclusive

    tack.set_default_device("cpu", engine="sim")
    args = [tack.zeros(8192, tack.f32), tack.zeros(8192, tack.f32), tack.zeros(10, tack.u64),
            8192, 1, 0, 16, 4096, 1, block_inclusive, LB.pair_scan]  # Julia's steps
    for lean in (False, True):
        text = render_julia(specialize(LB.scan_kernel("f32", 2, lean), args))
        assert "reinterpret(UInt32, " in text and "tk_atomic_max!(" in text
        for check in (parse_problems, literal_problems, structure_problems):
            assert check(jl_parser, text) == []
