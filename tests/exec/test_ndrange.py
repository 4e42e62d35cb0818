"""The parallel loop over 2-D/3-D domains: `for i, j in tack.ndrange(a, b)`."""
import numpy as np
import pytest
import tack


@tack.kernel
def fill2(out):
    for i, j in tack.ndrange(out.shape[0], out.shape[1]):
        out[i, j] = i * 100 + j


@tack.kernel
def fill3(out, a, b):
    for i, j, k in tack.ndrange((1, a), (2, b), 3):
        out[i, j, k] = i * 100 + j * 10 + k


@tack.kernel
def stencil(u, out):
    for i, j in tack.ndrange((1, u.shape[0] - 1), (1, u.shape[1] - 1)):
        out[i, j] = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j]


@pytest.mark.parametrize("shape", [(1, 1), (4, 5), (7, 1025)])
def test_ndrange_2d(shape):
    o = tack.zeros(shape, tack.i32)
    fill2(o)
    i, j = np.indices(shape)
    np.testing.assert_array_equal(o.numpy(), i * 100 + j)


def test_ndrange_pairs_and_empty(engine):
    o = tack.zeros((4, 5, 3), tack.i32)
    fill3(o, 3, 5)
    want = np.zeros((4, 5, 3), np.int32)
    for i in range(1, 3):
        for j in range(2, 5):
            for k in range(3):
                want[i, j, k] = i * 100 + j * 10 + k
    np.testing.assert_array_equal(o.numpy(), want)
    fill3(o, -3, -4)  # negative extents clamp to zero: nothing runs
    np.testing.assert_array_equal(o.numpy(), want)


def test_ndrange_stencil_against_numpy(engine):
    h = np.random.default_rng(0).normal(size=(33, 65)).astype(np.float32)
    out = tack.zeros(h.shape)
    stencil(tack.array(h), out)
    ref = np.zeros_like(h, dtype=np.float64)
    g = h.astype(np.float64)
    ref[1:-1, 1:-1] = g[:-2, 1:-1] + g[2:, 1:-1] + g[1:-1, :-2] + g[1:-1, 2:] - 4 * g[1:-1, 1:-1]
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-5, atol=1e-5)


def test_ndrange_target_mismatch():
    @tack.kernel
    def bad(out):
        for i in tack.ndrange(2, 3):
            out[i] = 1.0

    with pytest.raises(tack.UnsupportedSyntaxError, match="ndrange"):
        bad(tack.zeros(6))
