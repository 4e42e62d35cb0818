"""Matrix multiply-accumulate on the Julia engine: portable loops (passes/warps_shared.py, the
renderer's `warps_to_shared`): the lanes exchange their A and B elements through `@localmem`,
and each lane's D elements are f32 `fma` chains over k in the documented order, so the bits are
the simulator's. Checked without Julia as the warp operations are (tests/julia/
test_warps_julia.py): the rewritten IR run as KA's CPU backend runs it (`ka_cpu_model`) against
the simulator's bits, and the rendered text."""
import re

import numpy as np
import pytest
import tack
from tack.compiler import specialize
from tack.render.julia.ka import REWRITES, render_julia

from tests.julia import ka_cpu_model
from tests.julia.jl_checks import (
    ka_split_problems,
    literal_problems,
    parse_problems,
    structure_problems,
)
from tests.kernels import mma as K

SHAPE = (20, 9)  # M, N: one 64×32 block, partly outside (KA's CPU model runs lane by lane)


def _host(dtype, k):
    rng = np.random.default_rng(4)
    m, n = SHAPE
    return [rng.standard_normal((m, k)).astype(dtype.np),
            rng.standard_normal((k, n)).astype(dtype.np),
            np.zeros((m, n), np.float32), K.launch_size(m, n)]


def _kernel(dtype):
    return K.tiled_matmul_tf32 if dtype is tack.f32 else K.tiled_matmul


def _ir(kernel, host):
    args = [tack.array(a, device="sim") if isinstance(a, np.ndarray) else a for a in host]
    kir = specialize(kernel, args, library_math=False)
    for r in REWRITES:
        kir = r(kir)
    return kir, args


@pytest.mark.parametrize("dtype, k", [(tack.f16, 16), (tack.bf16, 24), (tack.f32, 12)],
                         ids=["f16", "bf16", "tf32"])
def test_the_tiled_matmul_gives_the_simulators_bits_as_ka_cpu_runs_it(dtype, k):
    host = _host(dtype, k)
    kir, args = _ir(_kernel(dtype), host)
    with tack.device("sim"):
        _kernel(dtype)(*args)
    want = args[2].numpy()
    ka_cpu_model.run(kir, host, host[-1])
    np.testing.assert_array_equal(host[2].view(np.uint32), want.view(np.uint32))


@pytest.mark.parametrize("dtype", [tack.bf16, tack.f32], ids=lambda t: t.name)
def test_the_tiled_matmul_renders(jl_parser, dtype):
    host = _host(dtype, 16)
    args = [tack.array(a, device="sim") if isinstance(a, np.ndarray) else a for a in host]
    text = render_julia(specialize(_kernel(dtype), args, library_math=False))
    assert "mma.sync" not in text and re.search(r"for (outer )?tk_w\d+ in", text)  # loops
    assert "fma(" in text and "@localmem" in text and "@synchronize()" in text
    for check in (parse_problems, literal_problems, structure_problems):
        assert check(jl_parser, text) == [], check.__name__
    assert ka_split_problems(jl_parser, text) == []
