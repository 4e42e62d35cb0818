"""What only a GPU device shows: its capabilities, that selecting it starts its engine, and that
host data given to `tack.array` lives on it. The language and API tests of tests/exec
(evaluation order, weak floats, launch bounds, host arrays, debug mode in device functions, ...)
run on the GPU through their `engine` fixture."""
import numpy as np
import pytest
import tack

from tests.cuda import gpu

pytestmark = [*gpu.MARKS, pytest.mark.usefixtures("cuda_device")]


def test_host_array_lives_on_the_gpu():
    a = tack.array(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert a.device.arch == "cuda" and a[1, 2] == 5.0


def test_cuda_capabilities_and_selection():
    dev = tack.default_device()
    assert dev.name == "cuda" and dev.supports_workgroups and dev.supports_f64
    assert tack.f64 in dev.supported_atomic_dtypes
    assert dev in tack.devices.started()  # selection started the engine
