"""Scaled dot-product attention, causal and not, against softmax(q k^T * scale) v."""
import math

import numpy as np
import pytest
from tack import ops

from tests.ops import refs

SHAPES = [(1, 1, 1, 1), (2, 3, 17, 5), (1, 2, 300, 8), (1, 1, 257, 64), (2, 1, 31, 3)]
DTYPES = [np.float32, np.float64]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.__name__)
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_attention(device, shape, dtype, causal):
    q, k, v = (refs.rand(shape, dtype, s, 1.5) for s in (1, 2, 3))
    want = refs.attention(q, k, v, 1 / math.sqrt(shape[-1]), causal)
    refs.close(ops.attention(q, k, v, causal=causal), want, dtype, scale=8)


def test_explicit_scale_and_large_scores(device):
    """Scores of several hundred: the online softmax keeps every exponential finite."""
    q, k, v = (refs.rand((1, 2, 40, 4), np.float32, s, 1.0) for s in (1, 2, 3))
    got = ops.attention(q, k, v, scale=60.0)
    refs.close(got, refs.attention(q, k, v, 60.0, False), np.float32, scale=50)
    assert np.isfinite(got.numpy()).all()
