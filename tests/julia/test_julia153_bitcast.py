"""`tack.bitcast` on the Julia engine: the renderer spells BITCAST `reinterpret(T, x)` (Base's
same-width reinterpretation, docs/design/003-julia-rendering.md), and the bit patterns of
tests/exec/test_bitcast.py come back unchanged from Julia 1.5.3."""
import pytest
import tack
from tack.compiler import specialize
from tack.render.julia_ka import render_julia

from tests.exec import test_bitcast as B
from tests.julia.test_render import literal_problems, parse_problems, structure_problems


def test_bitcast_renders_reinterpret(jl_parser):
    tack.set_default_device("cpu")
    text = render_julia(specialize(B.bits32, [tack.zeros(3, tack.f32), tack.zeros(3, tack.u32),
                                              tack.zeros(3, tack.i32), tack.zeros(3, tack.f32)]))
    assert "reinterpret(UInt32, x[j + 1])" in text
    assert "reinterpret(Int32, x[j + 1])" in text
    assert "reinterpret(Float32, " in text
    for check in (parse_problems, literal_problems, structure_problems):
        assert check(jl_parser, text) == []


@pytest.mark.julia
def test_bitcast_on_julia153(julia153_engine):
    B.test_float_bits_round_trip(None, 32)
    B.test_float_bits_round_trip(None, 64)
    B.test_narrow_integers(None)
    B.test_constants_fold_to_the_same_bits(None)


def test_look_back_scan_renders(jl_parser):
    """The look-back scan, which a Julia GPU backend with 64-bit atomics takes: reinterpret for
    its f32 payload, atomic max for its block prefixes, valid KernelAbstractions source."""
    from tack.algorithms import lookback as LB

    tack.set_default_device("cpu", engine="sim")
    try:
        args = [tack.zeros(8192, tack.f32), tack.zeros(8192, tack.f32), tack.zeros(10, tack.u64),
                8192, 1, 0, 16, 4096, 1]
        for lean in (False, True):
            text = render_julia(specialize(LB.scan_kernel("f32", 2, lean), args))
            assert "reinterpret(UInt32, " in text and "tk_atomic_max!(" in text
            for check in (parse_problems, literal_problems, structure_problems):
                assert check(jl_parser, text) == []
    finally:
        tack.set_default_device("cpu")
