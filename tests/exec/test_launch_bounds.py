"""The parallel loop's bounds accept what the kernel body accepts: a
`tack.constant`, device-class attributes and their arrays' shapes, `len()`, and arithmetic of
those (docs/language.md, "Parallel loop")."""
import pytest
import tack

N = tack.constant(8)
HALF = tack.constant(2, tack.i64)
PAIR = tack.constant((1, 2))


@tack.kernel
def by_constant(out):
    for i in range(N):
        out[i] = 1.0


@tack.kernel
def by_constant_arithmetic(out, k):
    for i in range(HALF, N * k // HALF):
        out[i] = 2.0


@tack.device_class
class Values:
    SCALE = 2

    def __init__(self, values, n):
        self.values = values
        self.n = n

    @tack.kernel
    def fill(self):
        for i in range(self.values.shape[0]):
            self.values[i] = 2.0

    @tack.kernel
    def fill_len(self, out):
        for i in range(len(self.values) - self.n):
            out[i] = self.values[i] + self.SCALE


@tack.device_class
class Holder:
    def __init__(self, inner):
        self.inner = inner


@tack.kernel
def nested_bound(h, out):
    for i in range(h.inner.values.shape[0] // 2):
        out[i] = 3.0


def test_constant_as_launch_bound(engine):
    out = tack.zeros(10, tack.f32)
    by_constant(out)
    assert out.numpy().tolist() == [1.0] * 8 + [0.0] * 2
    out = tack.zeros(10, tack.f32)
    by_constant_arithmetic(out, 2)  # range(2, 8)
    assert out.numpy().tolist() == [0.0] * 2 + [2.0] * 6 + [0.0] * 2


def test_object_attribute_as_launch_bound_in_kernel_method(engine):
    v = Values(tack.zeros(4, tack.f32), 1)
    v.fill()
    assert v.values.numpy().tolist() == [2.0] * 4
    out = tack.zeros(4, tack.f32)
    v.fill_len(out)  # len(self.values) - self.n = 3 iterations
    assert out.numpy().tolist() == [4.0, 4.0, 4.0, 0.0]
    v.values = tack.zeros(6, tack.f32)  # read at every call, one specialization
    v.fill()
    assert v.values.numpy().tolist() == [2.0] * 6
    out = tack.zeros(4, tack.f32)
    nested_bound(Holder(Values(tack.zeros(6, tack.f32), 0)), out)
    assert out.numpy().tolist() == [3.0] * 3 + [0.0]


def test_vector_constant_is_not_a_launch_bound():
    @tack.kernel
    def bad(out):
        for i in range(PAIR):
            out[i] = 1.0

    with pytest.raises(tack.UnsupportedSyntaxError, match="Cannot resolve loop range") as e:
        bad(tack.zeros(2, tack.f32))
    assert "for i in range(PAIR):" in str(e.value)
    assert (e.value.loc.col, e.value.loc.end_col - e.value.loc.col) == (24, 4)


def test_launch_bound_constant_reads_no_argument():
    """A constant bound needs no argument: the kernel is still launched 8 times per call."""
    out = tack.zeros(8, tack.f32)
    for _ in range(2):
        by_constant(out)
    assert out.numpy().tolist() == [1.0] * 8
