"""Elementwise kernels whose launch index the PTX renderer may spread over several per thread
(passes/coarsen.py): tests/render/test_coarsen.py checks the rule, tests/cuda/test_coarsen_cuda.py
runs them."""
from __future__ import annotations

import tack


@tack.kernel
def scale(y, x, n):
    for i in range(n):
        y[i] = 2.0 * x[i]


@tack.kernel
def scale_shape(y, x):
    for i in range(y.shape[0]):
        y[i] = 2.0 * x[i]
