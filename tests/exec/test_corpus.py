"""Tier 3: the shared corpus executed on the native CPU engine against independent references."""
import numpy as np
import pytest
import tack

from tests.kernels.corpus import CASES, assert_matches, run_case


@pytest.fixture(params=[1, 2], ids=["threads1", "threads2"])
def cpu(request):
    tack.set_default_device("cpu", num_threads=request.param)


def _ids():
    return [f"{c.name}-{n}" for c in CASES for n in c.sizes]


@pytest.mark.parametrize("case,n", [(c, n) for c in CASES for n in c.sizes], ids=_ids())
def test_case(cpu, case, n):
    actual, expected = run_case(case, n)
    assert_matches(case, actual, expected)


def test_seed_transform_as_written():
    # The user's-guide example "Compare a complete calculation", verbatim (it was the first
    # example of docs/examples/validate.py before the tutorials replaced them).
    tack.set_default_device("cpu")
    rng = np.random.default_rng(42)
    host_x = rng.normal(size=32).astype(np.float32)
    x = tack.array(host_x)
    out = tack.empty(host_x.shape)

    @tack.kernel
    def transform(x, out):
        for i in range(x.shape[0]):
            out[i] = sqrt(abs(x[i]))  # noqa: F821 - a kernel builtin

    transform(x, out)
    actual = out.numpy()
    expected = np.sqrt(np.abs(host_x))
    assert np.isfinite(actual).all()
    np.testing.assert_allclose(actual, expected, rtol=2e-6, atol=1e-7)


def test_empty_launch_runs_nothing():
    tack.set_default_device("cpu")
    out = tack.array(np.full(4, 7, np.int32))
    from tests.kernels.corpus import stepped_launch

    stepped_launch(out, 3, 3)
    stepped_launch(out, 5, 1)
    np.testing.assert_array_equal(out.numpy(), np.full(4, 7))
