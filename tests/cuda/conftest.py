"""The GPU tests' device: `cuda_device` makes CUDA device 0 the default device for one test (a
module takes it for all of its tests with `pytest.mark.usefixtures("cuda_device")` in its
`pytestmark`); the root conftest's `_restore_defaults` puts the previous device back. The test
skips without a GPU or cuda-bindings."""
import pytest

from tests import engines


@pytest.fixture
def cuda_device(request):
    return engines.select("cuda", request)
