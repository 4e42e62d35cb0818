"""`ops.attention_backward`: dq, dk, dv of softmax(q k^T * scale) v against float64 gradients
written from the definition (and that reference against central finite differences), over
awkward shapes (one key, primes, several batches and heads, head_dim 1 to 40), causal and not,
explicit scales, half inputs (f32 inside, each gradient rounded once), and argument errors."""
import math

import ml_dtypes
import numpy as np
import pytest
import tack
from tack import ops

from tests.ops import refs

pytestmark = pytest.mark.engines("cpu", "sim", "cuda",
                                 reason="the CPU's kernels and the workgroup ones (simulator, "
                                        "GPU); not julia: attention's kernels take minutes of "
                                        "Julia 1.5.3 compiles (test_attention.py)")


def reference(q, k, v, do, scale, causal):
    """(dq, dk, dv) in float64: dv = p^T do, ds = p * (do v^T - rowsum(do * o)),
    dq = scale ds k, dk = scale ds^T q."""
    q, k, v, do = refs.f64(q, k, v, do)
    s = np.einsum("bhid,bhjd->bhij", q, k) * scale
    if causal:
        s = np.where(np.tril(np.ones(s.shape[-2:], bool)), s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    o = p @ v
    ds = p * (do @ np.swapaxes(v, -1, -2) - (do * o).sum(-1, keepdims=True))
    return ds @ k * scale, np.swapaxes(ds, -1, -2) @ q * scale, np.swapaxes(p, -1, -2) @ do


def test_the_reference_is_the_derivative():
    """Central differences of sum(attention(q, k, v) * do) in float64 at a few elements."""
    rng = np.random.default_rng(1)
    q, k, v, do = (rng.standard_normal((1, 2, 5, 3)) for _ in range(4))
    for causal in (False, True):
        grads = reference(q, k, v, do, 0.7, causal)
        for which, g in zip((q, k, v), grads):
            for idx in [(0, 0, 0, 0), (0, 1, 3, 2), (0, 1, 4, 1)]:
                old = which[idx]
                which[idx] = old + 1e-6
                up = (refs.attention(q, k, v, 0.7, causal) * do).sum()
                which[idx] = old - 1e-6
                down = (refs.attention(q, k, v, 0.7, causal) * do).sum()
                which[idx] = old
                assert abs((up - down) / 2e-6 - g[idx]) < 1e-7, (idx, causal)


SHAPES = [(1, 1, 1, 3), (2, 3, 17, 5), (1, 2, 31, 24), (2, 1, 67, 1), (1, 1, 13, 40)]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=lambda d: d.__name__)
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_gradients(device, shape, dtype, causal):
    q, k, v, do = (refs.rand(shape, dtype, s, 1.0) for s in (1, 2, 3, 4))
    want = reference(q, k, v, do, 1 / math.sqrt(shape[-1]), causal)
    got = ops.attention_backward(q, k, v, do, causal=causal)
    tol = {np.float32: 1e-5, np.float64: 1e-13}[dtype]  # the errors seen: 3e-7, 2e-15
    for g, w in zip(got, want):
        assert g.dtype.np == np.dtype(dtype)
        np.testing.assert_allclose(g.numpy(), w, rtol=0, atol=tol * max(1.0, np.abs(w).max()))


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16], ids=lambda d: np.dtype(d).name)
def test_half_inputs_round_each_gradient_once(device, dtype):
    shape = (1, 2, 19, 16)
    q, k, v, do = (refs.rand(shape, dtype, s, 1.0) for s in (5, 6, 7, 8))
    want = reference(q, k, v, do, 0.3, True)
    eps = float(ml_dtypes.finfo(dtype).eps) / 2
    for g, w in zip(ops.attention_backward(q, k, v, do, scale=0.3, causal=True), want):
        assert g.dtype.np == np.dtype(dtype)
        err = np.abs(g.numpy().astype(np.float64) - w)
        assert (err <= eps * np.abs(w) + 1e-4 * np.abs(w).max()).all(), err.max()


def test_scale_and_shapes_of_arguments():
    q = np.zeros((1, 1, 3, 4), np.float32)
    assert [g.shape for g in ops.attention_backward(q, q, q, q, scale=-2.0)] == [q.shape] * 3
    assert all(g.size == 0 for g in ops.attention_backward(*[np.zeros((1, 2, 0, 4))] * 4))
    with pytest.raises(tack.TackValueError, match="attention_backward: argument 'dout'"):
        ops.attention_backward(q, q, q, np.zeros((1, 1, 2, 4), np.float32))
    with pytest.raises(tack.TackTypeError, match="attention_backward: argument 'v'"):
        ops.attention_backward(q, q, q.astype(np.float64), q)
    with pytest.raises(tack.TackTypeError, match="argument 'causal' must be a bool"):
        ops.attention_backward(q, q, q, q, causal=1)
