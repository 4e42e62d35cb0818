"""The reductions and scans re-run on the simulator engine, a workgroup engine on the CPU
(docs/design/008-simulator.md): the GPU paths (eight loads in flight per lane, the one-group
final pass, shared-memory tile scans and the recursive scan of tile totals) checked in CI,
without a GPU. The tests are those of test_reductions and test_scans, with `device` set to sim."""
import numpy as np
import pytest
import tack
from tack import algorithms as A

from tests.algorithms.conftest import data
from tests.algorithms.test_reductions import *  # the same tests, on sim
from tests.algorithms.test_scans import *

del test_ten_million  # noqa: F821 - 10^7 elements take 15 s in the simulator; tests/cuda has it


@pytest.fixture
def device():
    old = tack.devices._global["device"]
    dev = tack.set_default_device("cpu", engine="sim")
    yield dev
    tack.devices._global["device"] = old


@pytest.mark.parametrize("n", [4096 * 257 + 3])
def test_scan_recursing_on_tile_totals(device, n):
    """More tile totals than a workgroup: they are scanned by the tile scan too."""
    k = (data(n, np.int32) % 1000).astype(np.int32)
    d = tack.zeros(n, tack.i32)
    assert A.inclusive_scan(tack.array(k), d, n) == int(k.sum(dtype=np.int32))
    np.testing.assert_array_equal(d.numpy(), np.cumsum(k, dtype=np.int32))
