"""`tack.check` and a TACK_CHECK session with arrays on the CUDA device: the check runs on host
copies; a session writes the simulator's results back to the device arrays."""
import numpy as np
import pytest
import tack
from tack.check import session as S

from tests.check.planted import CASES
from tests.cuda import gpu

pytestmark = [*gpu.MARKS, pytest.mark.usefixtures("cuda_device")]


def test_check_takes_device_arrays():
    case = next(c for c in CASES if c.name == "missing_barrier")
    x, out, n = case.args()
    r = tack.check(case.bug, x, out, n)
    assert [f.kind for f in r.findings] == ["race"]
    np.testing.assert_array_equal(out.numpy(), 0)  # the device array is untouched


def test_a_session_writes_results_back_to_the_device():
    case = next(c for c in CASES if c.name == "write_after_read")
    session = S.install(S.Session())
    try:
        x, out, n = case.args()
        case.fixed(x, out, n)
        case.bug(x, tack.zeros(n), n)
    finally:
        S.uninstall()
    h = x.numpy().reshape(2, 256)
    np.testing.assert_array_equal(out.numpy(), (np.roll(h, -1, axis=1) * 2).reshape(-1))
    verdicts = {r.kernel: r.verdict for r in session.reports()}
    assert verdicts == {"write_after_read_fixed": "clean", "write_after_read": "error"}
