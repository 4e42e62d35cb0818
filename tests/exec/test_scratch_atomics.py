"""Scratch arrays, atomics and the CPU's rejection of workgroup primitives (docs/language.md,
"Workgroup contract" and "Atomics")."""
import numpy as np
import pytest
import tack

from tests.kernels.corpus import block_reduce, histogram, row_energy


@tack.kernel
def generic_process(data, out):
    for i in range(data.shape[0]):
        buf = tack.local_array_like(data, 8)
        buf[0] = data[i]
        out[i] = buf[0]


@tack.kernel
def compact(values, out, count, n):
    for i in range(n):
        if values[i] > 0.0:
            slot = tack.atomic_add(count, 0, 1)
            out[slot] = values[i]


@tack.kernel
def extremes(x, lo, hi):
    for i in range(x.shape[0]):
        tack.atomic_min(lo, 0, x[i])
        tack.atomic_max(hi, (0, 1), x[i])


@pytest.fixture(params=[1, 2], autouse=True)
def cpu(request):
    tack.set_default_device("cpu", num_threads=request.param)


@pytest.mark.parametrize("width", [4, 7])
def test_row_energy_widths(width):
    # Small integers make every f32 sum exact, so the result equals NumPy's bit for bit.
    h = np.random.default_rng(width).integers(-20, 20, size=(9, width)).astype(np.float32)
    out = tack.zeros(9)
    row_energy(tack.array(h), out)
    np.testing.assert_array_equal(out.numpy(), (h + h * h).sum(axis=1))
    assert f"scratch: f32[{2 * width}]" in tack.inspect(row_energy, tack.array(h), out, mode="ir")


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_local_array_like_inherits_dtype(dtype):
    h = np.arange(11).astype(dtype)
    out = tack.zeros(11, dtype)
    generic_process(tack.array(h), out)
    np.testing.assert_array_equal(out.numpy(), h)
    ir = tack.inspect(generic_process, tack.array(h), out, mode="ir")
    assert f"local buf: {np.dtype(dtype).name.replace('float', 'f').replace('int', 'i')}[8]" in ir


def test_histogram_counts_every_sample():
    h = np.random.default_rng(1).uniform(0, 1, 100_003).astype(np.float32)
    bins = tack.zeros(10, tack.i32)
    histogram(tack.array(h), bins, len(h))
    ref = np.bincount((h * np.float32(10)).astype(np.int32), minlength=10)
    np.testing.assert_array_equal(bins.numpy(), ref)


def test_compact_claims_unique_slots():
    vals = np.random.default_rng(2).normal(size=1025).astype(np.float32)
    out, count = tack.zeros(1025), tack.zeros(1, tack.i32)
    compact(tack.array(vals), out, count, len(vals))
    n = int(count.numpy()[0])
    assert n == int((vals > 0).sum())
    np.testing.assert_array_equal(np.sort(out.numpy()[:n]), np.sort(vals[vals > 0]))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.uint32, np.int8])
def test_atomic_min_max(dtype):
    rng = np.random.default_rng(3)
    h = (rng.normal(size=4099) * 50).astype(dtype)
    lo = tack.array(np.array([h[0]], dtype))
    hi = tack.array(np.full((1, 2), h[0], dtype))
    extremes(tack.array(h), lo, hi)
    assert lo.numpy()[0] == h.min() and hi.numpy()[0, 1] == h.max()


def test_workgroup_primitives_rejected_on_cpu():
    data, sums = tack.zeros(256), tack.zeros(1)
    with pytest.raises(RuntimeError, match="Kernel 'block_reduce' failed on CPUBackend: CPU "
                                           "backend does not support workgroup execution required"
                                           " by barrier, shared, thread_id") as ei:
        block_reduce(data, sums, 256)
    assert "local_array" in str(ei.value)
    with pytest.raises(NotImplementedError, match="workgroup"):
        tack.inspect(block_reduce, data, sums, 256, mode="ir")
    assert sums.numpy()[0] == 0


def test_runtime_sized_local_array_rejected():
    @tack.kernel
    def bad(x, n):
        for i in range(x.shape[0]):
            buf = tack.local_array(tack.f32, n)
            buf[0] = 1.0
            x[i] = buf[0]

    with pytest.raises(TypeError, match="not a compile-time constant"):
        bad(tack.zeros(3), 4)


def test_device_only_functions_from_python():
    with pytest.raises(RuntimeError, match=r"shared\(\) can only be used inside a @tack.kernel"):
        tack.shared(tack.f32, 4)
    with pytest.raises(RuntimeError, match="atomic_add"):
        tack.atomic_add(None, 0, 1)
