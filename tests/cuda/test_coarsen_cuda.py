"""Coarsened elementwise kernels over an i32 `range(n)` (passes/coarsen.py): several launch
indices per thread on the GPU, every element right at sizes around the block's span."""
from __future__ import annotations

import numpy as np
import pytest
import tack
from tack.compiler import specialize

from tests.cuda import gpu
from tests.kernels.coarsen import scale

pytestmark = [*gpu.MARKS, pytest.mark.usefixtures("cuda_device")]


@pytest.mark.parametrize("n", [1, 3, 4, 5, 1023, 1024, 1025, 4 * 256 * 3 + 7, 1 << 20])
def test_an_i32_sized_elementwise_kernel_runs_four_indices_per_thread(n, cuda_device):
    x = np.arange(n + 5, dtype=np.float32)
    xa, ya = tack.array(x), tack.full(n + 5, -1.0, tack.f32)
    kir = specialize(scale, [ya, xa, n], cuda_device)
    assert cuda_device.engine.compile(kir).per_thread == 4
    scale(ya, xa, n)  # an i32 n
    want = np.where(np.arange(n + 5) < n, 2 * x, -1.0).astype(np.float32)
    np.testing.assert_array_equal(ya.numpy(), want)
