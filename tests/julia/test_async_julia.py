"""Asynchronous copies on the Julia engine: rendered as synchronous copies, commits and waits as
`nothing` (docs/julia.md, "Asynchronous copies"). Checked without Julia as the other workgroup
kernels are (tests/julia/test_workgroups.py): the rendered text (parse, literals, KA's CPU
splitting rules) and the rewritten IR run the way KA's CPU backend runs it (`ka_cpu_model`)
against the simulator's bits, for the double-buffered matmul and copies of several sizes."""
import numpy as np
import pytest
import tack
from tack.compiler import specialize
from tack.render.julia.ka import render_julia

from tests.julia import ka_cpu_model
from tests.julia.jl_checks import (
    ka_split_problems,
    literal_problems,
    parse_problems,
    structure_problems,
)
from tests.kernels import async_copies as K


def _matmul():
    return K.matmul_pipelined, [a.numpy() for a in K.matmul_args(32, 16, 64, seed=3)]


def _copy(dtype, count):
    x = (np.arange(512) * 7 % 251).astype(dtype.np)
    return K.COPY[count], [x, np.zeros(512, dtype.np)]


CASES = {"matmul": _matmul, "f32x1": lambda: _copy(tack.f32, 1),
         "f16x8": lambda: _copy(tack.f16, 8), "f64x2": lambda: _copy(tack.f64, 2)}


@pytest.mark.parametrize("name", CASES)
def test_ka_cpu_runs_them_with_the_simulators_bits(name):
    kernel, host = CASES[name]()
    args = [tack.array(a, device="sim") for a in host]
    with tack.device("sim"):
        kernel(*args)
    kir = ka_cpu_model.rewritten(specialize(kernel, args, library_math=False))
    n = host[-1].size
    ka_cpu_model.run(kir, host, n)
    np.testing.assert_array_equal(host[-1].view(np.uint8), args[-1].numpy().view(np.uint8))


def test_the_copies_are_statements_and_the_waits_nothing(jl_parser):
    kernel, host = _matmul()
    text = render_julia(specialize(kernel, [tack.array(a, device="sim") for a in host],
                                   library_math=False))
    assert text.count("# tack.async_copy, synchronous here") == 4
    assert "nothing  # tack.async_commit(): the copies above are already done" in text
    assert "nothing  # tack.async_wait(1): the copies above are already done" in text
    assert "cp.async." not in text  # the barriers are the kernel's own, rendered as ever
    assert text.count("@synchronize()") >= 2
    for check in (parse_problems, literal_problems, structure_problems):
        assert check(jl_parser, text) == []
    assert ka_split_problems(jl_parser, text) == []


def test_a_copy_of_several_elements_is_one_loop(jl_parser):
    kernel, host = _copy(tack.f16, 8)
    text = render_julia(specialize(kernel, [tack.array(a, device="sim") for a in host],
                                   library_math=False))
    assert "for tk_c in Int64(0):Int64(7)  # tack.async_copy, synchronous here" in text
    assert "buf[" in text and " + tk_c + 1] = x[" in text
    for check in (parse_problems, literal_problems, structure_problems):
        assert check(jl_parser, text) == []
