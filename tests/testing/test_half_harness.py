"""`tack.testing.test` on half-precision kernels: inputs drawn in float16/bfloat16, the float64
reference on their exact values, and the float16/bfloat16 rows of the tolerance table."""
import ml_dtypes
import numpy as np
import pytest
import tack
import tack.testing
from tack.testing.harness import inputs
from tack.testing.harness.tolerances import tolerance

from . import planted


def run(subject, ref=planted.add_ref, sig="(n),(n)->(n)", **kw):
    kw.setdefault("baseline", False)
    kw.setdefault("records_dir", False)
    return tack.testing.test(subject, reference=ref, signature=sig, **kw)


def test_first_documented_example_runs_in_half(device):
    # docs/testing.md's first example: the planted block size fails float16 at 1025 first
    rec = run(planted.add_first_1024, dtypes=["float16", "float32"])
    assert not rec.passed and rec.shapes_total == 30 and rec.shapes_failed == 10
    assert rec.minimal_case.label == "1025-contiguous-float16"
    assert {f.dtype for f in rec.failures} == {"float16", "float32"}


def test_half_kernels_pass_with_their_rows():
    rec = run(planted.add, dtypes=("float16", "bfloat16", "float32"))
    assert rec.passed and rec.shapes_total == 45
    assert rec.tolerances == {"float16": [1e-2, 1e-2], "bfloat16": [1e-2, 1e-2],
                              "float32": [1e-3, 1e-3]}


def test_half_kernel_error_beyond_the_row_fails():
    # rounding the sum to 4 significant bits: an error a half-precision tolerance must catch
    @tack.kernel
    def coarse_add(x, y, out):
        for i in range(x.shape[0]):
            out[i] = tack.f32(tack.i32((x[i] + y[i]) * 8.0)) / 8.0

    rec = run(coarse_add, dtypes=("bfloat16",), shape="7-contiguous")
    assert not rec.passed and rec.failures[0].error is None  # a mismatch, not an exception
    assert "elements differ" in rec.failures[0].message


def test_tolerance_rows():
    assert tolerance("bfloat16") == (1e-2, 1e-2)
    assert tolerance(ml_dtypes.bfloat16, "reduction") == (2e-2, 2e-2)
    assert tolerance("float16", "transcendental") == (2e-2, 2e-2)
    assert tolerance("tfloat32") == (1e-3, 1e-3)


@pytest.mark.parametrize("name", ["float16", "bfloat16"])
def test_inputs_are_drawn_in_the_dtype(name):
    sig = tack.testing.harness.gufunc.parse("(n)->(n)")
    case = tack.testing.harness.tiers.cases(sig, "fast")[0]
    (x,) = inputs.make(sig, case, np.dtype(ml_dtypes.bfloat16 if name == "bfloat16" else name),
                       0)
    assert x.dtype.name == name
    assert np.isfinite(x.astype(np.float64)).all() and np.abs(x.astype(np.float64)).max() < 1e4
