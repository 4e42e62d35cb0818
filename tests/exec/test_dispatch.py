"""The prebuilt call path (tack.call.fast): warm calls skip the general path, and any argument
that differs from the variant's takes the general path, with its results and errors."""
import numpy as np
import pytest
import tack
from tack.kernel import Kernel


@pytest.fixture
def general(monkeypatch):
    """Counts calls that took the general path."""
    calls = []
    orig = Kernel._call_checked  # the general path, under its error-trimming entry points

    def counted(self, args, kwargs):
        calls.append(self.name)
        return orig(self, args, kwargs)

    monkeypatch.setattr(Kernel, "_call_checked", counted)
    return calls


@tack.kernel
def axpy(y, a, x, n):
    for i in range(n):
        y[i] = a * x[i] + y[i]


@tack.kernel
def stepped(out, start, step):
    for i in range(start, out.shape[0], step):
        out[i] = i * 2 + 1


@tack.kernel
def rows(out):
    for i in range(out.shape[0]):
        for j in range(4):
            out[i, j] = i * 10 + j


def test_warm_calls_take_the_prebuilt_path(general):
    x = tack.array(np.arange(7, dtype=np.float32))
    y = tack.zeros(7)
    for k in range(5):
        axpy(y, 2.0, x, 7)
    assert general == ["axpy", "axpy"]  # the first two calls only: the second builds the path
    np.testing.assert_allclose(y.numpy(), 10 * np.arange(7))


def test_alternating_signatures_agree_with_numpy(general):
    x32 = tack.array(np.arange(5, dtype=np.float32))
    x64 = tack.array(np.arange(5, dtype=np.float64))
    y32, y64 = tack.zeros(5), tack.zeros(5, tack.f64)
    for _ in range(3):
        axpy(y32, 0.5, x32, 5)
        axpy(y64, 0.5, x64, 5)
        axpy(y64, np.float64(0.25), x64, 5)  # a NumPy scalar is its own kind of argument
    np.testing.assert_allclose(y32.numpy(), 1.5 * np.arange(5))
    np.testing.assert_allclose(y64.numpy(), 2.25 * np.arange(5))
    assert len(general) >= 3


def test_int_outside_i32_and_bool_take_their_own_specialization():
    x, y = tack.array(np.ones(3, np.float32)), tack.zeros(3)
    axpy(y, 1.0, x, 3)
    axpy(y, 1.0, x, 3)
    axpy(y, True, x, 3)  # a bool counts as an int: 1
    axpy(y, 2 ** 40, x, 0)  # an i64 argument: a new specialization, no iterations
    axpy(y, 1.0, x, np.int64(3))
    np.testing.assert_allclose(y.numpy(), [4, 4, 4])


def test_baked_extent_change_compiles_a_new_variant(general):
    a, b = tack.zeros((3, 4), tack.i32), tack.zeros((5, 4), tack.i32)
    rows(a)
    rows(a)
    rows(b)  # another row count: same variant (the loop range is evaluated per call)
    np.testing.assert_array_equal(b.numpy(), np.arange(5)[:, None] * 10 + np.arange(4))
    c = tack.zeros((2, 3), tack.i32)
    with pytest.raises(IndexError):  # out of bounds in debug mode only; here: a new variant
        tack.set_debug(True)
        rows(c)


def test_start_step_ranges_on_the_prebuilt_path(general):
    for n, start, step in [(1, 0, 1), (13, 2, 3), (1025, 5, 7), (4, 9, 1)]:
        out = tack.zeros(n, tack.i32)
        ref = np.zeros(n, np.int32)
        for _ in range(2):
            stepped(out, start, step)
        ref[start:n:step] = np.arange(n)[start:n:step] * 2 + 1
        np.testing.assert_array_equal(out.numpy(), ref)
    with pytest.raises(ValueError, match="step must be positive"):
        stepped(tack.zeros(3, tack.i32), 0, 0)


def test_non_contiguous_input_is_copied_by_tack_array():
    base = np.arange(20, dtype=np.float32)
    x = tack.array(base[::2])
    y = tack.zeros(10)
    axpy(y, 1.0, x, 10)
    axpy(y, 1.0, x, 10)
    np.testing.assert_allclose(y.numpy(), 2 * base[::2])


def test_errors_after_the_path_is_built_are_the_general_ones():
    x, y = tack.array(np.ones(3, np.float32)), tack.zeros(3)
    axpy(y, 1.0, x, 3)
    with pytest.raises(TypeError):
        axpy(y, "a", x, 3)
    with pytest.raises(TypeError, match="expects 4 arguments"):
        axpy(y, 1.0, x)
    with pytest.raises(TypeError, match="has no parameter 'm'"):
        axpy(y, 1.0, x, m=3)
    axpy(y, 1.0, x, n=3)  # a keyword takes the general path, and binds by name
    np.testing.assert_allclose(y.numpy(), [2, 2, 2])  # the first call and the keyword one ran


@pytest.mark.engines("cuda",
                     reason="an array in device memory; without a GPU, "
                            "tests/julia/test_julia153_device_arrays.py gives the CPU engine one "
                            "of the Julia engine's device arrays")
def test_an_array_of_another_device_is_refused_after_the_path_is_built(engine):
    other = tack.zeros(3)
    tack.set_default_device("cpu")
    x, y = tack.array(np.ones(3, np.float32)), tack.zeros(3)
    axpy(y, 1.0, x, 3)
    with pytest.raises(RuntimeError, match="belongs to"):
        axpy(other, 1.0, x, 3)
    np.testing.assert_allclose(y.numpy(), [1, 1, 1])  # only the first call ran


def test_debug_mode_switched_on_later_checks_indices():
    x, y = tack.array(np.ones(3, np.float32)), tack.zeros(3)
    axpy(y, 1.0, x, 3)
    tack.set_debug(True)
    with pytest.raises(IndexError, match="outside"):
        axpy(y, 1.0, x, 4)
    axpy(y, 1.0, x, 3)
    np.testing.assert_allclose(y.numpy(), [3, 3, 3])


def test_default_device_change_takes_the_general_path(general):
    x, y = tack.array(np.ones(3, np.float32)), tack.zeros(3)
    axpy(y, 1.0, x, 3)
    axpy(y, 1.0, x, 3)
    before = len(general)
    tack.set_default_device("cpu", num_threads=1)
    axpy(y, 1.0, x, 3)  # host arrays serve every CPU device
    np.testing.assert_allclose(y.numpy(), [3, 3, 3])
    assert len(general) == before + 1


def test_return_values_and_objects_stay_on_the_general_path(general):
    @tack.kernel
    def total(x, acc) -> tack.f32:
        for i in range(x.shape[0]):
            tack.atomic_add(acc, 0, x[i])
        return acc[0]

    x, acc = tack.array(np.arange(4, dtype=np.float32)), tack.zeros(1)
    assert total(x, acc) == 6.0 and total(x, acc) == 12.0
    assert general == ["total", "total"]
