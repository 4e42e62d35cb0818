"""The warpgroup MMA on the Julia engine: portable loops, synchronous (passes/wgmma_loops.py,
through the renderer's `warps_to_shared`): each lane's D elements are f32 `fma` chains over
k, reading the tiles where the hardware reads them, so the bits are the simulator's. Checked
without Julia as the warp MMA is (tests/julia/test_mma_julia.py): the rewritten IR run as KA's
CPU backend runs it (`ka_cpu_model`) against the simulator's bits, and the rendered text."""
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
from tests.kernels import wgmma as K


def _ir(kernel, host):
    args = [tack.array(a, device="sim") if isinstance(a, np.ndarray) else a for a in host]
    kir = specialize(kernel, args, library_math=False)
    for r in REWRITES:
        kir = r(kir)
    return kir, args


def _tile_host(n: int, tf32: bool):
    rng = np.random.default_rng(11)
    k, dtype = (32, np.float32) if tf32 else (64, np.float16)
    return [rng.standard_normal((128, k)).astype(dtype),
            rng.standard_normal((k, n)).astype(dtype), np.zeros((128, n), np.float32), 256]


@pytest.mark.parametrize("n, layout, tf32", [(8, "swizzle128", False), (8, "interleave", True)])
def test_a_tile_gives_the_simulators_bits_as_ka_cpu_runs_it(n, layout, tf32):
    kernel = K.tile_kernel(n, layout, tf32)
    host = _tile_host(n, tf32)
    kir, args = _ir(kernel, host)
    with tack.device("sim"):
        kernel(*args)
    want = args[2].numpy()
    ka_cpu_model.run(kir, host, host[-1])
    np.testing.assert_array_equal(host[2].view(np.uint32), want.view(np.uint32))


def test_the_tiled_matmul_renders_as_loops(jl_parser):
    host = [np.zeros((20, 70), np.float16), np.zeros((70, 9), np.float16),
            np.zeros((20, 9), np.float32), K.launch_size(20, 9)]
    args = [tack.array(a, device="sim") if isinstance(a, np.ndarray) else a for a in host]
    text = render_julia(specialize(K.tiled_matmul, args, library_math=False))
    assert "mma_async" not in text and "wgmma_" not in text  # loops, not the instruction
    assert re.search(r"for (outer )?tk_\w+ in", text) and "xor(" in text and "fma(" in text
    for check in (parse_problems, literal_problems, structure_problems):
        assert check(jl_parser, text) == [], check.__name__
    assert ka_split_problems(jl_parser, text) == []
