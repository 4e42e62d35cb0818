"""Float64 NumPy references for tack.ops, written from each op's definition (not from the
kernels), and the comparison every op test uses."""
from __future__ import annotations

import math

import numpy as np

TOL = {np.float32: {"rtol": 2e-5, "atol": 2e-6}, np.float64: {"rtol": 1e-12, "atol": 1e-13}}


def close(got, want, dtype, scale=1.0):
    """`got` (a Tack array) matches the float64 `want`, in `dtype`'s tolerance."""
    g = got.numpy()
    assert g.dtype == np.dtype(dtype), (g.dtype, dtype)
    assert g.shape == want.shape, (g.shape, want.shape)
    t = TOL[dtype]
    np.testing.assert_allclose(g.astype(np.float64), want, rtol=t["rtol"] * scale,
                               atol=t["atol"] * scale)


def f64(*arrays):
    return [np.asarray(a, np.float64) for a in arrays]


def add(x, y, alpha):
    x, y = f64(x, y)
    return x + alpha * y


def relu(x):
    (x,) = f64(x)
    return np.where(x < 0, 0.0, x)  # NaN and -0.0 unchanged


def gelu_tanh(x):
    (x,) = f64(x)
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


def gelu_erf(x):
    (x,) = f64(x)
    erf = np.vectorize(math.erf)
    return 0.5 * x * (1 + erf(x / math.sqrt(2)))


def silu(x):
    (x,) = f64(x)
    return x / (1 + np.exp(-x))


def softmax(x, axis):
    (x,) = f64(x)
    e = np.exp(x - x.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)


def log_softmax(x, axis):
    (x,) = f64(x)
    z = x - x.max(axis, keepdims=True)
    return z - np.log(np.exp(z).sum(axis, keepdims=True))


def softmax_with_inf(x, axis, log=False):
    """softmax (log_softmax with `log`) as NNlib gives it for rows holding +inf, the limit of
    the finite rows: the k +inf elements of a row share it (1/k; log: -log k), the others get 0
    (log: -inf); rows without +inf as `softmax`/`log_softmax`
    (https://github.com/FluxML/NNlib.jl/blob/master/src/softmax.jl)."""
    (x,) = f64(x)
    inf = x == np.inf
    k = inf.sum(axis, keepdims=True)
    finite = np.where(inf.any(axis, keepdims=True), 0.0, x)  # rows with +inf: placeholders
    plain = log_softmax(finite, axis) if log else softmax(finite, axis)
    with np.errstate(divide="ignore"):
        limit = np.where(inf, -np.log(np.maximum(k, 1)), -np.inf) if log else inf / np.maximum(k, 1)
    return np.where(k > 0, limit, plain)


def layer_norm(x, w, b, eps):
    """(y, mean, rstd): the biased variance, as PyTorch and NNlib normalise."""
    x, w, b = f64(x, w, b)
    mu = x.mean(-1)
    var = ((x - mu[..., None]) ** 2).mean(-1)
    rstd = 1 / np.sqrt(var + eps)
    return (x - mu[..., None]) * rstd[..., None] * w + b, mu, rstd


def rms_norm(x, w, eps):
    x, w = f64(x, w)
    return x / np.sqrt((x * x).mean(-1, keepdims=True) + eps) * w


def matmul(a, b):
    a, b = f64(a, b)
    return np.einsum("...ik,...kj->...ij", a, b)


def attention(q, k, v, scale, causal):
    q, k, v = f64(q, k, v)
    s = np.einsum("bhid,bhjd->bhij", q, k) * scale
    if causal:
        n = s.shape[-1]
        s = np.where(np.tril(np.ones((n, n), bool)), s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    return np.einsum("bhij,bhjd->bhid", p, v)


def rand(shape, dtype, seed=0, scale=3.0, shift=0.0):
    return (np.random.default_rng(seed).normal(size=shape) * scale + shift).astype(dtype)


def tf32_bits(x) -> np.ndarray:
    """The TF32 rounding of float32 `x`, as uint32 bits, by integer operations on the bits
    written from the definition: the top 19 bits kept, one added to them when the 13 dropped are
    half a unit or more (ties away from zero: the bits are sign and magnitude); an infinity
    kept, a NaN quieted with its top fraction bits."""
    u = np.asarray(x, np.float32).view(np.uint32).astype(np.int64)
    sign, mag = u & 0x80000000, u & 0x7FFFFFFF
    head = (mag >> 13) + ((mag & 0x1FFF) >= 0x1000)
    special = np.where(mag == 0x7F800000, mag, (mag | 0x400000) & 0x7FFFE000)
    return (sign | np.where(mag < 0x7F800000, head << 13, special)).astype(np.uint32)


def tf32_rounded(x) -> np.ndarray:
    """float32 `x` rounded to TF32 (`tf32_bits`), as float32 of x's shape."""
    return tf32_bits(x).view(np.float32).reshape(np.shape(x))
