"""The Julia extra kernels (tests/julia/extra_kernels.py) on the native CPU engine too, so that a
wrong reference there cannot hide behind the Julia tier (one did: `pow(-inf, 0.5)`). The
workgroup cases need the Julia engine (the native CPU engine has no workgroups)."""
import pytest
import tack

from tests.julia.extra_kernels import EXTRA_CASES
from tests.kernels.corpus import assert_matches, run_case

NATIVE = [c for c in EXTRA_CASES if "workgroups" not in c.tags]


@pytest.fixture
def cpu():
    tack.set_default_device("cpu")
    yield


@pytest.mark.parametrize("case,n", [(c, n) for c in NATIVE for n in c.sizes],
                         ids=[f"{c.name}-{n}" for c in NATIVE for n in c.sizes])
def test_extra_case_on_native_cpu(cpu, case, n):
    actual, expected = run_case(case, n)
    assert_matches(case, actual, expected)
