"""A weak float literal returned by a @tack.func stays weak whatever the function's shape: returned
from two branches, or as the components of a vector (docs/language.md, "Literals": NEP 50 style,
it takes the type of what it meets). In an f64 kernel it is the exact double, beside f32 it is
the f32 literal, on every engine alike."""
import numpy as np
import pytest
import tack


@tack.func
def pick(c):
    if c > 0.0:
        return 0.1
    return 0.2


@tack.func
def center():
    return tack.Vector([1.0 / 3.0, 0.1, 0.5])


@tack.func
def tenth():
    return 0.1


@tack.kernel
def through_functions(x, y, out):
    for i in range(x.shape[0]):
        out[i, 0] = x[i] * pick(x[i])        # two returns, met by x's precision
        out[i, 1] = x[i] * pick(-x[i])
        out[i, 2] = x[i] * center()[0]       # a vector of weak literals
        v = center()
        out[i, 3] = x[i] * v[1]
        r = pick(x[i])                       # a copy of the returned value
        out[i, 4] = y[i] * r                 # met by y's precision
        out[i, 5] = x[i] * (tenth() if x[i] > 2.0 else 0.2)  # an arm calling a function
        w = [0.1, 0.2]
        w.x = 0.5                            # changed in place: an ordinary vector local
        out[i, 6] = w[0] + w[1]


def expected(x, y, ft):
    """Each literal converted once to the precision it meets, the products rounded in it."""
    x = x.astype(ft)
    one = [np.where(x > 0, 0.1, 0.2).astype(ft) * x, np.where(-x > 0, 0.1, 0.2).astype(ft) * x,
           x * ft(1.0 / 3.0), x * ft(0.1)]
    four = y * np.where(x > 0, 0.1, 0.2).astype(y.dtype)
    five = x * np.where(x > 2, 0.1, 0.2).astype(ft)
    w = np.float32(0.5) + np.float32(0.2)  # `w` is an f32 vector local
    return np.stack(one + [four.astype(np.float64), five, np.full_like(x, w)], axis=1)


@pytest.mark.parametrize("ft,gt", [(np.float64, np.float32), (np.float32, np.float64),
                                   (np.float64, np.float64)])
def test_weak_literals_through_device_functions(engine, ft, gt):
    x = np.array([1.0, -1.0, 3.0, 0.5, -7.0, 2.5, 11.0], ft)
    y = np.array([3.0, 1.0, -2.0, 5.0, 0.25, 9.0, -1.0], gt)
    out = tack.zeros((7, 7), tack.f64)
    through_functions(tack.array(x), tack.array(y), out)
    np.testing.assert_array_equal(out.numpy(), expected(x, y, ft))


def test_f32_kernel_gets_no_f64_local():
    """Only the precisions the reads meet are stored: an all-f32 kernel has no f64 local."""
    x, y = tack.array(np.ones(3, np.float32)), tack.array(np.ones(3, np.float32))
    ir = tack.inspect(through_functions, x, y, tack.zeros((3, 7), tack.f32), mode="ir")
    assert "f64" not in ir.split("for launch_index")[0], ir
