"""Warp operations on the Julia engine, in the default text: written with `@localmem` and
`@synchronize` (passes/warps_shared.py, declared by the renderer as `rewrites.warps_to_shared`),
so KernelAbstractions 0.9 and 0.10 run Tack's 32-lane warps on every backend. (The second text,
with KA's sub-group `shfl_down`, is tests/julia/test_subgroups_julia.py's.) Checked without Julia
three ways, as the other barrier kernels are (tests/julia/test_workgroups.py): the rendered text
(parse, literals, KA's CPU splitting rules), the rewritten IR run the way KA's CPU backend runs it
(`ka_cpu_model`) against the simulator's bits, and the refusals of what cannot be moved before
its statement. `pytest -m julia` runs tests/exec/test_warps.py's julia cases on Julia 1.5.3."""
import numpy as np
import pytest
import tack
from tack.compiler import specialize
from tack.errors import RenderError
from tack.render.julia.ka import REWRITES, render_julia, workgroup_size

from tests.julia import ka_cpu_model
from tests.julia.jl_checks import (
    ka_split_problems,
    literal_problems,
    parse_problems,
    structure_problems,
)
from tests.kernels import warps as W

N = 512


def _ir(kernel, host, rewrites=REWRITES):
    args = [tack.array(a, device="sim") if isinstance(a, np.ndarray) else a for a in host]
    kir = specialize(kernel, args, library_math=False)
    for r in rewrites:
        kir = r(kir)
    return kir, args


# (not u64: the model keeps integer scratch arrays as int64)
DTYPES = [tack.i8, tack.u16, tack.i32, tack.i64, tack.f16, tack.bf16, tack.f32, tack.f64]


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda t: t.name)
@pytest.mark.parametrize("case", range(5))
def test_warp_kernels_give_the_simulators_bits_as_ka_cpu_runs_them(case, dtype):
    kernel, host = W.host_cases(dtype)[case]
    kir, args = _ir(kernel, host)
    with tack.device("sim"):
        kernel(*args)
    want = [a.numpy() for a in args if isinstance(a, tack.Array)]
    ka_cpu_model.run(kir, host, N)
    for got, w in zip([h for h in host if isinstance(h, np.ndarray)], want):
        np.testing.assert_array_equal(got.view(np.uint8), w.view(np.uint8))


@pytest.mark.parametrize("dtype", [tack.f16, tack.bf16, tack.f64, tack.u8], ids=lambda t: t.name)
def test_warp_kernels_render(jl_parser, dtype):
    for kernel, host in W.host_cases(dtype):
        args = [tack.array(a, device="sim") if isinstance(a, np.ndarray) else a for a in host]
        kir = specialize(kernel, args, library_math=False)
        text = render_julia(kir)
        if kernel is not W.ids:  # lane and warp ids are arithmetic on the lane: no exchange
            assert "@synchronize()" in text and "@localmem" in text
        # the default text calls no sub-group function: it is the one KA 0.9 runs
        assert "shfl" not in text and "sub_group" not in text
        assert "tk_workgroupsize" in text and workgroup_size(_ir(kernel, host)[0]) == 256
        for check in (parse_problems, literal_problems, structure_problems):
            assert check(jl_parser, text) == [], kernel.name
        assert ka_split_problems(jl_parser, text) == [], kernel.name


def test_a_reduction_is_five_exchanges():
    text = render_julia(specialize(W.reductions, [tack.zeros(N)] * 4 + [N],
                                   library_math=False))
    assert text.count("@synchronize()") == 3 * 5 * 2
    for step in (16, 8, 4, 2, 1):
        assert f"Int32(31), Int32({step}))" in text


@tack.kernel
def in_while(x, out, n):
    for i in range(n):
        k = 0
        while tack.warp_all(k < 3):
            k += 1
        out[i] = tack.f32(k)


@tack.kernel
def in_uniform_arm(x, out, n, m):
    for i in range(n):
        out[i] = tack.warp_sum(x[i]) if m > 0 else 0.0


def test_what_cannot_move_before_its_statement_is_a_render_error():
    with pytest.raises(RenderError, match="warp collective in a while condition"):
        render_julia(specialize(in_while, [tack.zeros(N), tack.zeros(N), N]))
    with pytest.raises(RenderError, match="warp collective in an arm of a conditional"):
        render_julia(specialize(in_uniform_arm, [tack.zeros(N), tack.zeros(N), N, 1]))
