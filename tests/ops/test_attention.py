"""Scaled dot-product attention, causal and not, against softmax(q k^T * scale) v."""
import math

import numpy as np
import pytest
import tack
from tack import ops

from tests.ops import refs

SHAPES = [(1, 1, 1, 1), (2, 3, 17, 5), (1, 2, 300, 8), (1, 1, 257, 64), (2, 1, 31, 3)]
DTYPES = [np.float32, np.float64]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.__name__)
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.engines("cpu", "cuda",
                     reason="not sim: about 3 s a case at (1, 1, 257, 64), not julia: minutes; "
                            "tests/ops/test_workgroup_paths.py runs the simulator's attention "
                            "tiles")
def test_attention(device, shape, dtype, causal):
    q, k, v = (refs.rand(shape, dtype, s, 1.5) for s in (1, 2, 3))
    want = refs.attention(q, k, v, 1 / math.sqrt(shape[-1]), causal)
    refs.close(ops.attention(q, k, v, causal=causal), want, dtype, scale=8)


@pytest.mark.engines("cpu", "sim", "cuda", "julia",
                     reason="every engine: the CPU's kernels, the workgroup ones (simulator, GPU) "
                            "and Julia's")
def test_explicit_scale_and_large_scores(device):
    """Scores of several hundred: the online softmax keeps every exponential finite."""
    q, k, v = (refs.rand((1, 2, 40, 4), np.float32, s, 1.0) for s in (1, 2, 3))
    got = ops.attention(q, k, v, scale=60.0)
    refs.close(got, refs.attention(q, k, v, 60.0, False), np.float32, scale=50)
    assert np.isfinite(got.numpy()).all()


@pytest.mark.parametrize("d", [0, 1])
@pytest.mark.engines("cpu", "sim",
                     reason="the simulator's 256-lane kernels at the head_dims around their "
                            "bounds, as the CPU's; the engines CI runs")
def test_empty_head_dim_and_sequence(device, d):
    """head_dim 0 (no scores to scale: 1/sqrt(0) is never taken) or an empty sequence: the
    empty result of q's shape."""
    for shape in [(2, 3, 4, 0), (1, 2, 0, 8)] if d == 0 else [(0, 1, 3, 2)]:
        q = np.zeros(shape, np.float32)
        got = ops.attention(q, q, q)
        assert got.shape == shape and got.size == 0
        assert ops.attention(q, q, q, scale=0.5).shape == shape


# head dimensions around the local-array bound of the portable kernel (attention.LOCAL_HEAD)
# and the shared-memory bound of the workgroup one (attention.SHARED_HEAD bytes: 128 f32, 64 f64)
WIDE = [(1, 1, 3, 64), (1, 1, 3, 65), (1, 2, 5, 128), (1, 2, 5, 129), (2, 1, 4, 255),
        (2, 1, 4, 256), (2, 1, 4, 257), (1, 1, 3, 1000)]


@pytest.mark.parametrize("shape", WIDE, ids=str)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.__name__)
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.engines("cpu", "sim",
                     reason="the simulator's 256-lane kernels at the head_dims around their "
                            "bounds, as the CPU's; the engines CI runs")
def test_head_dims_around_the_bounds(device, shape, dtype, causal):
    q, k, v = (refs.rand(shape, dtype, s, 1.5) for s in (1, 2, 3))
    want = refs.attention(q, k, v, 1 / math.sqrt(shape[-1]), causal)
    refs.close(ops.attention(q, k, v, causal=causal), want, dtype, scale=8)


@pytest.mark.parametrize("engine,d,dtype", [
    (None, 2 ** 18, np.float64), (None, 2 ** 19 + 1, np.float32), (None, 2 ** 19 + 1, np.float64),
    (None, 2 ** 20, np.float32), ("sim", 2 ** 20, np.float32)])
def test_head_dims_past_a_thread_stack(engine, d, dtype):
    """A legal head_dim of 2^20 (4 MiB of f32 per row, two rows of local storage: a CPU
    thread's whole stack) and sizes around where the two local arrays of head_dim elements
    overflowed it: no local storage grows with head_dim. Several keys, so the softmax weighs
    them (two on the simulator, which interprets the 2^20-column loops)."""
    tack.set_default_device("cpu", engine=engine)
    shape = (1, 1, 2 if engine else 3, d)
    q, k, v = (refs.rand(shape, dtype, s, 0.02) for s in (1, 2, 3))
    for causal in (False, True):
        want = refs.attention(q, k, v, 1 / math.sqrt(d), causal)
        refs.close(ops.attention(q, k, v, causal=causal), want, dtype, scale=8)
