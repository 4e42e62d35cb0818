"""Numba versions of tack.ops' portable kernels for bench/ops.py: the same algorithms (one row
per parallel iteration, the three sweeps of softmax, the three of layer norm, gelu's tanh form
as x / (1 + exp(-2u)) as tack.ops computes it), in float32 like
Tack's (np.float32 constants keep Numba from widening to float64), compiled with
`parallel=True` and with fastmath off or on."""
from __future__ import annotations

import math

import numpy as np


def kernels(fastmath: bool) -> dict:
    """name -> callable(inputs..., out), compiled on first call (numba imported here so that a
    machine without it can still run the other rows)."""
    import numba
    from numba import prange

    jit = numba.njit(parallel=True, fastmath=fastmath, cache=False)

    @jit
    def softmax(x, out):
        for r in prange(x.shape[0]):
            m = x[r, 0]
            for c in range(x.shape[1]):
                m = max(m, x[r, c])
            s = np.float32(0.0)
            for c in range(x.shape[1]):
                e = math.exp(x[r, c] - m)
                out[r, c] = e
                s += e
            inv = np.float32(1.0) / s
            for c in range(x.shape[1]):
                out[r, c] *= inv

    @jit
    def layer_norm(x, w, b, out):
        n = x.shape[1]
        for r in prange(x.shape[0]):
            s = np.float32(0.0)
            for c in range(n):
                s += x[r, c]
            mu = s / np.float32(n)
            q = np.float32(0.0)
            for c in range(n):
                d = x[r, c] - mu
                q += d * d
            inv = np.float32(1.0) / math.sqrt(q / np.float32(n) + np.float32(1e-5))
            for c in range(n):
                out[r, c] = (x[r, c] - mu) * inv * w[c] + b[c]

    @jit
    def gelu(x, out):
        f = x.reshape(-1)
        o = out.reshape(-1)
        for i in prange(f.size):
            v = f[i]
            inner = np.float32(0.7978845608028654) * (v + np.float32(0.044715) * v * v * v)
            # min: under fastmath (no infinities assumed) v / (1 + inf) would give NaN
            o[i] = v / (np.float32(1.0) + math.exp(min(np.float32(-2.0) * inner,
                                                       np.float32(80.0))))

    return {"softmax": softmax, "layer_norm": layer_norm, "gelu": gelu}
