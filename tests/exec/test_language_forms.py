"""Language forms on every engine here (the native CPU on 1 and 2 threads, the simulator) against
NumPy: `tack.ndrange` of any rank, tuple unpacking before the parallel loop and local assignments
after it, a conditional expression with a vector arm and a scalar arm, matrix entries `m[i, j]`
(also of a host matrix constant) and a vector returned by a `@tack.func` unpacked into names.
docs/language.md, "Parallel loop" and "Vectors and matrices"."""
import itertools

import numpy as np
import pytest
import tack

ROT = tack.constant(((0.0, -1.0), (1.0, 0.0)))


@pytest.fixture(params=["cpu1", "cpu2", "sim"])
def engine(request):
    if request.param == "sim":
        tack.set_default_device("sim")
    else:
        tack.set_default_device("cpu", num_threads=int(request.param[-1]))
    return request.param


# -- tack.ndrange of rank 4 and more -------------------------------------------------------------
@tack.kernel
def fill4(a, out, lo):
    for i, j, k, m in tack.ndrange(a.shape[0], (lo, a.shape[1]), a.shape[2], a.shape[3]):
        out[i, j, k, m] = a[i, j, k, m] * 2.0 + (i * 1000 + j * 100 + k * 10 + m)


@tack.kernel
def fill5(out, stop):
    for i, j, k, m, q in tack.ndrange(out.shape[0], out.shape[1], (2, stop), out.shape[3],
                                      out.shape[4]):
        out[i, j, k, m, q] = i * 10000 + j * 1000 + k * 100 + m * 10 + q


@tack.kernel
def fill8(out):
    for a, b, c, d, e, f, g, h in tack.ndrange(out.shape[0], out.shape[1], out.shape[2],
                                               out.shape[3], out.shape[4], out.shape[5],
                                               out.shape[6], out.shape[7]):
        out[a, b, c, d, e, f, g, h] = (((((((a * 2 + b) * 2 + c) * 2 + d) * 2 + e) * 2 + f) * 2
                                        + g) * 2 + h)


@tack.kernel
def nested4(out, n):
    for t in range(out.shape[0]):
        total = 0
        for i, j, k, m in tack.ndrange(t + 1, (1, n), 3, (t, t + 2)):
            if m == 2:
                continue
            total += i * 1000 + j * 100 + k * 10 + m
        out[t] = total


@pytest.mark.parametrize("shape", list(itertools.permutations((1, 3, 5, 7)))[::5])
def test_ndrange_rank4_matches_numpy(engine, shape):
    a = np.random.default_rng(4).normal(size=shape).astype(np.float32)
    out = tack.zeros(shape)
    fill4(tack.array(a), out, 1)
    i, j, k, m = np.indices(shape)
    want = np.where(j >= 1, a.astype(np.float64) * 2.0 + (i * 1000 + j * 100 + k * 10 + m), 0.0)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-6)


@pytest.mark.parametrize("shape,stop", [((1, 3, 5, 7, 2), 5), ((2, 1, 7, 3, 5), 7),
                                        ((3, 5, 4, 1, 7), 2), ((3, 5, 4, 1, 7), -1)])
def test_ndrange_rank5_matches_numpy(engine, shape, stop):
    out = tack.zeros(shape, tack.i32)
    fill5(out, stop)
    i, j, k, m, q = np.indices(shape)
    inside = (k >= 2) & (k < stop)
    want = np.where(inside, i * 10000 + j * 1000 + k * 100 + m * 10 + q, 0)
    np.testing.assert_array_equal(out.numpy(), want)


def test_ndrange_rank8_and_an_empty_extent(engine):
    out = tack.zeros((2,) * 8, tack.i32)
    fill8(out)
    np.testing.assert_array_equal(out.numpy().ravel(), np.arange(256))
    empty = tack.array(np.full((2, 0, 2, 2), 7.0, np.float32))
    fill4(empty, tack.zeros((2, 0, 2, 2)), 0)  # runs nothing
    np.testing.assert_array_equal(empty.numpy(), np.full((2, 0, 2, 2), 7.0))


def test_nested_ndrange_rank4(engine):
    out = tack.zeros(5, tack.i32)
    nested4(out, 3)
    want = [sum(i * 1000 + j * 100 + k * 10 + m for i in range(t + 1) for j in range(1, 3)
                for k in range(3) for m in range(t, t + 2) if m != 2) for t in range(5)]
    np.testing.assert_array_equal(out.numpy(), want)


# -- unpacking before the loop, locals after it -------------------------------------------------
@tack.kernel
def scaled(img, out, scale):
    h, w = img.shape
    rows, cols = w, h
    rows, cols = cols, rows  # the values before the assignment: (h, w)
    n = rows
    n = n - 0  # a local reassigned from itself, still a bound
    for r, c in tack.ndrange(n, cols):
        out[r, c] = img[r, c] * scale + h * 100 + w
    unused = scale * 2.0  # typed, never run
    if scale > 1.0:
        unused = unused + 1.0


@tack.kernel
def scaled_total(img, out, scale) -> tack.f32:
    h, w = img.shape
    for r in range(h):
        out[r, 0] = img[r, 0] * scale
    extra = scale * w
    return extra + h


@pytest.mark.parametrize("shape", [(1, 1), (3, 5), (7, 2)])
def test_unpacked_shape_bounds_and_locals_after_the_loop(engine, shape):
    img = np.random.default_rng(9).normal(size=shape).astype(np.float32)
    out = tack.zeros(shape)
    scaled(tack.array(img), out, 2.0)
    h, w = shape
    np.testing.assert_allclose(out.numpy(), img.astype(np.float64) * 2.0 + h * 100 + w,
                               rtol=1e-6)
    assert scaled_total(tack.array(img), tack.zeros(shape), 0.5) == 0.5 * w + h


# -- conditional expressions with a scalar arm --------------------------------------------------
@tack.kernel
def pick(v, c, m, out, out2, outm, ints):
    for i in range(v.shape[0]):
        out[i] = v[i] if c[i] > 0.0 else 0.0
        out2[i] = -1 if c[i] > 0.0 else v[i] * 2.0
        outm[i] = m[i] if c[i] < 0.0 else c[i]
        ints[i] = [i, -i] if i % 2 == 0 else 7


@tack.kernel
def pick64(v, c, out):
    for i in range(v.shape[0]):
        out[i] = 0.1 if c[i] > 0.0 else v[i]  # the weak arm takes the vector's f64


@pytest.mark.parametrize("n", [1, 7, 33])
def test_scalar_arm_repeats_per_component(engine, n):
    g = np.random.default_rng(n)
    v, c = g.normal(size=(n, 3)).astype(np.float32), g.normal(size=n).astype(np.float32)
    m = g.normal(size=(n, 2, 2)).astype(np.float32)
    out, out2 = tack.zeros(n, tack.vec3), tack.zeros(n, tack.vec3)
    outm, ints = tack.zeros(n, tack.mat2), tack.zeros(n, tack.vector(2, tack.i32))
    pick(tack.array(v, dtype=tack.vec3), tack.array(c), tack.array(m, dtype=tack.mat2), out,
         out2, outm, ints)
    cv = c[:, None]
    np.testing.assert_array_equal(out.numpy(), np.where(cv > 0, v, 0))
    np.testing.assert_array_equal(out2.numpy(), np.where(cv > 0, -1, v * np.float32(2)))
    np.testing.assert_array_equal(outm.numpy(), np.where(cv[:, None] < 0, m, c[:, None, None]))
    i = np.arange(n)
    np.testing.assert_array_equal(ints.numpy(), np.where(i[:, None] % 2 == 0,
                                                         np.stack([i, -i], 1), 7))
    v64 = g.normal(size=(n, 3))
    out64 = tack.zeros(n, tack.vector(3, tack.f64))
    pick64(tack.array(v64, dtype=tack.vector(3, tack.f64)), tack.array(c), out64)
    np.testing.assert_array_equal(out64.numpy(), np.where(cv > 0, 0.1, v64))


# -- matrix entries and unpacked vectors ---------------------------------------------------------
@tack.func
def spread(a):
    return tack.vec3(a, a * 2.0, a * 3.0)


@tack.func
def rows_of(a):
    return [[a, 1.0], [2.0, a]]


@tack.func
def pair(a):
    return a, a + 1.0


@tack.kernel
def entries(m, k, out):
    for i in range(out.shape[0]):
        mm = m[i]
        r = ROT
        out[i] = (mm[0, 1] + mm[k[i] % 2, 1 - k[i] % 2] * 10.0 + ROT[0, 1] * 100.0
                  + r[k[i] % 2, 0] * 1000.0 + ROT[-1, -2] * 10000.0)


@tack.kernel
def unpacked(x, v, out):
    for i in range(x.shape[0]):
        a, b, c = spread(x[i])
        r0, r1 = rows_of(x[i])
        p, q, s = v[i]
        lo, hi = pair(x[i])
        out[i] = a + b * 10.0 + c * 100.0 + r0.x + r1.y * 2.0 + p - q + s * 3.0 + lo * hi


def test_matrix_entries_on_host_and_in_kernels(engine):
    assert ROT[0, 1] == -1.0 and ROT[1, 0] == ROT[1][0] == 1.0 and ROT[-1, -1] == 0.0
    n = 6
    g = np.random.default_rng(11)
    m, k = g.normal(size=(n, 2, 2)).astype(np.float32), g.integers(0, 5, n).astype(np.int32)
    out = tack.zeros(n)
    entries(tack.array(m, dtype=tack.mat2), tack.array(k), out)
    rot = np.array([[0.0, -1.0], [1.0, 0.0]])
    i = np.arange(n)
    want = (m[:, 0, 1] + m[i, k % 2, 1 - k % 2] * 10.0 + rot[0, 1] * 100.0
            + rot[k % 2, 0] * 1000.0 + rot[-1, -2] * 10000.0)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-6)


@pytest.mark.parametrize("n", [1, 5])
def test_returned_and_local_vectors_unpack(engine, n):
    g = np.random.default_rng(n)
    x, v = g.normal(size=n).astype(np.float32), g.normal(size=(n, 3)).astype(np.float32)
    out = tack.zeros(n)
    unpacked(tack.array(x), tack.array(v, dtype=tack.vec3), out)
    x64, v64 = x.astype(np.float64), v.astype(np.float64)
    want = (x64 * 321.0 + x64 + x64 * 2.0 + v64[:, 0] - v64[:, 1] + v64[:, 2] * 3.0
            + x64 * (x64 + 1.0))
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-5, atol=1e-5)


def test_locals_after_the_loop_keep_the_disk_cache_key():
    # The parse digest keys cached kernels before the type checker (tack/call/records.py): the
    # typed-only locals after the loop are part of it, so such a kernel is cached like any other.
    from tack.call.records import parse_digest

    pk = scaled.parse_for([tack.zeros((2, 3)), tack.zeros((2, 3)), 2.0])
    assert pk.after is not None and isinstance(parse_digest(pk), str)
