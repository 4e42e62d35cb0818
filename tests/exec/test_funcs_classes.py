"""@tack.func device functions and @tack.device_class objects (docs/language.md, "Device
functions: `@tack.func`" and "Device classes: `@tack.device_class`")."""
import numpy as np
import pytest
import tack

from tests.kernels.language import Field, Mover, sample


@tack.device_class
class CellSetExplicit:
    points_per_cell = 4  # fixed topology; compile-time allocation size

    def __init__(self, connectivity):
        self.connectivity = connectivity

    @tack.func
    def get_cell_points(self, cell_id, pts):
        for v in range(self.points_per_cell):
            pts[v] = self.connectivity[cell_id * self.points_per_cell + v]

    @tack.func
    def get_point_id(self, cell_id, v):
        return self.connectivity[cell_id * self.points_per_cell + v]


@tack.device_class
class CellType:
    num_points = 4

    def __init__(self, bias):
        self.bias = bias  # an instance scalar: a runtime parameter

    @tack.func
    def weight(self, v, r, s, t):
        return 0.25 + self.bias * (v - 1.5) * (r - s + t)


@tack.kernel
def cell_average(cs, data, out, n_cells):
    for c in range(n_cells):
        pts = tack.local_array(tack.i32, cs.points_per_cell)
        cs.get_cell_points(c, pts)      # fills pts in one call
        total = 0.0
        for v in range(cs.points_per_cell):
            total = total + data[pts[v]]
        out[c] = total / float(cs.points_per_cell)


@tack.kernel
def cached_interp(cs, ct,
                  array1, array2, out1, out2, n_cells):
    for c in range(n_cells):
        # Compute weights once, reuse for both arrays
        w = tack.local_array(tack.f32, ct.num_points)
        pid = tack.local_array(tack.i32, ct.num_points)
        for v in range(ct.num_points):
            w[v] = ct.weight(v, 0.5, 0.5, 0.5)
            pid[v] = cs.get_point_id(c, v)

        v1 = 0.0
        v2 = 0.0
        for v in range(ct.num_points):
            v1 = v1 + w[v] * array1[pid[v]]
            v2 = v2 + w[v] * array2[pid[v]]
        out1[c] = v1
        out2[c] = v2


def _mesh(n_cells=10, n_points=50, seed=0):
    rng = np.random.default_rng(seed)
    conn = rng.integers(0, n_points, size=4 * n_cells).astype(np.int32)
    return conn, rng.normal(size=n_points).astype(np.float32), rng.normal(size=n_points).astype(
        np.float32)


def test_seed_cell_average(engine):
    conn, data, _ = _mesh()
    out = tack.zeros(10)
    cell_average(CellSetExplicit(tack.array(conn)), tack.array(data), out, 10)
    ref = data[conn.reshape(10, 4)].astype(np.float64).mean(axis=1)
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-6, atol=1e-6)


def test_seed_cached_interp(engine):
    conn, a1, a2 = _mesh(13)
    o1, o2 = tack.zeros(13), tack.zeros(13)
    ct = CellType(0.125)
    cached_interp(CellSetExplicit(tack.array(conn)), ct, tack.array(a1), tack.array(a2), o1, o2,
                  13)
    v = np.arange(4)
    w = (0.25 + 0.125 * (v - 1.5) * 0.5).astype(np.float64)
    ids = conn.reshape(13, 4)
    np.testing.assert_allclose(o1.numpy(), (w * a1[ids]).sum(1), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(o2.numpy(), (w * a2[ids]).sum(1), rtol=1e-5, atol=1e-6)
    # An instance scalar is a runtime value: a new bias reuses the compiled kernel.
    before = sum(len(s.variants) for s in cached_interp._plans.values())
    cached_interp(CellSetExplicit(tack.array(conn)), CellType(0.5), tack.array(a1),
                  tack.array(a2), o1, o2, 13)
    assert sum(len(s.variants) for s in cached_interp._plans.values()) == before


@tack.func
def level3(a, i):
    a[i] = a[i] + 1.0


@tack.func
def level2(a, i):
    level3(a, i)
    return a[i] * 2.0


@tack.func
def level1(a, i):
    return level2(a, i) + 1.0


@tack.func
def sort2(x, y):
    t = x
    if y < x:
        return y, t
    return x, y


@tack.func
def first_positive(a, b):
    if a > 0.0:
        return a
    return b


@tack.kernel
def uses_funcs(a, lo, hi, out):
    for i in range(a.shape[0]):
        t = 100.0  # the callee's local `t` must not clobber this one
        x, y = sort2(a[i], 0.5)
        lo[i] = x
        hi[i] = y
        out[i] = level1(a, i) + first_positive(a[i] - 1.0, t)


def test_nested_tuple_and_early_returns(engine):
    h = np.linspace(-1, 3, 17).astype(np.float32)
    a, lo, hi, out = tack.array(h), tack.zeros(17), tack.zeros(17), tack.zeros(17)
    uses_funcs(a, lo, hi, out)
    np.testing.assert_array_equal(lo.numpy(), np.minimum(h, 0.5))
    np.testing.assert_array_equal(hi.numpy(), np.maximum(h, 0.5))
    inc = h + np.float32(1)  # level3 wrote the array in place, through two levels
    np.testing.assert_array_equal(a.numpy(), inc)
    fp = np.where(inc - 1 > 0, inc - 1, 100.0)
    np.testing.assert_allclose(out.numpy(), inc * 2 + 1 + fp, rtol=1e-6)


@tack.func
def fill(buf, n, value):
    for k in range(n):
        buf[k] = value


@tack.kernel
def local_alias(out):
    for i in range(out.shape[0]):
        buf = tack.local_array(tack.f32, 3)
        fill(buf, 3, float(i))
        out[i] = buf[0] + buf[1] + buf[2]


def test_local_array_passed_by_reference():
    out = tack.zeros(5)
    local_alias(out)
    np.testing.assert_array_equal(out.numpy(), 3 * np.arange(5))


@tack.device_class
class ScaledField(Field):
    factor = 5  # overrides the constant; `value` is inherited


def test_inheritance_and_constants_specialize():
    h = np.arange(6, dtype=np.float32)
    out = tack.zeros(6)
    sample(Field(tack.array(h), 1.0), out)
    np.testing.assert_array_equal(out.numpy(), h * 3 + 1)
    sample(ScaledField(tack.array(h), 0.5), out)
    np.testing.assert_array_equal(out.numpy(), h * 5 + 0.5)


def test_kernel_as_method(engine):
    p, v = np.zeros(4, np.float32), np.arange(4, dtype=np.float32)
    m = Mover(tack.array(p), tack.array(v))
    m.step(0.5, 4)
    m.step(0.5, 4)
    np.testing.assert_array_equal(m.pos.numpy(), v)
    assert "self.pos" in tack.inspect(m.step, 0.5, 4, mode="ir")


@tack.func
def fact(n):
    return n * fact(n - 1)


@tack.func
def loop_return(n):
    for k in range(n):
        return k
    return 0


@tack.kernel
def calls_fact(out):
    for i in range(out.shape[0]):
        out[i] = fact(3)


@tack.kernel
def calls_loop_return(out):
    for i in range(out.shape[0]):
        out[i] = loop_return(3)


@tack.func
def bump(a):
    a[0] = 1.0
    return 2


@tack.kernel
def prologue_effect(a, out):
    k = bump(a)
    for i in range(out.shape[0]):
        out[i] = k


@tack.device_class
class NoWeight:
    def __init__(self, weight):
        self.weight = "not a number"


@tack.kernel
def reads_weight(obj, out):
    for i in range(out.shape[0]):
        out[i] = obj.weight


def test_rejections():
    out = tack.zeros(2)
    with pytest.raises(tack.UnsupportedSyntaxError, match="recursive call of device function "
                                                          "'fact'"):
        calls_fact(out)
    with pytest.raises(tack.UnsupportedSyntaxError, match=r"Device function 'loop_return' "
                                                          r"\(inlined into kernel "
                                                          r"'calls_loop_return'\): return inside "
                                                          r"a loop"):
        calls_loop_return(out)
    with pytest.raises(tack.UnsupportedSyntaxError, match="store .* is outside the parallel loop"):
        prologue_effect(tack.zeros(1), out)
    with pytest.raises(ValueError, match=r"obj.weight .* is neither a class constant"):
        reads_weight(NoWeight(1), out)
    with pytest.raises(RuntimeError, match=r"@tack.func 'fact' cannot be called from Python"):
        fact(3)
    with pytest.raises(TypeError):
        tack.func(3)
    np.testing.assert_array_equal(out.numpy(), np.zeros(2))


@tack.device_class
class Inner:
    k = 2

    def __init__(self, values):
        self.values = values

    @tack.func
    def at(self, i):
        return self.values[i] * self.k


@tack.device_class
class Outer:
    def __init__(self, inner, bias):
        self.inner = inner
        self.bias = bias

    @tack.func
    def value(self, i):
        return self.inner.at(i) + self.bias


@tack.kernel
def nested_objects(o, out):
    for i in range(out.shape[0]):
        out[i] = o.value(i) + o.inner.k


def test_nested_device_classes():
    h = np.arange(5, dtype=np.float32)
    out = tack.zeros(5)
    nested_objects(Outer(Inner(tack.array(h)), 0.5), out)
    np.testing.assert_array_equal(out.numpy(), h * 2 + 0.5 + 2)
    assert "o.inner.values" in tack.inspect(nested_objects, Outer(Inner(tack.array(h)), 0.5),
                                              out, mode="ir")
