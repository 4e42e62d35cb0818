"""Host-side element access and NumPy-like helpers on `tack.Array`
(docs/language.md, "Arrays on the host"). Device-agnostic: tests/cuda runs them on a GPU."""
import numpy as np
import pytest
import tack


def test_host_element_reads(engine):
    a = tack.array(np.arange(12, dtype=np.float32).reshape(3, 4))
    assert a[1, 2] == 6.0 and type(a[1, 2]) is float
    assert a[-1, -1] == 11.0
    assert a[5] if False else True
    i = tack.array(np.array([7, -3], np.int64))
    assert i[1] == -3 and type(i[1]) is int
    v = tack.array(np.array([[1, 2, 3], [4, 5, 6]], np.float32), dtype=tack.vec3)
    np.testing.assert_array_equal(v[1], np.array([4, 5, 6], np.float32))
    m = tack.zeros(2, tack.mat2)
    assert m[0].shape == (2, 2)
    s = tack.array(np.float32(3.5))
    assert s[()] == 3.5


@pytest.mark.parametrize("key, exc, message", [
    ((1,), IndexError, r"1 indices for a 2-dimensional tack.Array of shape \(3, 4\)"),
    ((3, 0), IndexError, r"index 3 is out of bounds for dimension 0 with size 3"),
    ((slice(0, 2), 0), TypeError, (r"host access reads one element: a\[0:2, 0\] is not one; "
                                   r"use a.numpy\(\)\[...\] \(a copy\)")),
    ((1.5, 0), TypeError, r"tack.Array indices are integers"),
])
def test_host_element_errors(key, exc, message):
    a = tack.zeros((3, 4), tack.f32)
    with pytest.raises(exc, match=message):
        a[key]


def test_host_writes_and_iteration_are_refused(engine):
    a = tack.zeros(3, tack.f32)
    with pytest.raises(TypeError, match=r"not writable element by element on the host: use "
                                        r"tack.copyto\(a, values\)"):
        a[0] = 1.0
    with pytest.raises(TypeError, match=r"not iterable on the host; use .numpy\(\)"):
        list(a)


def test_fill_reshape_copy(engine):
    a = tack.zeros((2, 3), tack.i32)
    a.fill(4)
    r = a.reshape(3, 2)
    assert r.shape == (3, 2) and a.reshape(-1).shape == (6,) and a.reshape((6, 1)).shape == (6, 1)
    c = a.copy()

    @tack.kernel
    def bump(x):
        for j in range(x.shape[0]):
            x[j] += 1

    bump(r.reshape(6))  # a view: the original sees the write
    assert a.numpy().tolist() == [[5, 5, 5], [5, 5, 5]]
    assert c.numpy().tolist() == [[4, 4, 4], [4, 4, 4]]  # a copy does not
    with pytest.raises(ValueError, match=r"cannot reshape an array of shape \(2, 3\) \(6 "
                                         r"elements\) into \(4,\)"):
        a.reshape(4)


def test_astype_follows_kernel_conversions(engine):
    x = tack.array(np.array([-2.7, -0.5, 0.5, 2.7, 300.0], np.float64))
    got = x.astype(tack.i32).numpy()
    assert got.tolist() == [-2, 0, 0, 2, 300]  # truncation toward zero

    @tack.kernel
    def convert(src, dst):
        for j in range(src.shape[0]):
            dst[j] = src[j]

    for t in (tack.u8, tack.i16, tack.f32):
        y = tack.array(np.array([-1, 255, 256, 70000, -129], np.int64))
        want = tack.zeros(5, t)
        convert(y, want)
        np.testing.assert_array_equal(y.astype(t).numpy(), want.numpy())
    v = tack.array(np.ones((2, 3), np.float32), dtype=tack.vec3).astype(tack.f64)
    assert v.dtype == tack.vector(3, tack.f64) and v.shape == (2,)


def test_ones_arange_concat(engine):
    assert tack.ones(3).numpy().tolist() == [1.0, 1.0, 1.0]
    assert tack.ones(2, tack.vec2).numpy().tolist() == [[1.0, 1.0], [1.0, 1.0]]
    r = tack.arange(5)
    assert r.dtype == tack.i32 and r.numpy().tolist() == [0, 1, 2, 3, 4]
    assert tack.arange(2, 8, 3).numpy().tolist() == [2, 5]
    assert tack.arange(0.0, 1.0, 0.25).dtype == tack.f32
    assert tack.arange(2**31, 2**31 + 2).dtype == tack.i64
    assert tack.arange(3, dtype=tack.f64).numpy().tolist() == [0.0, 1.0, 2.0]
    c = tack.concat([tack.arange(2), tack.arange(3)])
    assert c.numpy().tolist() == [0, 1, 0, 1, 2]
    m = tack.concat([tack.zeros((2, 2)), tack.ones((2, 1))], axis=1)
    assert m.numpy().tolist() == [[0, 0, 1], [0, 0, 1]]
    with pytest.raises(TypeError, match="tack.concat of arrays of different dtypes"):
        tack.concat([tack.arange(2), tack.ones(2)])
