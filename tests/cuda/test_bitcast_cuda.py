"""`tack.bitcast` on CUDA: tests/exec/test_bitcast.py re-run with the device fixture set to cuda
(the NVPTX renderer's `bitcast`: NaN payloads, signaling NaNs, signed zeros, subnormals and
infinities keep every bit through registers and global memory). Skips without a GPU."""
import pytest
import tack

from tests.exec.test_bitcast import *  # the same tests, on cuda

from . import gpu

pytestmark = gpu.MARKS


@pytest.fixture
def device():
    old = tack.devices._global["device"]
    dev = tack.set_default_device("cuda")
    yield dev
    tack.devices._global["device"] = old
