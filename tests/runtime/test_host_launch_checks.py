"""The engines that launch on NumPy arrays directly — the simulator and the Julia engine's host
arrays — check a launch's values with one function (runtime/host.py), so a caller that talks to
the engine gets the same error from both, before anything runs: a wrong count, a value that is
not an array, another dtype, a non-contiguous view, a read-only array the kernel may write,
a scalar that is not a number."""
import numpy as np
import pytest
import tack
from tack.compiler import specialize
from tack.runtime.julia.engine import JuliaKernel
from tack.runtime.sim.engine import SimEngine


@tack.kernel
def scale(x, out, a):
    for i in range(out.shape[0]):
        out[i] = a * x[i]


def _kir():
    return specialize(scale, [tack.zeros(4), tack.zeros(4), 2.0], tack.device("cpu"))


def _sim(values):
    SimEngine().compile(_kir()).launch(values, 4)


def _julia(values):
    JuliaKernel(None, _kir(), None, "").launch(values, 0)  # checked before Julia is needed


def _f32(n=4):
    return np.arange(n, dtype=np.float32)


def _read_only():
    a = _f32()
    a.flags.writeable = False
    return a


BAD = [
    ("count", lambda: [_f32(), _f32()], TypeError, "Kernel 'scale' expects 3 arguments, got 2"),
    ("not an array", lambda: [[0.0] * 4, _f32(), 2.0], TypeError,
     "Kernel 'scale': parameter 'x' expects an array, got list"),
    ("dtype", lambda: [np.zeros(4), _f32(), 2.0], TypeError,
     "Kernel 'scale': parameter 'x' has dtype float64, but this specialization takes float32"),
    ("strided", lambda: [_f32(8)[::2], _f32(), 2.0], ValueError,
     r"Kernel 'scale': parameter 'x' must be C-contiguous \(use numpy.ascontiguousarray\)"),
    ("read-only out", lambda: [_f32(), _read_only(), 2.0], ValueError,
     "Kernel 'scale': parameter 'out' may be written, but its array is read-only"),
    ("string scalar", lambda: [_f32(), _f32(), "2"], TypeError,
     "Kernel 'scale': parameter 'a' expects a scalar, got str"),
    ("None scalar", lambda: [_f32(), _f32(), None], TypeError,
     "Kernel 'scale': parameter 'a' expects a scalar, got NoneType"),
    ("array scalar", lambda: [_f32(), _f32(), _f32()], TypeError,
     "Kernel 'scale': parameter 'a' expects a scalar, got ndarray"),
]


@pytest.mark.parametrize("launch", [_sim, _julia], ids=["sim", "julia"])
@pytest.mark.parametrize("what,values,exc,msg", BAD, ids=[b[0] for b in BAD])
def test_the_same_error_before_anything_runs(launch, what, values, exc, msg):
    vals = values()
    before = [v.copy() if isinstance(v, np.ndarray) else v for v in vals]
    with pytest.raises(exc, match=f"^{msg}$"):
        launch(vals)
    for v, b in zip(vals, before):
        if isinstance(v, np.ndarray):
            np.testing.assert_array_equal(v, b)


def test_a_read_only_input_is_taken():
    x, out = _read_only(), np.zeros(4, np.float32)
    SimEngine().compile(_kir()).launch([x, out, 2.0], 4)
    np.testing.assert_array_equal(out, 2 * x)
