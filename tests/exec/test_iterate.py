"""`for c in obj` over a device-class object whose class declares `__tack_iterate__`
(docs/language.md, "Parallel loop"):
one name → `c` is an integer over range(obj.name); two or three names (fastest first) → `c` is the
vector of indices over an ndrange, `c[0]` the index over the first name, varying fastest."""
import numpy as np
import pytest
import tack


@pytest.fixture(autouse=True)
def cpu():
    tack.set_default_device("cpu")


@tack.device_class
class Line:
    __tack_iterate__ = ("n",)

    def __init__(self, values, n):
        self.values = values
        self.n = n  # an instance int: a runtime size, read at every call

    @tack.kernel
    def scale(self, out, k):  # a kernel method: `for c in self`
        for c in self:
            out[c] = self.values[c] * k


@tack.device_class
class Fixed:
    __tack_iterate__ = "n"  # a single name may be a plain string, as for __slots__
    n = 5  # a class constant: compiled in

    def __init__(self, out):
        self.out = out


@tack.device_class
class Grid:
    __tack_iterate__ = ("nx", "ny")  # fastest first: c[0] runs over nx, c[1] over ny

    def __init__(self, field):
        self.field = field
        self.ny, self.nx = field.shape


@tack.device_class
class Volume:
    __tack_iterate__ = ("nx", "ny", "nz")

    def __init__(self, nx, ny, nz):
        self.nx, self.ny, self.nz = nx, ny, nz


@tack.device_class
class Holder:
    def __init__(self, grid, bias):
        self.grid = grid
        self.bias = bias


@tack.kernel
def squares(line, out):
    for c in line:
        out[c] = line.values[c] * line.values[c] + c


@tack.kernel
def fixed_fill(f):
    for c in f:
        f.out[c] = 10 * c + 1


@tack.kernel
def grid_fill(g, out):
    for c in g:
        out[c[1], c[0]] = g.field[c[1], c[0]] * 2.0 + (c[0] - 1000 * c[1])  # one rounding


@tack.kernel
def grid_order(g, counter, seq, xs, ys):
    for c in g:
        pos = tack.atomic_add(counter, 0, 1)  # the order in which iterations ran
        seq[pos] = c[0] + g.nx * c[1]
        xs[c[1], c[0]] = c.x
        ys[c[1], c[0]] = c.y


@tack.kernel
def volume_fill(v, out):
    for c in v:
        out[c[2], c[1], c[0]] = c[0] + 100 * c[1] + 10000 * c[2] + c.sum() - c.sum()


@tack.kernel
def nested_fill(h, out):
    for c in h.grid:
        out[c[1], c[0]] = h.grid.field[c[1], c[0]] + h.bias


@tack.kernel
def range_of_attr(line, out):
    n = line.n
    for i in range(1, n - 1):  # the attribute in an ordinary range bound
        out[i] = i


@pytest.mark.parametrize("n", [1, 2, 7, 1025])
def test_one_name_instance_int(n):
    h = np.random.default_rng(n).normal(size=n + 3).astype(np.float32)
    out = tack.zeros(n + 3)
    squares(Line(tack.array(h), n), out)
    want = np.zeros(n + 3, np.float32)
    want[:n] = h[:n] * h[:n] + np.arange(n)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-6)


def test_one_name_size_is_read_at_every_call():
    h = np.arange(20, dtype=np.float32)
    out = tack.zeros(20)
    line = Line(tack.array(h), 3)
    squares(line, out)
    line.n = 11  # same specialization, a new size
    squares(line, out)
    want = np.zeros(20, np.float32)
    want[:11] = h[:11] ** 2 + np.arange(11)
    np.testing.assert_array_equal(out.numpy(), want)
    line.n = 0  # an empty domain runs nothing
    squares(line, tack.zeros(1))


def test_one_name_class_constant():
    out = tack.zeros(8, tack.i32)
    fixed_fill(Fixed(out))
    np.testing.assert_array_equal(out.numpy(), [1, 11, 21, 31, 41, 0, 0, 0])


def test_kernel_method_iterates_self():
    h = np.arange(9, dtype=np.float32)
    line = Line(tack.array(h), 7)
    out = tack.zeros(9)
    line.scale(out, 3.0)
    want = np.zeros(9, np.float32)
    want[:7] = 3 * h[:7]
    np.testing.assert_array_equal(out.numpy(), want)


@pytest.mark.parametrize("shape", [(1, 1), (1, 7), (7, 1), (3, 13), (2, 1025)])
def test_two_names(shape):
    h = np.random.default_rng(0).normal(size=shape).astype(np.float32)
    out = tack.zeros(shape)
    grid_fill(Grid(tack.array(h)), out)
    y, x = np.indices(shape)
    np.testing.assert_allclose(out.numpy(), h.astype(np.float64) * 2 + (x - 1000 * y),
                               rtol=1e-6)


def test_two_names_component_order():
    """c[0] (== c.x) is the index over the first name and varies fastest: with one thread the
    iterations run in launch order, which is c[0] + nx * c[1]."""
    tack.set_default_device("cpu", num_threads=1)
    ny, nx = 5, 7
    g = Grid(tack.zeros((ny, nx)))
    counter, seq = tack.zeros(1, tack.i32), tack.zeros(nx * ny, tack.i32)
    xs, ys = tack.zeros((ny, nx), tack.i32), tack.zeros((ny, nx), tack.i32)
    grid_order(g, counter, seq, xs, ys)
    y, x = np.indices((ny, nx))
    np.testing.assert_array_equal(xs.numpy(), x)
    np.testing.assert_array_equal(ys.numpy(), y)
    np.testing.assert_array_equal(seq.numpy(), np.arange(nx * ny))
    ir = tack.inspect(grid_order, g, counter, seq, xs, ys, mode="ir")
    assert "g.nx" in ir and "g.ny" in ir


@pytest.mark.parametrize("sizes", [(1, 1, 1), (3, 1, 2), (7, 5, 3), (1025, 2, 1), (2, 1, 13)])
def test_three_names(sizes):
    nx, ny, nz = sizes
    out = tack.zeros((nz, ny, nx), tack.i32)
    volume_fill(Volume(nx, ny, nz), out)
    z, y, x = np.indices((nz, ny, nx))
    np.testing.assert_array_equal(out.numpy(), x + 100 * y + 10000 * z)


def test_nested_object_and_range_of_attribute():
    h = np.random.default_rng(1).normal(size=(3, 5)).astype(np.float32)
    out = tack.zeros((3, 5))
    nested_fill(Holder(Grid(tack.array(h)), 0.5), out)
    np.testing.assert_array_equal(out.numpy(), h + np.float32(0.5))
    o = tack.zeros(12, tack.i32)
    range_of_attr(Line(tack.zeros(1), 9), o)
    np.testing.assert_array_equal(o.numpy(), [0] + list(range(1, 8)) + [0] * 4)


# -- errors ------------------------------------------------------------------------------------

@tack.device_class
class Plain:
    def __init__(self, n):
        self.n = n


@tack.device_class
class Four:
    __tack_iterate__ = ("a", "b", "c", "d")
    a = b = c = d = 2


@tack.device_class
class Empty:
    __tack_iterate__ = ()


@tack.device_class
class FloatSize:
    __tack_iterate__ = ("n",)

    def __init__(self, n):
        self.n = n


@tack.device_class
class ArraySize:
    __tack_iterate__ = ("values",)

    def __init__(self, values):
        self.values = values


@tack.device_class
class Missing:
    __tack_iterate__ = ("nx", "size")
    nx = 3


@tack.device_class
class ClassFloat:
    __tack_iterate__ = ("n",)
    n = 2.5


@tack.kernel
def iterate(obj, out):
    for c in obj:
        out[0] = 1


@tack.kernel
def iterate_array(a, out):
    for c in a:
        out[0] = c


@tack.kernel
def unpacks(g, out):
    for i, j in g:
        out[0] = i + j


def test_missing_declaration_is_a_type_error():
    out = tack.zeros(1)
    with pytest.raises(TypeError, match=r"a Plain cannot be iterated in a kernel: its class "
                                        r"declares no __tack_iterate__") as e:
        iterate(Plain(4), out)
    assert isinstance(e.value, tack.TackError)
    assert "test_iterate.py:" in str(e.value) and "hint:" in str(e.value)
    np.testing.assert_array_equal(out.numpy(), [0.0])  # nothing launched


@pytest.mark.parametrize("obj,match", [
    (Four(), r"Four.__tack_iterate__ = \('a', 'b', 'c', 'd'\) must be a tuple of one to three"),
    (Empty(), r"Empty.__tack_iterate__ = \(\) must be a tuple of one to three"),
    (FloatSize(2.0), r"names 'n', which is a float; each name must be an integer size"),
    (ArraySize(tack.zeros(3)), r"names 'values', which is an array"),
    (Missing(), r"names 'size', which is not an integer attribute of the object"),
    (ClassFloat(), r"names 'n', which is a float"),
])
def test_bad_declarations(obj, match):
    out = tack.zeros(1)
    with pytest.raises(TypeError, match=match):
        iterate(obj, out)
    np.testing.assert_array_equal(out.numpy(), [0.0])


def test_iterating_an_array_is_unsupported():
    with pytest.raises(tack.UnsupportedSyntaxError,
                       match=r"parallel loop over 'a', which is not a device-class argument "
                             r"at line \d+, column \d+") as e:
        iterate_array(tack.zeros(3), tack.zeros(1))
    assert "test_iterate.py:" in str(e.value) and "hint:" in str(e.value)
    assert "range(a.shape[0])" in str(e.value)


def test_tuple_target_is_unsupported():
    with pytest.raises(tack.UnsupportedSyntaxError, match=r"target is not a single name"):
        unpacks(Grid(tack.zeros((2, 3))), tack.zeros(1))
