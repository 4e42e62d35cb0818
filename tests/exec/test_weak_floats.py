"""A weak float literal stays weak through every binding (a copy, a conditional
expression, a @tack.func's parameter and return) in an f64 kernel, and still meets f32 as f32
(docs/language.md, "Integer and float rules")."""
import numpy as np
import tack


@tack.func
def tenth():
    return 0.1


@tack.func
def same(x):
    return x


@tack.kernel
def bindings(x, out):
    for i in range(1):
        d = 0.1
        e = d                          # a copy
        out[0] = e
        c = 0.1 if x[0] > 0.0 else 0.2  # a conditional expression
        out[1] = c
        r = tenth()                    # a device function's return
        out[2] = r
        out[3] = x[0] * e
        out[4] = x[0] * c
        out[5] = same(0.1)             # through a parameter
        f = d * 3.0                    # arithmetic of weak locals
        out[6] = f
        out[7] = x[0] * (c if x[0] > 0.0 else d)


def test_weak_floats_through_bindings_f64(engine):
    x, out = tack.array(np.ones(1)), tack.zeros(8, tack.f64)
    bindings(x, out)
    got = out.numpy()
    assert got[:6].tolist() == [0.1] * 6
    assert got[6] == 0.1 * 3.0
    assert got[7] == 0.1


def test_weak_floats_through_bindings_f32(engine):
    x, out = tack.array(np.ones(1, np.float32)), tack.zeros(8, tack.f32)
    bindings(x, out)
    got = out.numpy()
    assert got[:6].tolist() == [np.float32(0.1)] * 6
    assert got[6] == np.float32(0.1) * np.float32(3.0)


def test_weak_conditional_evaluates_its_condition_once_in_place(engine):
    """The condition is stored where the assignment stands: a later change of the array it read
    does not change the local."""
    @tack.kernel
    def later(x, out):
        for i in range(x.shape[0]):
            c = 0.5 if x[i] > 0.0 else 0.25
            x[i] = -x[i]
            out[i] = c

    x, out = tack.array(np.array([1.0, -1.0])), tack.zeros(2, tack.f64)
    later(x, out)
    assert out.numpy().tolist() == [0.5, 0.25]
