"""Harness tests: records go to a temporary folder, and the device is a parameter."""
import pytest
import tack
from tack.devices import default_device
from tack.testing.harness import tiers, timing

from tests import engines


def pytest_generate_tests(metafunc):
    """A test taking `device` runs on every engine of tests/engines.py (`--engines`, the
    `engines` marker), once per module and engine: the harness's records are shared by a
    module's tests."""
    found = engines.cases(metafunc, "device", __name__)
    if found is not None:
        metafunc.parametrize("device", found, indirect=True, scope="module")


@pytest.fixture(autouse=True)
def _runs_dir(tmp_path, monkeypatch):
    """Records written by a test land in its own folder, never in ~/.tack/runs."""
    monkeypatch.setenv("TACK_RUNS_DIR", str(tmp_path / "runs"))


@pytest.fixture(scope="module")
def device(request):
    """Run the tests with this engine as Tack's default, then put the previous one back."""
    before = default_device()  # module-scoped: the root conftest restores per test only
    yield engines.select(request.param, request)
    tack.set_default_device(before)


@pytest.fixture
def quick_timing(monkeypatch):
    """Timing that takes milliseconds: short blocks, canonical shapes of 2^10..2^12 elements.
    What the phase does is under test here, not the machine's speed."""
    monkeypatch.setattr(timing, "PLAN", timing.Plan(warmup=1, blocks=4, min_block_s=0.001))
    monkeypatch.setattr(tiers, "CANONICAL_LOG2", (10, 11, 12))
