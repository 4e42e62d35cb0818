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
