"""The shared corpus on the simulator: against the corpus references, and bit for bit against
the CPU engine on every integer output (floats: within the case's documented tolerance)."""
import numpy as np
import pytest
import tack

from tests.kernels.corpus import CASES, WORKGROUP_CASES, run_case


@pytest.fixture
def sim():
    tack.set_default_device("sim")


def _ids(cases):
    return [f"{c.name}-{n}" for c in cases for n in c.sizes]


def _compare(case, actual, expected):
    for k, exp in expected.items():
        got = actual[k]
        if got.dtype.kind in "iu" and case.rtol == 0 and case.atol == 0:
            np.testing.assert_array_equal(got, exp)
        else:
            np.testing.assert_allclose(got, exp, rtol=case.rtol, atol=case.atol, equal_nan=True)


@pytest.mark.parametrize("case,n", [(c, n) for c in CASES for n in c.sizes], ids=_ids(CASES))
def test_case(sim, case, n):
    actual, expected = run_case(case, n)
    _compare(case, actual, expected)


@pytest.mark.parametrize("case,n", [(c, n) for c in CASES for n in c.sizes], ids=_ids(CASES))
def test_integer_outputs_equal_the_cpu_engine(case, n):
    tack.set_default_device("cpu", num_threads=1)
    cpu, _ = run_case(case, n)
    tack.set_default_device("sim")
    sim, _ = run_case(case, n)
    for k, got in sim.items():
        if got.dtype.kind in "iub":
            np.testing.assert_array_equal(got, cpu[k])
        else:
            np.testing.assert_allclose(got, cpu[k], rtol=max(case.rtol, 1e-5),
                                       atol=max(case.atol, 1e-6), equal_nan=True)


@pytest.mark.parametrize("case,n", [(c, n) for c in WORKGROUP_CASES for n in c.sizes],
                         ids=_ids(WORKGROUP_CASES))
def test_workgroup_case(sim, case, n):
    actual, expected = run_case(case, n)
    _compare(case, actual, expected)
