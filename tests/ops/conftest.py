"""The device every op test runs on is a parameter: adding an engine is one entry in DEVICES
(the simulator: ("cpu", "sim"))."""
import pytest
import tack

DEVICES = [("cpu", None)]


@pytest.fixture(params=DEVICES, ids=lambda d: d[1] or d[0])
def device(request):
    name, engine = request.param
    dev = tack.set_default_device(name, engine=engine)
    yield dev
    tack.set_default_device("cpu")
