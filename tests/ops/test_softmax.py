"""softmax and log_softmax over every axis, rows short and long (the one-read and the online
workgroup paths on engines with workgroups), against the definition."""
import numpy as np
import pytest
from tack import ops

from tests.ops import refs

CASES = [((1,), -1), ((1, 1), 0), ((7, 13), -1), ((7, 13), 0), ((3, 1025), -1),
         ((2, 257), 1), ((4, 5, 6), 1), ((4, 5, 6), 0), ((2, 9000), -1), ((3, 8192), -1),
         ((2, 3, 31), -1)]
DTYPES = [np.float32, np.float64]


@pytest.mark.parametrize("shape,axis", CASES, ids=str)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.__name__)
@pytest.mark.engines("cpu", "sim", "cuda",
                     reason="the CPU's kernels and the workgroup ones (simulator, GPU); not julia:"
                            " about 10 s of Julia 1.5.3 compiles there")
def test_softmax(device, shape, axis, dtype):
    x = refs.rand(shape, dtype, scale=4.0)
    refs.close(ops.softmax(x, axis=axis), refs.softmax(x, axis), dtype)
    refs.close(ops.log_softmax(x, axis=axis), refs.log_softmax(x, axis), dtype, scale=4)


@pytest.mark.engines("cpu", "sim", "cuda", "julia",
                     reason="every engine: the CPU's kernels, the workgroup ones (simulator, GPU) "
                            "and Julia's")
def test_large_logits_do_not_overflow(device):
    x = np.array([[1000.0, 1001.0, 999.0], [-1e4, -1e4, -1e4]], np.float32)
    refs.close(ops.softmax(x), refs.softmax(x, -1), np.float32)
    refs.close(ops.log_softmax(x), refs.log_softmax(x, -1), np.float32, scale=100)


@pytest.mark.parametrize("shape,axis", CASES, ids=str)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.__name__)
def test_plus_inf_rows_as_nnlib(device, shape, axis, dtype):
    """A row holding +inf gives NNlib's result (1/k at its k +inf elements, 0 elsewhere; log:
    -log k and -inf), not inf - inf = NaN; the other rows stay finite. One +inf in the first
    row, three in the last (first, middle and last element, where there are that many)."""
    x = refs.rand(shape, dtype, scale=4.0)
    rows = np.moveaxis(x, axis, -1)  # a view: rows[..., j] is each row's element j
    n, first, last = rows.shape[-1], (0,) * (x.ndim - 1), tuple(d - 1 for d in rows.shape[:-1])
    rows[first + (n // 2,)] = np.inf
    if x.size // n > 2:
        for j in (0, n // 2, n - 1):
            rows[last + (j,)] = np.inf
    assert np.isinf(x).any()
    got, got_log = ops.softmax(x, axis=axis), ops.log_softmax(x, axis=axis)
    refs.close(got, refs.softmax_with_inf(x, axis), dtype)
    refs.close(got_log, refs.softmax_with_inf(x, axis, log=True), dtype, scale=4)
    assert not np.isnan(got.numpy()).any() and not np.isnan(got_log.numpy()).any()


def masked(n: int, dtype) -> np.ndarray:
    """Rows of n with -inf where a mask would put it: the first 300 elements of row 0 (whole
    steps of every lane that sees them, and the first element each lane sees), a stretch in
    the middle of row 1, and every other element of row 2."""
    x = refs.rand((3, n), dtype, scale=4.0)
    x[0, :300] = -np.inf
    x[1, n // 3:n // 2] = -np.inf
    x[2, ::2] = -np.inf
    return x


@pytest.mark.parametrize("n", [300 + 7, 9001], ids=["one read", "online"])
@pytest.mark.parametrize("deterministic", [False, True], ids=["default", "deterministic"])
@pytest.mark.engines("cpu", "sim", "cuda",
                     reason="the CPU's kernels and the workgroup ones (simulator, GPU); not julia:"
                            " about 4 s of Julia 1.5.3 compiles there")
def test_masked_rows_as_numpy(device, n, deterministic):
    """-inf elements (masked logits) weigh 0 and leave the rest of the row its softmax, on the
    one-read and the online kernels: the online kernel once made such rows NaN (a lane whose
    running maximum was still -inf took exp(-inf - -inf))."""
    x = masked(n, np.float32)
    got = ops.softmax(x, deterministic=deterministic)
    got_log = ops.log_softmax(x, deterministic=deterministic)
    assert not np.isnan(got.numpy()).any()
    refs.close(got, refs.softmax(x, -1), np.float32)
    refs.close(got_log, refs.log_softmax(x, -1), np.float32, scale=4)


@pytest.mark.engines("cpu", "sim", "cuda", "julia",
                     reason="every engine: the CPU's kernels, the workgroup ones (simulator, GPU) "
                            "and Julia's")
def test_increasing_rows_rescale_the_online_sum(device):
    """Each element a new maximum: the running sum is rescaled at every step."""
    x = np.tile(np.linspace(-50, 50, 9001), (2, 1))
    refs.close(ops.softmax(x), refs.softmax(x, -1), np.float64)


@pytest.mark.engines("cpu", "sim", "cuda", "julia",
                     reason="every engine: the CPU's kernels, the workgroup ones (simulator, GPU) "
                            "and Julia's")
def test_empty(device):
    assert ops.softmax(np.zeros((0, 4), np.float32)).shape == (0, 4)
