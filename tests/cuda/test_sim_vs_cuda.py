"""The simulator against the CUDA engine on the workgroup kernels: the same inputs on `sim` and
on the GPU give the same outputs (integers and deterministic float trees bit for bit; float
sums whose order depends on atomics, or where the GPU contracts a*b+c differently, within
rounding)."""
import numpy as np
import pytest
import tack

from tests.cuda import gpu
from tests.kernels import workgroups as wg

pytestmark = gpu.MARKS


def both(kernel, make, n):
    """Run `kernel(*make())` on cuda and on sim; the written arrays of each, as NumPy."""
    out = {}
    for dev in ("cuda", "sim"):
        tack.set_default_device(dev)
        args = [tack.array(a) if isinstance(a, np.ndarray) else a for a in make()]
        kernel(*args)
        tack.sync()
        out[dev] = [a.numpy() for a in args if isinstance(a, tack.Array)]
    tack.set_default_device("cpu")
    return out["cuda"], out["sim"]


def _f32(n, seed=0):
    return np.random.default_rng(seed).normal(size=n).astype(np.float32)


EXACT = [
    ("block_reduce", wg.block_reduce, lambda: [_f32(256 * 37), np.zeros(37, np.float32),
                                               256 * 37]),
    ("lanes", wg.lanes, lambda: [np.full(1010, -1, np.int32), 1000]),
    ("reverse_in_block", wg.reverse_in_block, lambda: [_f32(256 * 5), np.zeros(1280, np.float32),
                                                       1280]),
    ("histogram", wg.histogram, lambda: [np.random.default_rng(2).uniform(0, 1, 100_003)
                                         .astype(np.float32), np.zeros(10, np.int32), 100_003]),
    ("shared_histogram", wg.shared_histogram,
     lambda: [np.random.default_rng(6).integers(0, 1000, 256 * 9).astype(np.int32),
              np.zeros(16, np.int32), 256 * 9]),
    ("scan_in_block", wg.scan_in_block,
     lambda: [np.random.default_rng(7).integers(-1000, 1000, 1024).astype(np.int64),
              np.zeros(1024, np.int64), 1024]),
]


@pytest.mark.parametrize("name,kernel,make", EXACT, ids=[c[0] for c in EXACT])
def test_bit_equal(name, kernel, make):
    cuda, sim = both(kernel, make, None)
    for c, s in zip(cuda, sim):
        np.testing.assert_array_equal(s, c)


def test_tiled_nbody_within_rounding():
    n = 1024
    rng = np.random.default_rng(1)
    pos = np.c_[rng.normal(size=(n, 3)), rng.uniform(0.5, 1, n)].astype(np.float32)
    cuda, sim = both(wg.nbody_tiled, lambda: [pos, np.zeros((n, 3), np.float32), n,
                                              np.float32(0.01)], n)
    np.testing.assert_allclose(sim[1], cuda[1], rtol=1e-5, atol=1e-5)


def test_atomic_compaction_same_set():
    vals = _f32(100_001, 3)
    cuda, sim = both(wg.compact, lambda: [vals, np.zeros(len(vals), np.float32),
                                          np.zeros(1, np.int32), len(vals)], None)
    k = int(cuda[2][0])
    assert k == int(sim[2][0])
    np.testing.assert_array_equal(np.sort(sim[1][:k]), np.sort(cuda[1][:k]))
