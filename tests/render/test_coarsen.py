"""passes/coarsen.py: which kernels the PTX renderer gives several launch indices per thread.
An elementwise kernel over `range(n)` of an i32 `n` indexes with `i64(i)` of its i32 loop
variable, the launch index exactly; one whose i32 index it computes itself may wrap, and stays
at one index per thread. No GPU: tests/cuda/test_coarsen_cuda.py runs them."""
from __future__ import annotations

import re

import numpy as np
import pytest
import tack
from tack.compiler import specialize
from tack.ir.printer import kernel_str
from tack.passes.coarsen import coarsening, launch_locals
from tack.toolchain.nvptx import compile_ptx

from tests.kernels.coarsen import scale, scale_shape


@tack.kernel
def wrapped(y, x):
    for i in range(y.shape[0]):
        j = tack.i32(i)  # wraps past 2^31 - 1: not the launch index
        y[j] = 2.0 * x[j]


@tack.kernel
def shifted(y, x, n):
    for i in range(n):
        i = i + 1  # the loop variable reassigned: not the launch index
        y[i - 1] = 2.0 * x[i - 1]


def _kir(kernel, *args):
    return specialize(kernel, list(args), tack.device("cuda"))


def _arrays(dtype=tack.f32):
    return tack.zeros(8, dtype), tack.zeros(8, dtype)


@pytest.mark.parametrize("n", [8, np.int32(8), np.int16(8), np.uint8(8)])
def test_an_i32_range_widened_back_is_the_launch_index(n):
    kir = _kir(scale, *_arrays(), n)
    assert "y[i64(i:i32)]" in kernel_str(kir)  # the shape this test is about
    assert launch_locals(kir) == (set(), {"i"})
    assert coarsening(kir, ()) == 4


@pytest.mark.parametrize("dtype, k", [(tack.f32, 4), (tack.f64, 2), (tack.u8, 8), (tack.i16, 8)])
def test_the_factor_is_16_bytes_over_the_smallest_element(dtype, k):
    assert coarsening(_kir(scale, *_arrays(dtype), 8), ()) == k
    assert coarsening(_kir(scale_shape, *_arrays(dtype)), ()) == k


def test_an_i64_range_and_its_i64_index_still_coarsen():
    kir = _kir(scale_shape, *_arrays())
    assert launch_locals(kir) == ({"i"}, set())
    assert coarsening(kir, ()) == 4


def test_a_computed_i32_index_or_a_reassigned_loop_variable_does_not():
    assert coarsening(_kir(wrapped, *_arrays()), ()) == 1
    assert coarsening(_kir(shifted, *_arrays(), 8), ()) == 1


def test_the_i32_kernel_gets_16_byte_accesses():
    m = compile_ptx(_kir(scale, *_arrays(), 8))
    assert m.per_thread == 4
    assert re.search(r"ld\.global\.v4\.(b|f)32", m.ptx) and re.search(r"st\.global\.v4", m.ptx)
