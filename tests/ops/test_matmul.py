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
def test_matmul(device, m, k, n, dtype):
    a, b = refs.rand((m, k), dtype, 1, 1.0), refs.rand((k, n), dtype, 2, 1.0)
    refs.close(ops.matmul(a, b), refs.matmul(a, b), dtype, scale=max(1, k / 8))


@pytest.mark.parametrize("z,m,k,n", [(1, 3, 4, 5), (3, 17, 9, 70), (2, 65, 33, 1)], ids=str)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.__name__)
def test_batched_matmul(device, z, m, k, n, dtype):
    a, b = refs.rand((z, m, k), dtype, 1, 1.0), refs.rand((z, k, n), dtype, 2, 1.0)
    refs.close(ops.batched_matmul(a, b), refs.matmul(a, b), dtype, scale=max(1, k / 8))


def test_empty_inner_dimension_gives_zeros(device):
    c = ops.matmul(np.zeros((3, 0)), np.zeros((0, 4)))
    assert c.shape == (3, 4) and not c.numpy().any()
