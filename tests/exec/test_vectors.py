"""Vectors, matrices and masks (docs/language.md, "Vectors and matrices"), atomics with vectors,
and the vector cases of "Known corner cases"."""
import numpy as np
import pytest
import tack


def rng(seed=0):
    return np.random.default_rng(seed)


@tack.kernel
def scatter(pos, vel, mass, grid_m, grid_v, inv_dx, n):
    for p in range(n):
        cell = int(pos[p] * inv_dx)                     # a 2-vector of cell indices
        tack.atomic_add(grid_m, cell, mass[p])          # grid_m[cell[0], cell[1]] += ...
        tack.atomic_add(grid_v, (cell[0], cell[1]), mass[p] * vel[p])


def test_seed_scatter(engine):
    g = rng()
    n = 1025
    pos = g.uniform(0, 1, (n, 2)).astype(np.float32)
    vel = g.normal(size=(n, 2)).astype(np.float32)
    mass = g.uniform(0.5, 1, n).astype(np.float32)
    gm, gv = tack.zeros((8, 8)), tack.zeros((8, 8), tack.vec2)
    scatter(tack.array(pos, dtype=tack.vec2), tack.array(vel, dtype=tack.vec2), tack.array(mass),
            gm, gv, 8.0, n)
    cells = (pos * np.float32(8)).astype(np.int32)
    ref_m = np.zeros((8, 8))
    ref_v = np.zeros((8, 8, 2))
    np.add.at(ref_m, (cells[:, 0], cells[:, 1]), mass)
    np.add.at(ref_v, (cells[:, 0], cells[:, 1]), mass[:, None] * vel)
    np.testing.assert_allclose(gm.numpy(), ref_m, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(gv.numpy(), ref_v, rtol=1e-5, atol=1e-5)


@tack.kernel
def rotate_components(v3, out):
    for i in range(v3.shape[0]):
        v = v3[i]
        v = [v[1], v[2], v[0]]            # reads the old components (a known corner case)
        w = v3[i]
        w += w.cross(v)
        out[i] = w
        v3[i] = v3[i].cross(out[i])        # array operands may alias: loaded before stored


def test_self_overwrite_rules(engine):
    h = rng(1).normal(size=(7, 3)).astype(np.float32)
    a, out = tack.array(h, dtype=tack.vec3), tack.zeros(7, tack.vec3)
    rotate_components(a, out)
    v = h[:, [1, 2, 0]]
    w = h + np.cross(h, v)
    np.testing.assert_allclose(out.numpy(), w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(a.numpy(), np.cross(h, w), rtol=1e-5, atol=1e-5)


@tack.kernel
def scalar_into_vector_array(vf, k):
    for i in range(vf.shape[0]):
        vf[i] = 0.0                        # every component (a known corner case)
        vf[i].y = k
        vf[i][2] += 1.0


def test_scalar_store_and_components():
    vf = tack.array(np.ones((4, 3), np.float32), dtype=tack.vec3)
    scalar_into_vector_array(vf, 2.5)
    np.testing.assert_array_equal(vf.numpy(), np.tile([0.0, 2.5, 1.0], (4, 1)))


@tack.kernel
def runtime_index(vf, ks, out):
    for i in range(vf.shape[0]):
        v = vf[i]
        out[i] = v[ks[i]]                  # outside [0, n): the last component
        v[ks[i]] = -1.0                    # outside [0, n): writes nothing
        vf[i] = v


def test_runtime_component_index(engine):
    h = np.arange(15, dtype=np.float32).reshape(5, 3)
    ks = np.array([0, 1, 2, 3, -1], np.int32)
    vf, out = tack.array(h, dtype=tack.vec3), tack.zeros(5)
    runtime_index(vf, tack.array(ks), out)
    np.testing.assert_array_equal(out.numpy(), [0, 4, 8, 11, 14])
    want = h.copy()
    for r, k in enumerate(ks):
        if 0 <= k < 3:
            want[r, k] = -1
    np.testing.assert_array_equal(vf.numpy(), want)


@tack.kernel
def masks(x, lo, out, counts):
    for i in range(x.shape[0]):
        v = x[i]
        m = v > lo
        out[i] = tack.select(m, v, 0.0)
        counts[i] = m.sum() + 10 * all(v > -100.0) + 100 * any(v != v)  # noqa: PLR0124 - NaN


def test_masks_and_select(engine):
    h = rng(2).normal(size=(9, 4)).astype(np.float32)
    h[3, 1] = np.nan
    x, out, c = tack.array(h, dtype=tack.vec4), tack.zeros(9, tack.vec4), tack.zeros(9, tack.i32)
    masks(x, out, c, out) if False else masks(x, -0.25, out, c)
    np.testing.assert_array_equal(out.numpy(), np.where(h > -0.25, h, 0))
    want = (h > -0.25).sum(1) + 10 * (h > -100).all(1) + 100 * np.isnan(h).any(1)
    np.testing.assert_array_equal(c.numpy(), want)


@tack.kernel
def matrices(F, u, det, inv, out):
    for p in range(F.shape[0]):
        A = F[p]
        det[p] = A.determinant()
        inv[p] = A.inverse()
        B = A.transpose() @ A + tack.Matrix.identity(3) * 0.5
        w = u[p]
        out[p] = B @ w + w @ A + w.outer_product(w) @ w + A[0] * A[1, 2]
        F[p][0, 1] = B.trace()


def test_matrix_operations(engine):
    g = rng(3)
    Fh = g.normal(size=(6, 3, 3)).astype(np.float64)
    uh = g.normal(size=(6, 3)).astype(np.float64)
    F = tack.array(Fh, dtype=tack.matrix(3, 3, tack.f64))
    u = tack.array(uh, dtype=tack.vector(3, tack.f64))
    det, inv = tack.zeros(6, tack.f64), tack.zeros(6, tack.matrix(3, 3, tack.f64))
    out = tack.zeros(6, tack.vector(3, tack.f64))
    matrices(F, u, det, inv, out)
    np.testing.assert_allclose(det.numpy(), np.linalg.det(Fh), rtol=1e-10)
    np.testing.assert_allclose(inv.numpy(), np.linalg.inv(Fh), rtol=1e-8, atol=1e-10)
    B = np.transpose(Fh, (0, 2, 1)) @ Fh + 0.5 * np.eye(3)
    want = (np.einsum("pij,pj->pi", B, uh) + np.einsum("pi,pij->pj", uh, Fh)
            + uh * (uh * uh).sum(1, keepdims=True) + Fh[:, 0, :] * Fh[:, 1, 2:3])
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(F.numpy()[:, 0, 1], np.trace(B, axis1=1, axis2=2), rtol=1e-12)


V3D = tack.vector(3, tack.f64)


@tack.kernel
def weak_vectors(x, out):
    for i in range(x.shape[0]):
        v = x[i] * [0.1, 0.2, 0.3]         # f64 array: the literals are exact doubles
        out[i] = v + V3D(1.0) + [1, 2, 3]


def test_vector_literals_follow_the_scalar_rules():
    h = rng(4).normal(size=(3, 3))
    x, out = tack.array(h, dtype=tack.vector(3, tack.f64)), tack.zeros(3, tack.vector(3, tack.f64))
    weak_vectors(x, out)
    np.testing.assert_array_equal(out.numpy(), h * [0.1, 0.2, 0.3] + 1.0 + [1, 2, 3])


@tack.kernel
def bad_mask(x, out):
    for i in range(x.shape[0]):
        if x[i] > 0.0:
            out[i] = 1.0


@tack.kernel
def bad_widths(a, b, out):
    for i in range(a.shape[0]):
        out[i] = a[i] + b[i]


def test_vector_errors():
    x3, s = tack.zeros(2, tack.vec3), tack.zeros(2)
    with pytest.raises(tack.UnsupportedSyntaxError, match="any"):
        bad_mask(x3, s)
    with pytest.raises(TypeError, match="mixes shapes"):
        bad_widths(x3, tack.zeros(2, tack.vec2), x3)
    with pytest.raises(tack.UnsupportedSyntaxError, match="vector or matrix where"):
        bad_widths(x3, x3, s)


def test_vector_arrays_on_the_host():
    a = tack.zeros(5, tack.vec3)
    assert a.shape == (5,) and len(a) == 5 and a.size == 5 and a.dtype is not tack.f32
    assert a.numpy().shape == (5, 3)
    a.fill([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(a.numpy(), np.tile([1, 2, 3], (5, 1)))
    with pytest.raises(ValueError, match=r"\(\.\.\., 3\)"):
        tack.array(np.zeros((4, 2)), dtype=tack.vec3)
    tack.copyto(a, np.zeros((5, 3)))
    assert not a.numpy().any()
