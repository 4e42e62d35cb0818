"""Tier 3 on the GPU: the whole shared corpus on the CUDA engine against the references, at the
corpus sizes and at sizes around the 256-thread block."""
import numpy as np
import pytest

from tests.cuda import gpu
from tests.kernels.corpus import CASES, WORKGROUP_CASES, run_case

pytestmark = [*gpu.MARKS, pytest.mark.usefixtures("cuda_device")]
AWKWARD = (255, 256, 257, 65537)
ELEMENTWISE = {"transform", "saxpy", "int_divmod", "float_divmod", "wrap_u8", "chained_select",
               "math_builtins", "bit_ops", "casts_and_pow", "stepped_launch", "collatz_steps"}


def _params():
    for c in CASES + WORKGROUP_CASES:
        sizes = c.sizes + (AWKWARD if c.name in ELEMENTWISE else ())
        for n in sizes:
            yield pytest.param(c, n, id=f"{c.name}-{n}")


@pytest.mark.parametrize("case,n", list(_params()))
def test_case(case, n):
    actual, expected = run_case(case, n, seed=n)
    for k, exp in expected.items():
        got = actual[k]
        if got.dtype.kind in "iu" and case.rtol == 0 and case.atol == 0:
            np.testing.assert_array_equal(got, exp)
        else:
            np.testing.assert_allclose(got, exp, rtol=case.rtol, atol=case.atol, equal_nan=True)
