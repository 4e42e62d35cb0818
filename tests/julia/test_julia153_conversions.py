"""Float → integer conversion on the Julia engine: the renderer spells it `tk_fptoi(T, x)`
(julia/src/TackRuntime.jl: truncation saturated at T's range, NaN → 0, like the native engines'
`fpto[su]i.sat`); tests/exec/test_float_to_int.py checks the values on every engine, Julia's
included."""
import numpy as np
import tack
from tack.compiler import specialize
from tack.render.julia.ka import render_julia

from tests.julia.jl_checks import literal_problems, parse_problems, structure_problems
from tests.kernels.conversions import store_and_cast


def test_float_to_int_renders_saturating(jl_parser):
    tack.set_default_device("cpu")
    x = tack.array(np.zeros(3, np.float32))
    text = render_julia(specialize(store_and_cast, [x, tack.zeros(3, tack.i16),
                                                      tack.zeros(3, tack.u8)]))
    assert "stored[i + 1] = tk_fptoi(Int16, x[i + 1])" in text
    assert "cast[i + 1] = tk_fptoi(UInt8, x[i + 1])" in text
    assert "unsafe_trunc" not in text
    for check in (parse_problems, literal_problems, structure_problems):
        assert check(jl_parser, text) == []
