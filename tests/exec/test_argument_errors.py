"""Bad arguments at the array, device, Dask and testing entry points raise TackError subclasses
(TackTypeError / TackValueError, also the builtin TypeError / ValueError) before any work, with
a message naming what was wrong; DLPack export follows the array API's copy rule."""
import numpy as np
import pytest
import tack
import tack.dask
import tack.testing


@pytest.mark.parametrize("name", ["sim:²", "cpu:٣", "cuda:1.0", "sim:-1", "sim: 1"])
def test_device_index_digits(name):
    """'²' and '٣' are digits to str.isdigit but not to int(): refused like any bad index."""
    with pytest.raises(tack.TackValueError, match="device index"):
        tack.device(name)


MAKERS = {
    "empty": lambda shape: tack.empty(shape),
    "zeros": lambda shape: tack.zeros(shape, tack.f64),
    "ones": lambda shape: tack.ones(shape, tack.i8),
    "full": lambda shape: tack.full(shape, 2.0),
    "zeros-vec3": lambda shape: tack.zeros(shape, tack.vec3),
}


@pytest.mark.parametrize("maker", list(MAKERS))
@pytest.mark.parametrize("shape,err", [
    (2 ** 63, tack.TackValueError), (2 ** 64, tack.TackValueError),
    ((2 ** 31, 2 ** 31), tack.TackValueError), (2 ** 62, tack.TackValueError),
    (-1, tack.TackValueError), ((3, -2), tack.TackValueError),
    (1.5, tack.TackTypeError), ("3", tack.TackTypeError), (None, tack.TackTypeError),
    (True, tack.TackTypeError), ((True, 2), tack.TackTypeError), ((2, 1.0), tack.TackTypeError),
])
def test_shapes(maker, shape, err):
    with pytest.raises(err):
        MAKERS[maker](shape)


def test_more_than_the_host_holds():
    """More bytes than the host's physical memory: refused before the allocation is tried
    (which would raise NumPy's MemoryError, or succeed lazily and fail later)."""
    with pytest.raises(tack.TackValueError, match="more than the host's memory"):
        tack.zeros(2 ** 50, tack.u8)
    assert tack.zeros(3, tack.u8).shape == (3,)


@pytest.mark.parametrize("args,err", [
    ((2 ** 62,), tack.TackValueError), (("a",), tack.TackTypeError),
    ((0, 5, 0), tack.TackValueError), ((None,), tack.TackTypeError),
])
def test_arange(args, err):
    with pytest.raises(err, match="arange"):
        tack.arange(*args)


@pytest.mark.parametrize("dtype,value,err", [
    (tack.i32, 2 ** 40, tack.TackValueError), (tack.i32, 2 ** 70, tack.TackValueError),
    (tack.u8, -1, tack.TackValueError), (tack.i64, 2 ** 63, tack.TackValueError),
    (tack.u32, np.uint64(2 ** 64 - 1), tack.TackValueError),
    (tack.i32, float("inf"), tack.TackValueError), (tack.i16, float("nan"), tack.TackValueError),
    (tack.i32, 1e10, tack.TackValueError),
    (tack.f32, "3", tack.TackTypeError), (tack.f32, 1j, tack.TackTypeError),
    (tack.f32, None, tack.TackTypeError), (tack.f32, object(), tack.TackTypeError),
    (tack.f32, np.array([1.0, 2.0]), tack.TackValueError),
    (tack.vec3, [1.0, 2.0], tack.TackValueError),
])
def test_fill_refuses_values_the_dtype_cannot_hold(dtype, value, err):
    a = tack.full(4, 5, dtype)
    before = a.numpy()
    with pytest.raises(err, match="fill"):
        a.fill(value)
    with pytest.raises(err, match="fill"):
        tack.full(4, value, dtype)
    np.testing.assert_array_equal(a.numpy(), before)


def test_fill_keeps_what_it_took():
    a = tack.zeros(3, tack.i32)
    for v, want in ((2 ** 31 - 1, 2 ** 31 - 1), (-2 ** 31, -2 ** 31), (2.9, 2), (np.int64(7), 7),
                    (np.array([4]), 4), (True, 1)):
        a.fill(v)
        assert (a.numpy() == want).all()
    v = tack.zeros(2, tack.vec3)
    v.fill([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(v.numpy(), [[1, 2, 3], [1, 2, 3]])
    f = tack.zeros(2, tack.f32)
    f.fill(1e300)  # float → f32 overflows to inf, as a kernel's conversion does
    assert np.isinf(f.numpy()).all()


@tack.kernel
def _copy(x, out):
    for i in range(x.shape[0]):
        out[i] = x[i]


@pytest.mark.parametrize("call,err,match", [
    (lambda: tack.dask.map_blocks(len, np.zeros(3)), tack.TackTypeError, "@tack.kernel"),
    (lambda: tack.dask.map_blocks(_copy), tack.TackValueError, "at least one"),
    (lambda: tack.dask.map_blocks(_copy, np.zeros(3), halo=-1), tack.TackValueError, "halo"),
    (lambda: tack.dask.map_blocks(_copy, np.zeros(3), halo="1"), tack.TackTypeError, "halo"),
    (lambda: tack.dask.map_blocks(_copy, np.zeros(3), halo=1.0), tack.TackTypeError, "halo"),
    (lambda: tack.dask.map_blocks(_copy, np.zeros(3), halo=1, out_chunks=(3,)),
     tack.TackValueError, "out_chunks"),
    (lambda: tack.dask.map_blocks(_copy, np.zeros(3), scalars=2), tack.TackTypeError,
     "scalars"),
    (lambda: tack.dask.map_blocks(_copy, np.zeros(3), out_dtype="complex64"),
     tack.TackTypeError, "complex64"),
    (lambda: tack.dask.map_blocks(_copy, np.zeros(3), out_dtype=tack.vec3),
     tack.TackTypeError, "dtype"),
])
def test_dask_map_blocks_arguments(call, err, match):
    """Checked before Dask is imported: these need no Dask installed."""
    with pytest.raises(err, match=match):
        call()


def test_dask_map_blocks_takes_dask_arrays_only():
    pytest.importorskip("dask")
    with pytest.raises(tack.TackTypeError, match="dask array"):
        tack.dask.map_blocks(_copy, np.zeros(3))


@pytest.mark.parametrize("kw,err,match", [
    ({"dtypes": "notadtype"}, tack.TackValueError, "notadtype"),
    ({"dtypes": 5}, tack.TackTypeError, "dtypes"),
    ({"dtypes": None}, tack.TackTypeError, "dtypes"),
    ({"dtypes": ("float32", "bogus")}, tack.TackValueError, "bogus"),
    ({"dtypes": "complex64"}, tack.TackValueError, "complex64"),
    ({"dtypes": "bool"}, tack.TackValueError, "bool"),
    ({"dtypes": ()}, tack.TackValueError, "empty"),
    ({"seed": "abc"}, tack.TackTypeError, "seed"), ({"seed": 1.5}, tack.TackTypeError, "seed"),
    ({"seed": None}, tack.TackTypeError, "seed"), ({"seed": True}, tack.TackTypeError, "seed"),
    ({"seed": -1}, tack.TackValueError, "seed"), ({"seed": 2 ** 32}, tack.TackValueError, "seed"),
])
def test_testing_test_arguments(kw, err, match):
    ran = []

    def subject(x):
        ran.append(1)
        return x + 1

    with pytest.raises(err, match=match):
        tack.testing.test(subject, lambda x: x + 1, "(n)->(n)", records_dir=False,
                          baseline=False, **kw)
    assert ran == []  # refused before any case ran


def test_testing_test_takes_dtype_objects_and_big_seeds():
    r = tack.testing.test(lambda x: x + 1, lambda x: x + 1, "(n)->(n)", records_dir=False,
                          baseline=False, shape="7-contiguous", dtypes=[np.float64, "int32"],
                          seed=2 ** 32 - 1)
    assert r.passed and r.dtypes == ["float64", "int32"]


def test_dlpack_copy_true_is_refused_on_the_host():
    """Every device refuses copy=True with BufferError (a copy is a.copy() away); None and
    False share memory (https://data-apis.org/array-api/latest/API_specification/generated/
    array_api.array.__dlpack__.html)."""
    a = tack.array(np.arange(4.0))
    with pytest.raises(tack.TackBufferError, match="copy=True"):
        a.__dlpack__(copy=True)
    with pytest.raises(BufferError):
        a.__dlpack__(copy=True, max_version=(1, 0))
    for copy in (None, False):
        v = np.from_dlpack(a, copy=copy)
        v[0] = 42
        assert a.numpy()[0] == 42
        a.fill(0.0)
