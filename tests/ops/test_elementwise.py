"""add, relu, gelu (tanh and erf), silu against their definitions, over awkward sizes."""
import numpy as np
import pytest
from tack import ops

from tests.ops import refs

SHAPES = [(1,), (7,), (1025,), (3, 17), (2, 3, 5)]
DTYPES = [np.float32, np.float64]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.__name__)
@pytest.mark.engines("cpu", "sim", "cuda", "julia",
                     reason="every engine: the CPU's kernels, the workgroup ones (simulator, GPU) "
                            "and Julia's")
def test_unary(device, shape, dtype):
    x = refs.rand(shape, dtype)
    refs.close(ops.relu(x), refs.relu(x), dtype)
    refs.close(ops.gelu(x), refs.gelu_tanh(x), dtype)
    refs.close(ops.gelu(x, approximate="none"), refs.gelu_erf(x), dtype)
    refs.close(ops.silu(x), refs.silu(x), dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.__name__)
@pytest.mark.engines("cpu", "sim", "cuda", "julia",
                     reason="every engine: the CPU's kernels, the workgroup ones (simulator, GPU) "
                            "and Julia's")
def test_add(device, dtype):
    x, y = refs.rand((5, 131), dtype, 1), refs.rand((5, 131), dtype, 2)
    refs.close(ops.add(x, y), refs.add(x, y, 1.0), dtype)
    refs.close(ops.add(x, y, alpha=-0.5), refs.add(x, y, -0.5), dtype)


@pytest.mark.engines("cpu", "sim", "cuda", "julia",
                     reason="every engine: the CPU's kernels, the workgroup ones (simulator, GPU) "
                            "and Julia's")
def test_gelu_erf_across_its_ranges(device):
    """The erf in Tack's library language over each of its approximation intervals and past 6
    (float64: fdlibm's accuracy less the unsplit tail)."""
    x = np.concatenate([np.linspace(-9, 9, 20001), [0.0, -0.0, 0.84375, 1.25, 2.857142857]])
    refs.close(ops.gelu(x, approximate="none"), refs.gelu_erf(x), np.float64, scale=4)


@pytest.mark.engines("cpu", "sim", "cuda", "julia",
                     reason="every engine: the CPU's kernels, the workgroup ones (simulator, GPU) "
                            "and Julia's")
def test_specials(device):
    x = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, -100.0, 100.0], np.float32)
    r = ops.relu(x).numpy()
    assert np.isnan(r[0]) and r[1] == np.inf and r[2] == 0 and np.all(r[3:6] == 0)
    # NNlib's relu is ifelse(x < 0, 0, x): -0.0 stays -0.0, +0.0 stays +0.0
    assert list(np.signbit(r[3:6])) == [True, False, False]
    s = ops.silu(x).numpy()
    assert s[1] == np.inf and s[5] == 0 and s[6] == 100  # silu(-inf) is -inf * 0: NaN


@pytest.mark.engines("cpu", "sim", "cuda", "julia",
                     reason="every engine: the CPU's kernels, the workgroup ones (simulator, GPU) "
                            "and Julia's")
def test_tack_arrays_in_and_out(device):
    import tack
    x = tack.array(refs.rand((9,), np.float32))
    y = ops.relu(ops.add(x, x))
    assert isinstance(y, tack.Array) and y.device is device
    refs.close(y, refs.relu(2 * x.numpy().astype(np.float64)), np.float32)
