"""Constant tables on the Julia engine: constant tables render as top-level `const` tuples
(docs/design/003-julia-rendering.md, "constant table") that tree-sitter-julia parses under the
renderer's rules; tests/exec/test_const_tables.py runs the table kernels (tests/kernels/tables.py)
on every engine, Julia's included."""
import re

import numpy as np
import pytest
import tack
from tack.compiler import specialize
from tack.render.julia.ka import render_julia

from tests.julia.jl_checks import literal_problems, parse_problems, structure_problems
from tests.kernels import tables as T


def _kernels():
    i32 = lambda *v: tack.array(np.array(v, np.int32))
    return {
        "marching_squares": (T.marching_squares, lambda: [
            tack.array(np.ones((3, 4), np.float32)), 0.5, tack.zeros(6, tack.i32),
            tack.zeros((6, 4), tack.i32)]),
        "cube_edges": (T.cube_edges, lambda: [i32(1, 2), tack.zeros(2, tack.i32),
                                              tack.zeros(2, tack.i32)]),
        "weighted_f32": (T.weighted, lambda: [tack.zeros(2), i32(0, 1), tack.zeros(2),
                                              tack.zeros(2)]),
        "weighted_f64": (T.weighted, lambda: [tack.zeros(2, tack.f64), i32(0, 1),
                                              tack.zeros(2, tack.f64), tack.zeros(2, tack.f64)]),
        "through_func": (T.through_func, lambda: [i32(1, 2), tack.zeros(2, tack.i32)]),
    }


@pytest.mark.parametrize("debug", [False, True], ids=["plain", "debug"])
@pytest.mark.parametrize("name", list(_kernels()))
def test_rendered_table_kernels(name, debug, jl_parser):
    kernel, make = _kernels()[name]
    tack.set_default_device("cpu")
    tack.set_debug(debug)
    text = render_julia(specialize(kernel, make()))
    assert parse_problems(jl_parser, text) == []
    assert literal_problems(jl_parser, text) == []
    assert structure_problems(jl_parser, text) == []
    consts = re.findall(r"^const (tk_tab_\w+) = \((.*),\)  # tables.py:\d+$",
                        text, re.MULTILINE)
    assert consts, text
    for cname, _ in consts:  # defined before the kernel, read inside it
        assert text.index(f"const {cname}") < text.index("@kernel function")
        assert re.search(rf"{cname}\[.* \+ 1\]", text)
    if name == "weighted_f32":
        assert not re.search(r"Float64|Inf64|NaN64", text)
        assert "(0.0625f0, 0.1f0, 0.3f0, 0.7f0, 0.1f0, 0.0001f0,)" in text
    if name == "cube_edges":
        table = dict(consts)[next(c for c, _ in consts if "EDGE_TABLE" in c)]
        assert table.count("Int32(") == 256 and table.startswith("Int32(0), Int32(265),")
