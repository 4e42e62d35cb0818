"""Arguments of every algorithm that takes n or writes into an array: n (given or defaulted)
never reaches past any array, bad values raise TackError subclasses before any launch, and an
output that overlaps an input gives what NumPy gives (docs/algorithms.md, "Copy and fill")."""
import numpy as np
import pytest
import tack
from tack import algorithms as A

pytestmark = pytest.mark.engines("cpu", "sim",
                                 reason="both engines CI runs: the simulator's paths are a GPU's "
                                        "workgroup paths")


@pytest.fixture
def launches(monkeypatch):
    """The names of the kernels launched during the test."""
    calls = []
    real = tack.Kernel.__dict__["__call__"]  # a function or a property giving the call path

    def counted(self, *args, **kw):
        calls.append(self.name)
        return real.__get__(self, type(self))(*args, **kw)

    monkeypatch.setattr(tack.Kernel, "__call__", counted)
    return calls


def _f32(n, start=1):
    return tack.array(np.arange(start, start + n, dtype=np.float32))


# (label, call(src, dst, n)): every function that writes n elements of dst from src
WRITERS = [
    ("copy", lambda s, d, n: A.copy(s, d, n)),
    ("copy_with_offset", lambda s, d, n: A.copy_with_offset(s, d, 0, n)),
    ("inclusive_scan", lambda s, d, n: A.inclusive_scan(s, d, n)),
    ("exclusive_scan", lambda s, d, n: A.exclusive_scan(s, d, n)),
]


@pytest.mark.parametrize("label,call", WRITERS, ids=[w[0] for w in WRITERS])
@pytest.mark.parametrize("src_shape,src_dtype", [((30,), tack.f32), ((10,), tack.vec3),
                                                 ((1000,), tack.f32)], ids=["30", "vec3", "1000"])
def test_default_n_never_passes_dst(device, launches, label, call, src_shape, src_dtype):
    """n defaults to src's flat length (a vec3 counts its components: 30 values): more than
    dst's 10 elements is refused before any launch, and dst keeps its contents."""
    src = tack.ones(src_shape, src_dtype)
    dst = tack.full(10, -5.0)
    launches.clear()
    with pytest.raises(tack.TackValueError, match=rf"{label}: .*\bdst\b"):
        call(src, dst, None)
    assert launches == []
    np.testing.assert_array_equal(dst.numpy(), np.full(10, -5.0, np.float32))


@pytest.mark.parametrize("label,call", WRITERS, ids=[w[0] for w in WRITERS])
def test_explicit_n_is_checked_against_each_array(device, label, call):
    src, dst = _f32(12), tack.zeros(10)
    for n in (11, 13, 2 ** 40):
        with pytest.raises(tack.TackValueError, match=label):
            call(src, dst, n)
    with pytest.raises(tack.TackValueError, match="at least 0"):
        call(src, dst, -1)
    for n in (1.5, "3", True):
        with pytest.raises(tack.TackTypeError, match=f"{label}: n must be an integer"):
            call(src, dst, n)
    assert (dst.numpy() == 0).all()
    call(src, dst, 10)  # the largest n both hold
    assert dst.numpy()[9] != 0


def test_a_large_source_into_a_small_array(device, launches):
    """A source of 10^6 elements into 8: refused, nothing launched (this wrote far past dst)."""
    big, small = tack.full(1_000_000, 7.0), tack.zeros(8)
    launches.clear()
    with pytest.raises(tack.TackValueError):
        A.copy(big, small)
    with pytest.raises(tack.TackValueError):
        A.inclusive_scan(big, small)
    assert launches == [] and (small.numpy() == 0).all()


# every function that reads the leading n elements of its arguments
READERS = [
    ("var", lambda x, n: A.var(x, n)), ("std", lambda x, n: A.std(x, n)),
    ("norm", lambda x, n: A.norm(x, 2, n)), ("absmax", lambda x, n: A.absmax(x, n)),
    ("count_nonzero", lambda x, n: A.count_nonzero(x, n)),
    ("dot", lambda x, n: A.dot(x, x, n)), ("histogram", lambda x, n: A.histogram(x, 4, None, n)),
    ("fill_value", lambda x, n: A.fill_value(x, 1.0, n)),
    ("argsort", lambda x, n: A.argsort(tack.zeros(x.shape, tack.i32), n)),
    ("sort", lambda x, n: A.sort(tack.zeros(x.shape, tack.i32), n)),
]


@pytest.mark.parametrize("label,call", READERS, ids=[r[0] for r in READERS])
def test_n_of_the_readers(device, launches, label, call):
    x = _f32(7)
    launches.clear()
    for n in (8, -1):
        with pytest.raises(tack.TackValueError, match=label):
            call(x, n)
    for n in (2.0, True, "1"):
        with pytest.raises(tack.TackTypeError, match=label):
            call(x, n)
    assert launches == []
    call(x, 7)


def test_dot_of_unequal_arrays_needs_n(device):
    with pytest.raises(tack.TackValueError, match="pass n"):
        A.dot(_f32(5), _f32(6))
    assert A.dot(_f32(5), _f32(6), 5) == float(np.dot(np.arange(1, 6), np.arange(1, 6)))


@pytest.mark.parametrize("value,err", [
    (2 ** 64, tack.TackValueError), (-2 ** 63 - 1, tack.TackValueError),
    (np.array([1.0, 2.0]), tack.TackTypeError), (np.zeros(1), tack.TackTypeError),
    ("3", tack.TackTypeError), (1j, tack.TackTypeError), (None, tack.TackTypeError),
    (True, tack.TackTypeError),
])
def test_fill_value_takes_numbers_a_kernel_holds(device, launches, value, err):
    d = tack.full(4, 3, tack.i32)
    launches.clear()
    with pytest.raises(err, match="fill_value"):
        A.fill_value(d, value)
    assert launches == [] and (d.numpy() == 3).all()
    A.fill_value(d, 2 ** 64 - 1)  # the widest integer wraps as a kernel store does
    assert (d.numpy() == -1).all()


def test_copy_with_offset_offset(device):
    x = tack.zeros(5)
    for off, err in ((6, tack.TackValueError), (-1, tack.TackValueError),
                     (1.0, tack.TackTypeError), (True, tack.TackTypeError)):
        with pytest.raises(err, match="dst_offset"):
            A.copy_with_offset(_f32(1), x, off)
    with pytest.raises(tack.TackValueError, match="pass the end"):
        A.copy_with_offset(_f32(3), x, 3)


# ---- overlapping arguments: the result of reading src before anything is written -----------
SIZES = [2, 7, 257, 5003]


def _views(n: int, shift: int):
    """(base, src, dst): NumPy storage of n + |shift| elements and two Tack views of n sharing
    it, dst `shift` elements after src (before it when negative)."""
    base = np.arange(1, n + abs(shift) + 1, dtype=np.float64) % 97 - 40
    lo, hi = (0, shift) if shift >= 0 else (-shift, 0)
    return base, tack.from_dlpack(base[lo:lo + n]), tack.from_dlpack(base[hi:hi + n])


def _expect(base, n, shift, f):
    want = base.copy()
    lo, hi = (0, shift) if shift >= 0 else (-shift, 0)
    want[hi:hi + n] = f(base[lo:lo + n].copy())
    return want


def _exclusive(a):
    return np.concatenate([[0.0], np.cumsum(a)[:-1]])


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("shift", [1, -1, 3, -200])
@pytest.mark.parametrize("name,ref", [("copy", lambda a: a), ("inclusive_scan", np.cumsum),
                                      ("exclusive_scan", _exclusive)])
def test_overlapping_views(device, n, shift, name, ref):
    base, src, dst = _views(n, shift)
    want = _expect(base, n, shift, ref)
    getattr(A, name)(src, dst)
    np.testing.assert_allclose(base, want, rtol=1e-12)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("name,ref", [("inclusive_scan", np.cumsum),
                                      ("exclusive_scan", _exclusive)])
def test_scans_in_place_stay_allowed(device, n, name, ref):
    base = np.arange(n, dtype=np.float64) % 13
    want = ref(base.copy())
    x = tack.from_dlpack(base)
    getattr(A, name)(x, x)
    np.testing.assert_allclose(base, want, rtol=1e-12)


@pytest.mark.parametrize("n", [1, 9, 300])
def test_copy_with_offset_into_itself(device, n):
    """copy_with_offset(x, x, 1): a shift by one, as NumPy's x[1:] = x[:-1] gives."""
    x = tack.array(np.arange(n + 1, dtype=np.float32))
    want = np.arange(n + 1, dtype=np.float32)
    want[1:] = want[:-1].copy()
    A.copy_with_offset(x, x, 1, n)
    np.testing.assert_array_equal(x.numpy(), want)


def test_segmented_scan_over_overlapping_values(device):
    n = 50
    base = np.arange(n + 1, dtype=np.float64)
    values, dst = tack.from_dlpack(base[:n]), tack.from_dlpack(base[1:])
    flags = np.zeros(n, np.int32)
    flags[[0, 7, 20]] = 1
    want = base.copy()
    v = base[:n].copy()
    seg = np.cumsum(flags) - 1
    want[1:] = [v[(seg == seg[i]) & (np.arange(n) <= i)].sum() for i in range(n)]
    A.segmented_inclusive_scan(values, tack.array(flags), dst)
    np.testing.assert_array_equal(base, want)


def test_read_only_outputs_are_refused_before_any_launch(device, launches):
    ro = np.arange(6, dtype=np.float32)
    ro.flags.writeable = False
    dst = tack.from_dlpack(ro)
    launches.clear()
    for call in (lambda: A.copy(_f32(6), dst), lambda: A.inclusive_scan(_f32(6), dst),
                 lambda: A.exclusive_scan(_f32(6), dst), lambda: A.fill_value(dst, 1.0),
                 lambda: A.copy_with_offset(_f32(2), dst, 1),
                 lambda: A.segmented_inclusive_scan(_f32(6), tack.zeros(6, tack.i32), dst),
                 lambda: tack.ops.relu(_f32(6), out=dst)):
        with pytest.raises(tack.TackValueError, match="read-only"):
            call()
    assert launches == [] and (ro == np.arange(6)).all()
