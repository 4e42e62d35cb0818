"""The device an op test runs on is the engine of the case (tests/engines.py: `test_x[cpu]`,
`test_x[cuda]`): the CPU engine unless the test or its module names other engines with
`@pytest.mark.engines(..., reason="...")` (the simulator, whose workgroup paths the CPU never
takes; a GPU, skipped without one), the reason saying why those."""
import pytest

from tests import engines


def pytest_generate_tests(metafunc):
    found = engines.cases(metafunc, "device", __name__, default=("cpu",))
    if found is not None:
        metafunc.parametrize("device", found, indirect=True)


@pytest.fixture
def device(request):
    return engines.select(request.param, request)
