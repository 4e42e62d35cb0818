"""matmul and batched_matmul at tile-unaligned and degenerate sizes, against the definition."""
import numpy as np
import pytest
from tack import ops

from tests.ops import refs

SIZES = [(1, 1, 1), (1, 7, 1), (7, 13, 5), (65, 17, 130), (64, 64, 64), (3, 100, 67),
         (129, 31, 1)]
DTYPES = [np.float32, np.float64]


@pytest.mark.parametrize("m,k,n", SIZES, ids=str)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.__name__)
@pytest.mark.engines("cpu", "cuda",
                     reason="not sim: about 7 s of tiled kernels there, not julia: a minute (the "
                            "batched and empty cases below and tests/ops/test_workgroup_paths.py "
                            "run its tile)")
def test_matmul(device, m, k, n, dtype):
    a, b = refs.rand((m, k), dtype, 1, 1.0), refs.rand((k, n), dtype, 2, 1.0)
    refs.close(ops.matmul(a, b), refs.matmul(a, b), dtype, scale=max(1, k / 8))


@pytest.mark.parametrize("z,m,k,n", [(1, 3, 4, 5), (3, 17, 9, 70), (2, 65, 33, 1)], ids=str)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.__name__)
@pytest.mark.engines("cpu", "sim", "cuda",
                     reason="the CPU's kernels and the workgroup ones (simulator, GPU); not julia:"
                            " about 30 s of Julia 1.5.3 compiles there")
def test_batched_matmul(device, z, m, k, n, dtype):
    a, b = refs.rand((z, m, k), dtype, 1, 1.0), refs.rand((z, k, n), dtype, 2, 1.0)
    refs.close(ops.batched_matmul(a, b), refs.matmul(a, b), dtype, scale=max(1, k / 8))


@pytest.mark.parametrize("za,zb", [(1, 3), (3, 1)])
def test_batched_matmul_does_not_broadcast_a_batch_of_one(device, za, zb):
    """NNlib's batched_mul broadcasts a batch of 1
    (https://github.com/FluxML/NNlib.jl/blob/master/src/batched/batchedmul.jl); tack.ops
    requires equal batches, as docs/ops.md says, and the wrapper below gives the broadcast."""
    a, b = refs.rand((za, 2, 4), np.float32, 1, 1.0), refs.rand((zb, 4, 5), np.float32, 2, 1.0)
    with pytest.raises(ValueError, match=r"batched_matmul: argument 'b' of shape"):
        ops.batched_matmul(a, b)
    z = max(za, zb)
    got = ops.batched_matmul(np.repeat(a, z // za, 0), np.repeat(b, z // zb, 0))
    refs.close(got, refs.matmul(a, b), np.float32)  # NumPy's matmul broadcasts the batch


@pytest.mark.engines("cpu", "sim", "cuda", "julia",
                     reason="every engine: the CPU's kernels, the workgroup ones (simulator, GPU) "
                            "and Julia's")
def test_empty_inner_dimension_gives_zeros(device):
    c = ops.matmul(np.zeros((3, 0)), np.zeros((0, 4)))
    assert c.shape == (3, 4) and not c.numpy().any()
