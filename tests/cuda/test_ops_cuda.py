"""tack.ops on the CUDA engine beyond the tests of tests/ops that run on a GPU through their
`device` fixture (the workgroup kernels: block reductions, shared-memory tiles): the sizes at
which each GPU path changes (one-read rows up to 256 * 32, online rows past that)."""
import math

import numpy as np
import pytest
import tack
from tack import ops

from tests.cuda import gpu
from tests.ops import refs

pytestmark = [*gpu.MARKS, pytest.mark.usefixtures("cuda_device")]


@pytest.mark.parametrize("n", [255, 256, 257, 8191, 8192, 8193, 20000])
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=lambda d: d.__name__)
def test_row_paths(n, dtype):
    """Each per-lane tier of the one-read kernels and the online/long kernels."""
    x = refs.rand((3, n), dtype, scale=4.0)
    refs.close(ops.softmax(x), refs.softmax(x, -1), dtype)
    refs.close(ops.log_softmax(x), refs.log_softmax(x, -1), dtype, scale=8)
    w, b = refs.rand((n,), dtype, 1), refs.rand((n,), dtype, 2)
    y, mean, rstd = ops.layer_norm(x, w, b, return_stats=True)
    want = refs.layer_norm(x, w, b, 1e-5)
    for got, exp in zip((y, mean, rstd), want):
        refs.close(got, exp, dtype, scale=8)
    refs.close(ops.rms_norm(x, w), refs.rms_norm(x, w, 1e-6), dtype, scale=8)


@pytest.mark.parametrize("causal", [False, True])
def test_attention_bench_shape(causal):
    """The benchmark's head size at a sequence of several 256-row query blocks."""
    q, k, v = (refs.rand((2, 2, 600, 64), np.float32, s, 1.0) for s in (1, 2, 3))
    got = ops.attention(q, k, v, causal=causal)
    refs.close(got, refs.attention(q, k, v, 1 / math.sqrt(64), causal), np.float32, scale=8)


def test_matmul_large_unaligned():
    a, b = refs.rand((300, 1000), np.float32, 1, 1.0), refs.rand((1000, 77), np.float32, 2, 1.0)
    refs.close(ops.matmul(a, b), refs.matmul(a, b), np.float32, scale=100)


@pytest.mark.parametrize("shape", [(1, 1, 1), (1, 1025, 1), (131, 257, 127), (1025, 9, 1025),
                                   (128, 16, 128), (2, 129, 7, 130), (3, 1, 131, 1)], ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=lambda d: d.__name__)
def test_matmul_tile_edges(shape, dtype):
    """The 128 x 128 tiles at one element, primes, 1025 (one row or column past a tile) and
    k not a multiple of the 8-deep slab; batched shapes too."""
    *z, m, k, n = shape
    a, b = refs.rand((*z, m, k), dtype, 1, 1.0), refs.rand((*z, k, n), dtype, 2, 1.0)
    got = ops.batched_matmul(a, b) if z else ops.matmul(a, b)
    refs.close(got, refs.matmul(a, b), dtype, scale=max(1, k / 8))


def test_matmul_out_is_overwritten():
    """`out=` holding old values: the tiled kernel writes every element (no accumulation)."""
    a, b = refs.rand((200, 33), np.float32, 1, 1.0), refs.rand((33, 150), np.float32, 2, 1.0)
    out = tack.array(np.full((200, 150), 7.0, np.float32))
    ops.matmul(a, b, out=out)
    refs.close(out, refs.matmul(a, b), np.float32, scale=8)


def test_host_array_is_refused_on_the_gpu():
    x = tack.array(np.zeros(4, np.float32), device=tack.Device("cpu"))
    with pytest.raises(ValueError, match=r"relu: argument 'x' lives on"):
        ops.relu(x)
