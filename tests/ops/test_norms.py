"""layer_norm (with its saved statistics: a kernel of three outputs) and rms_norm over the last
axis, against the definitions."""
import numpy as np
import pytest
from tack import ops

from tests.ops import refs

SHAPES = [(1,), (1, 1), (7, 13), (3, 1025), (4, 5, 6), (2, 257), (2, 9000)]
DTYPES = [np.float32, np.float64]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.__name__)
@pytest.mark.engines("cpu", "sim", "cuda",
                     reason="the CPU's kernels and the workgroup ones (simulator, GPU); not julia:"
                            " about 6 s of Julia 1.5.3 compiles there")
def test_layer_norm(device, shape, dtype):
    n = shape[-1]
    x = refs.rand(shape, dtype, shift=2.0)
    w, b = refs.rand((n,), dtype, 1), refs.rand((n,), dtype, 2)
    y, mean, rstd = ops.layer_norm(x, w, b, eps=1e-5, return_stats=True)
    want_y, want_mean, want_rstd = refs.layer_norm(x, w, b, 1e-5)
    refs.close(y, want_y, dtype, scale=4)
    refs.close(mean, want_mean, dtype, scale=4)
    refs.close(rstd, want_rstd, dtype, scale=4)
    ones, zeros = np.ones(n, dtype), np.zeros(n, dtype)
    refs.close(ops.layer_norm(x), refs.layer_norm(x, ones, zeros, 1e-5)[0], dtype, scale=4)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.__name__)
@pytest.mark.engines("cpu", "sim", "cuda",
                     reason="the CPU's kernels and the workgroup ones (simulator, GPU); not julia:"
                            " about 6 s of Julia 1.5.3 compiles there")
def test_rms_norm(device, shape, dtype):
    n = shape[-1]
    x, w = refs.rand(shape, dtype), refs.rand((n,), dtype, 1)
    refs.close(ops.rms_norm(x, w, eps=1e-6), refs.rms_norm(x, w, 1e-6), dtype, scale=4)
    refs.close(ops.rms_norm(x), refs.rms_norm(x, np.ones(n), 1e-6), dtype, scale=4)


@pytest.mark.engines("cpu", "sim", "cuda", "julia",
                     reason="every engine: the CPU's kernels, the workgroup ones (simulator, GPU) "
                            "and Julia's")
def test_constant_rows_have_zero_variance(device):
    x = np.full((3, 100), 7.0)
    y, mean, rstd = ops.layer_norm(x, eps=1e-5, return_stats=True)
    assert np.all(y.numpy() == 0) and np.all(mean.numpy() == 7)
    refs.close(rstd, np.full(3, 1 / np.sqrt(1e-5)), np.float64)
