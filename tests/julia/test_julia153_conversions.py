"""Float → integer conversion on the Julia engine: the renderer spells it `tk_fptoi(T, x)`
(julia/src/TackRuntime.jl: truncation saturated at T's range, NaN → 0, like the native engines'
`fpto[su]i.sat`), and the tests of tests/exec/test_float_to_int.py give the same values
on Julia 1.5.3 as on the CPU engine and the simulator."""
import numpy as np
import pytest
import tack
from tack.compiler import specialize
from tack.render.julia_ka import render_julia

from tests.exec import test_float_to_int as F
from tests.julia.test_render import literal_problems, parse_problems, structure_problems


def test_float_to_int_renders_saturating(jl_parser):
    tack.set_default_device("cpu")
    x = tack.array(np.zeros(3, np.float32))
    text = render_julia(specialize(F.store_and_cast, [x, tack.zeros(3, tack.i16),
                                                      tack.zeros(3, tack.u8)]))
    assert "stored[i + 1] = tk_fptoi(Int16, x[i + 1])" in text
    assert "cast[i + 1] = tk_fptoi(UInt8, x[i + 1])" in text
    assert "unsafe_trunc" not in text
    for check in (parse_problems, literal_problems, structure_problems):
        assert check(jl_parser, text) == []


@pytest.mark.julia
def test_float_to_int_on_julia153(julia153_engine):
    F.test_float_to_int_stores_and_casts_saturate(None)
    F.test_float_to_int_constant_folding_agrees(None)
