import pytest
from tack.runtime.cpu.engine import CPUEngine


@pytest.fixture(scope="module", params=[1, 2], ids=["serial", "threads2"])
def engine(request):
    """The CPU engine on the calling thread alone, and with a pool of two workers."""
    return CPUEngine(num_threads=request.param)
