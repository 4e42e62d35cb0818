"""Harness tests: records go to a temporary folder, and the device is a parameter."""
import importlib.util

import pytest
import tack
from tack.devices import default_device
from tack.testing.harness import tiers, timing

# Every device the harness is checked on in CI. The GPU simulator joins with one more name here.
DEVICES = ["cpu", "sim"]  # the harness on every engine CI has
if importlib.util.find_spec("cuda") and importlib.util.find_spec("cuda.bindings"):
    DEVICES.append("cuda")  # with cuda-bindings installed (the H200 run), on the GPU too


@pytest.fixture(autouse=True)
def _runs_dir(tmp_path, monkeypatch):
    """Records written by a test land in its own folder, never in ~/.tack/runs."""
    monkeypatch.setenv("TACK_RUNS_DIR", str(tmp_path / "runs"))


@pytest.fixture(params=DEVICES, scope="module")
def device(request):
    """Run the tests with this device as Tack's default, then put the previous one back."""
    before = default_device()  # module-scoped: the root conftest restores per test only
    dev = tack.set_default_device(request.param)
    yield dev
    tack.set_default_device(before)


@pytest.fixture
def quick_timing(monkeypatch):
    """Timing that takes milliseconds: short blocks, canonical shapes of 2^10..2^12 elements.
    What the phase does is under test here, not the machine's speed."""
    monkeypatch.setattr(timing, "PLAN", timing.Plan(warmup=1, blocks=4, min_block_s=0.001))
    monkeypatch.setattr(tiers, "CANONICAL_LOG2", (10, 11, 12))
