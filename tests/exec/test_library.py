"""Library code written in Tack's kernel language: tack.math, tack.random, tack.texture3d,
vector/matrix constants (docs/language.md: "Builtins", "Constants", "Random numbers",
"Textures")."""
import numpy as np
import pytest
import tack
from tack import math as tm
from tack import random

W3 = tack.constant((0.25, 0.5, 0.25))
IDX = tack.constant((3, 1, 2), tack.i32)
ROT = tack.constant(((0.0, -1.0), (1.0, 0.0)))


@tack.kernel
def shade(x, v, out, out3, k):
    for i in range(x.shape[0]):
        a = x[i]
        out[i] = (tm.clamp(a, 0.0, 1.0) + tm.smoothstep(0.0, 1.0, a) + tm.fract(a)
                  + tm.step(0.5, a) + tm.sign(a) + tm.mix(1.0, 3.0, 0.25) + W3[k] + IDX[k + 5])
        out3[i] = tm.normalize(v[i]) * tm.length(v[i]) + tm.saturate(v[i]) + W3 \
            + tm.distance(v[i], v[i])


def test_tack_math_and_constants(engine):
    h = np.linspace(-1, 2, 13).astype(np.float32)
    V = np.random.default_rng(0).normal(size=(13, 3)).astype(np.float32)
    o, o3 = tack.zeros(13), tack.zeros(13, tack.vec3)
    shade(tack.array(h), tack.array(V, dtype=tack.vec3), o, o3, 1)
    c = np.clip(h, 0, 1)
    ref = (c + c * c * (3 - 2 * c) + (h - np.floor(h)) + (h >= 0.5) + np.sign(h) + 1.5 + 0.5
           + 2)  # IDX[6] is outside the table: the last value
    np.testing.assert_allclose(o.numpy(), ref, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(o3.numpy(), V + np.clip(V, 0, 1) + [0.25, 0.5, 0.25], rtol=1e-6,
                               atol=1e-6)
    assert tuple(W3) == (0.25, 0.5, 0.25) and np.asarray(ROT).shape == (2, 2)


@tack.kernel
def init_particles(pos, vel, n, frame):
    for i in range(n):
        state = random.seed(i, frame)          # element i of this frame
        u, state = random.uniform(state)       # f32 in [0, 1)
        z, state = random.normal(state)        # standard normal
        d, state = random.direction3(state)    # a unit 3-vector; direction2 for 2-D
        pos[i] = d * (0.4 + 0.6 * u)
        vel[i] = d * z


@tack.kernel
def raw_draws(states, us, d2, n, frame):
    for i in range(n):
        s = random.seed(i, frame)
        states[i, 0] = s
        u, s = random.uniform(s)
        us[i] = u
        states[i, 1] = s
        d, s = random.direction2(s)
        d2[i] = d
        states[i, 2] = s


def test_seed_init_particles_matches_mirrors(engine):
    n = 4099
    pos, vel = tack.zeros(n, tack.vec3), tack.zeros(n, tack.vec3)
    init_particles(pos, vel, n, 7)
    s = random.np_seed(np.arange(n), 7)
    u, s = random.np_uniform(s)
    z, s = random.np_normal(s)
    d, s = random.np_direction3(s)
    np.testing.assert_allclose(pos.numpy(), d * (np.float32(0.4) + np.float32(0.6) * u)[:, None],
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(vel.numpy(), d * z[:, None], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(pos.numpy(), axis=1), 0.4 + 0.6 * u, rtol=1e-5)
    assert 0.0 <= u.min() and u.max() < 1.0 and abs(z.mean()) < 0.1 and abs(z.std() - 1) < 0.1


def test_uniform_and_states_bit_identical(engine):
    n = 1025
    states, us = tack.zeros((n, 3), tack.u32), tack.zeros(n)
    d2 = tack.zeros(n, tack.vec2)
    raw_draws(states, us, d2, n, 123456)
    s0 = random.np_seed(np.arange(n), 123456)
    u, s1 = random.np_uniform(s0)
    d, s2 = random.np_direction2(s1)
    np.testing.assert_array_equal(states.numpy(), np.stack([s0, s1, s2], axis=1))
    np.testing.assert_array_equal(us.numpy(), u)
    np.testing.assert_allclose(d2.numpy(), d, rtol=1e-6, atol=1e-6)
    # The algorithm of docs/language.md, "Random numbers", checked against Python integers.
    def adv(s):
        x = (s * 747796405 + 2891336453) & 0xFFFFFFFF
        w = (((x >> ((x >> 28) + 4)) ^ x) * 277803737) & 0xFFFFFFFF
        return (w >> 22) ^ w
    assert int(s0[5]) == adv(5 ^ adv(123456))


@tack.func
def probe(tex, u):
    return tex.sample(u, 0.5, 0.5)


@tack.kernel
def sample_volume(tex, output, n):
    for i in range(n):
        u = float(i) / float(n)
        output[i] = probe(tex, u)  # sampling inside a @tack.func


def _trilinear(vol, u, v, w):
    D, H, W = vol.shape
    x, y, z = (np.clip(c, 0, 1) * (m - 1) for c, m in ((u, W), (v, H), (w, D)))
    i0, j0, k0 = np.floor(x).astype(int), np.floor(y).astype(int), np.floor(z).astype(int)
    i1, j1, k1 = np.minimum(i0 + 1, W - 1), np.minimum(j0 + 1, H - 1), np.minimum(k0 + 1, D - 1)
    fx, fy, fz = x - i0, y - j0, z - k0
    c = lambda k, j, i: vol[k, j, i].astype(np.float64)
    c00 = c(k0, j0, i0) * (1 - fx) + c(k0, j0, i1) * fx
    c01 = c(k0, j1, i0) * (1 - fx) + c(k0, j1, i1) * fx
    c10 = c(k1, j0, i0) * (1 - fx) + c(k1, j0, i1) * fx
    c11 = c(k1, j1, i0) * (1 - fx) + c(k1, j1, i1) * fx
    return (c00 * (1 - fy) + c01 * fy) * (1 - fz) + (c10 * (1 - fy) + c11 * fy) * fz


def test_texture_snapshot_update_and_sampling(engine):
    W, H, D = 5, 4, 3
    volume_data = np.random.default_rng(1).normal(size=(D, H, W)).astype(np.float32)
    data = tack.empty((W * H * D,))
    tack.copyto(data, volume_data.ravel())
    tex = tack.texture3d(data, shape=(W, H, D))
    n = 17
    out = tack.zeros(n)
    sample_volume(tex, out, n)
    u = np.arange(n, dtype=np.float32) / np.float32(n)
    ref = _trilinear(volume_data, u, 0.5, 0.5)
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-5, atol=1e-6)
    tack.copyto(data, np.zeros(W * H * D, np.float32))
    sample_volume(tex, out, n)
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-5, atol=1e-6)  # still the snapshot
    tex.update()
    sample_volume(tex, out, n)
    assert not out.numpy().any()


def test_texture_errors():
    with pytest.raises(TypeError, match="f32"):
        tack.texture3d(tack.zeros(8, tack.f64), shape=(2, 2, 2))
    with pytest.raises(ValueError, match="holds 27 texels"):
        tack.texture3d(tack.zeros(8), shape=(3, 3, 3))
    with pytest.raises(ValueError, match="linear"):
        tack.texture3d(tack.zeros(8), shape=(2, 2, 2), interp="nearest")
    with pytest.raises(ValueError, match="3D shape"):
        tack.texture3d(tack.zeros(8))


@tack.kernel
def constant_methods(out):
    for i in range(out.shape[0]):
        out[i] = W3.dot([1.0, 2.0, 3.0]) + W3.sum() + W3.x + ROT.determinant() + ROT[1, 0]


def test_vector_constants_have_methods_and_components():
    out = tack.zeros(2)
    constant_methods(out)
    np.testing.assert_allclose(out.numpy(), 2.0 + 1.0 + 0.25 + 1.0 + 1.0)
