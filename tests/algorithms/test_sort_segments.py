"""argsort, sort_by_key, gather, unique, reduce_by_key, segmented scans and reductions against
NumPy (exact: integer permutations, and folds in a fixed left-to-right order that a NumPy loop
reproduces bit for bit) (docs/algorithms.md, "Sorting and segments")."""
import itertools

import numpy as np
import pytest
import tack
from tack import algorithms as A

from .conftest import KEYS, check_sort, data

SIZES = [0, 1, 2, 31, 257, 16385, 65537]


@pytest.mark.parametrize("dtype", KEYS)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.engines("cpu", "cuda",
                     reason="not sim: 11 s of sorts up to 65537 keys there; tests/algorithms/"
                            "test_sort_workgroups.py runs its radix passes at the sizes it runs "
                            "quickly")
def test_argsort_is_numpy_stable(device, dtype, n):
    x = data(n, dtype)
    p = A.argsort(tack.array(x))
    assert p.dtype == tack.i32
    np.testing.assert_array_equal(p.numpy(), np.argsort(x, kind="stable"))


@pytest.mark.parametrize("spread", [0, 1, 255, 256, 70000, 2 ** 40])
def test_argsort_stable_for_small_spreads(device, spread):
    rng = np.random.default_rng(spread)
    x = (rng.integers(0, spread + 1, 20011) - spread // 2).astype(np.int64)
    np.testing.assert_array_equal(A.argsort(tack.array(x)).numpy(), np.argsort(x, kind="stable"))


def test_argsort_leading_n(device):
    x = data(1000, np.int32)
    np.testing.assert_array_equal(A.argsort(tack.array(x), n=300).numpy(),
                                  np.argsort(x[:300], kind="stable"))


def test_sort_by_key_and_gather(device):
    k = data(40009, np.int32) % 1000
    v = np.arange(40009, dtype=np.float32)
    kt, vt = tack.array(k), tack.array(v)
    ks, vs = A.sort_by_key(kt, vt)
    order = np.argsort(k, kind="stable")
    np.testing.assert_array_equal(ks.numpy(), k[order])
    np.testing.assert_array_equal(vs.numpy(), v[order])
    np.testing.assert_array_equal(kt.numpy(), k)  # the inputs are left alone
    np.testing.assert_array_equal(vt.numpy(), v)
    vec = tack.array(np.arange(9, dtype=np.float32).reshape(3, 3), dtype=tack.vec3)
    _, vecs = A.sort_by_key(tack.array(np.array([2, 0, 1], np.int32)), vec)
    want = np.arange(9, dtype=np.float32).reshape(3, 3)[[1, 2, 0]]
    np.testing.assert_array_equal(vecs.numpy(), want)
    g = A.gather(tack.array(v), tack.array(order.astype(np.int32)))
    np.testing.assert_array_equal(g.numpy(), v[order])
    vec = tack.array(np.arange(12, dtype=np.float32).reshape(4, 3), dtype=tack.vec3)
    np.testing.assert_array_equal(A.gather(vec, tack.array(np.array([3, 0], np.int32))).numpy(),
                                  [[9, 10, 11], [0, 1, 2]])


def _runs(k):
    starts = np.flatnonzero(np.r_[True, k[1:] != k[:-1]]) if len(k) else np.zeros(0, int)
    return starts, np.diff(np.r_[starts, len(k)])


@pytest.mark.parametrize("n", [0, 1, 257, 65537])
def test_unique_and_reduce_by_key(device, n):
    k = np.sort(data(n, np.int64) % 97)
    v = data(n, np.float32)
    starts, lengths = _runs(k)
    heads, counts = A.unique(tack.array(k))
    np.testing.assert_array_equal(heads.numpy(), k[starts])
    np.testing.assert_array_equal(counts.numpy(), lengths)
    for op, fn in (("sum", np.add), ("min", np.fmin), ("max", np.fmax)):
        hk, red = A.reduce_by_key(tack.array(k), tack.array(v), op)
        np.testing.assert_array_equal(hk.numpy(), k[starts])
        want = [_fold(fn, v[s:s + m]) for s, m in zip(starts, lengths)]
        np.testing.assert_array_equal(red.numpy(), np.array(want, np.float32))


def _fold(fn, seg):
    acc = seg[0]
    for x in seg[1:]:
        acc = fn(acc, x)  # left to right, in f32: what every engine computes
    return acc


def test_segmented_reduce(device):
    v = data(1000, np.int32)
    off = np.array([0, 0, 10, 11, 500, 500, 1000], np.int32)
    for op, ident, fn in (("sum", 0, np.add), ("min", 2 ** 31 - 1, np.minimum),
                          ("max", -2 ** 31, np.maximum)):
        got = A.segmented_reduce(tack.array(v), tack.array(off), op).numpy()
        with np.errstate(over="ignore"):
            want = [_fold(fn, v[a:b]) if b > a else ident for a, b in itertools.pairwise(off)]
        np.testing.assert_array_equal(got, np.array(want, np.int32))


def test_segmented_inclusive_scan(device):
    v = data(5003, np.float32)
    flags = (np.arange(5003) % 37 == 5).astype(np.uint8)
    dst = tack.zeros(5003)
    A.segmented_inclusive_scan(tack.array(v), tack.array(flags), dst)
    want = np.empty_like(v)
    for i in range(5003):
        want[i] = v[i] if i == 0 or flags[i] else np.float32(want[i - 1] + v[i])
    np.testing.assert_array_equal(dst.numpy(), want)


def test_nan_and_signed_zero_in_segments(device):
    v = np.array([np.nan, 1.0, 0.0, -0.0, -0.0, 0.0], np.float32)
    off = tack.array(np.array([0, 2, 4, 6], np.int32))
    mn = A.segmented_reduce(tack.array(v), off, "min").numpy()
    mx = A.segmented_reduce(tack.array(v), off, "max").numpy()
    assert np.isnan(mn[0]) and np.isnan(mx[0])
    assert np.signbit(mn[1]) and not np.signbit(mx[1])
    assert np.signbit(mn[2]) and not np.signbit(mx[2])


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int64])
@pytest.mark.parametrize("n", [1, 2, 7, 31, 257, 1021])
def test_segmented_reduce_every_op_against_float64(device, dtype, n):
    """sum, min and max over segments of awkward lengths (empty, single, prime) against NumPy in
    float64: min and max exactly, a NaN anywhere in a segment giving NaN; a float sum within the
    error bound of its accumulator (f32 for half values, the dtype otherwise) plus the final
    rounding; an integer sum exactly (wrapping)."""
    v = data(n, dtype, seed=3)
    t = np.dtype(dtype)
    if t.kind == "f" and n > 2:
        v[n // 2] = np.nan  # one segment holds a NaN
    off = np.unique(np.r_[0, 0, 1, n // 3, n // 2, n // 2 + 1, n, n]).astype(np.int32)
    off = np.r_[off[:2], off[1:]]  # and an empty segment
    wide = v.astype(np.float64) if t.kind == "f" else v
    got = {op: A.segmented_reduce(tack.array(v), tack.array(off), op).numpy()
           for op in ("sum", "min", "max")}
    for s, (a, b) in enumerate(itertools.pairwise(off)):
        seg = wide[a:b]
        if b == a:
            big = np.inf if t.kind == "f" else np.iinfo(t).max
            assert (got["sum"][s], got["min"][s], got["max"][s]) == (0, big, -big if t.kind ==
                                                                    "f" else np.iinfo(t).min)
            continue
        np.testing.assert_array_equal(got["min"][s], np.minimum.reduce(seg).astype(t))
        np.testing.assert_array_equal(got["max"][s], np.maximum.reduce(seg).astype(t))
        if t.kind != "f":
            with np.errstate(over="ignore"):
                assert got["sum"][s] == np.add.reduce(seg, dtype=t)
        elif np.isnan(seg).any():
            assert np.isnan(got["sum"][s])
        else:
            u = 2.0 ** -24 if t.itemsize <= 4 else 2.0 ** -53
            bound = (b - a) * u / (1 - (b - a) * u) * np.abs(seg).sum()
            exact = seg.sum()
            rounding = (abs(exact) + bound) * 2.0 ** -11 if t.itemsize == 2 else 0.0
            assert abs(float(got["sum"][s]) - exact) <= bound + rounding, (s, a, b)


@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.float64])
def test_copy_fill(device, dtype):
    src = tack.array(np.array([1.5, 2.5, 3.75, 200.0, 7.0]))  # in range of every dtype
    dst = tack.zeros(5, dtype)
    A.copy(src, dst, 4)
    np.testing.assert_array_equal(dst.numpy(), np.array([1.5, 2.5, 3.75, 200.0, 0]).astype(dtype))
    f = tack.zeros(6, dtype)
    A.fill_value(f, 2.5, 4)
    A.copy_with_offset(tack.array(np.array([9, 8], dtype)), f, 4)
    np.testing.assert_array_equal(f.numpy(), np.array([2.5] * 4 + [9, 8]).astype(dtype))
    w = tack.zeros(3, tack.u8)
    A.copy(tack.array(np.array([300, -1, 255], np.int32)), w)  # integers wrap on store
    assert list(w.numpy()) == [44, 255, 255]


def test_fill_conversion_rules(device):
    a, b = tack.zeros(3, tack.i32), tack.zeros(3, tack.u8)
    A.fill_value(a, 2.5)
    A.fill_value(b, 300)
    assert list(a.numpy()) == [2, 2, 2] and list(b.numpy()) == [44, 44, 44]


def test_argument_errors(device):
    with pytest.raises(TypeError):
        A.argsort(tack.zeros(4))  # f32 keys
    with pytest.raises(TypeError):
        A.unique(tack.zeros(4, tack.i16))
    with pytest.raises(ValueError):
        A.reduce_by_key(tack.zeros(4, tack.i32), tack.zeros(4), "mean")
    with pytest.raises(ValueError):
        A.reduce_by_key(tack.zeros(4, tack.i32), tack.zeros(3))
    with pytest.raises(ValueError):
        A.gather(tack.zeros(4), tack.array(np.array([0, 4], np.int32)))
    with pytest.raises(ValueError):
        A.segmented_reduce(tack.zeros(4), tack.array(np.array([0, 3, 2], np.int32)))
    with pytest.raises(ValueError):
        A.copy_with_offset(tack.zeros(4), tack.zeros(5), 2)
    with pytest.raises(ValueError):
        A.copy(tack.zeros(4), tack.zeros(3), 4)
    with pytest.raises(TypeError):
        A.fill_value(tack.zeros(3), "x")


def test_argsorts_return_independent_arrays(device):
    """Each argsort returns a new permutation: a later call (its work arrays are kept between
    calls on a GPU) leaves an earlier result alone, for an even and an odd pass count."""
    for spread in (2 ** 16 - 1, 2 ** 24 - 1):  # two passes, then three
        a, b = (data(5003, np.int32, seed) % spread for seed in (1, 2))
        pa = A.argsort(tack.array(a))
        pb = A.argsort(tack.array(b))
        np.testing.assert_array_equal(pa.numpy(), np.argsort(a, kind="stable"))
        np.testing.assert_array_equal(pb.numpy(), np.argsort(b, kind="stable"))


@pytest.mark.parametrize("dtype", KEYS)
@pytest.mark.parametrize("n", [1, 2049, 20011])
def test_sort_by_key_every_dtype(device, dtype, n):
    """New arrays: the sorted keys from the last radix pass, the values from the permutation;
    all-equal keys (no pass) come back as they were; the inputs are left alone."""
    for k in (data(n, dtype), np.full(n, np.iinfo(dtype).max, dtype)):
        v = np.arange(n, dtype=np.int64)
        kt, vt = tack.array(k), tack.array(v)
        ks, vs = A.sort_by_key(kt, vt)
        order = np.argsort(k, kind="stable")
        np.testing.assert_array_equal(ks.numpy(), k[order])
        np.testing.assert_array_equal(vs.numpy(), v[order])
        np.testing.assert_array_equal(kt.numpy(), k)


@pytest.mark.parametrize("dtype", KEYS)
@pytest.mark.parametrize("n", [0, 1, 2049, 20011])
def test_sort_returns_keys_and_permutation(device, dtype, n):
    """sort: a new array of the sorted keys (from the last radix pass) and the stable
    permutation, the input untouched; all-equal keys (no pass) and a leading n too."""
    check_sort(dtype, n)
