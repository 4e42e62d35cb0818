"""A device-function call in an arm of a conditional expression; only the
chosen arm runs (docs/language.md, "Device functions: `@tack.func`")."""
import numpy as np
import pytest
import tack


@tack.func
def bump(a, i):
    a[i] += 1.0
    return a[i]


@tack.func
def twice(x):
    return 2.0 * x


@tack.func
def unit(v):
    return v.normalized()


@tack.kernel
def chosen_arm(x, count, out):
    for i in range(x.shape[0]):
        out[i] = x[i] + (bump(count, i) if x[i] > 0.0 else twice(x[i]))


@tack.kernel
def vector_arms(vf, out):
    for i in range(vf.shape[0]):
        out[i] = unit(vf[i]) if vf[i].x > 0.0 else vf[i]


@tack.kernel
def weak_arm(x, out):
    for i in range(x.shape[0]):
        out[i] = twice(x[i]) if x[i] > 0.0 else 0.1


@tack.kernel
def call_in_and(x, count, out):
    for i in range(x.shape[0]):
        out[i] = x[i] > 0.0 and (bump(count, i) if x[i] > 1.0 else 0.0) > 0.0


def test_device_call_in_conditional_expression(engine):
    x = tack.array(np.array([1.0, -1.0, 2.0], np.float32))
    count, out = tack.zeros(3, tack.f32), tack.zeros(3, tack.f32)
    chosen_arm(x, count, out)
    assert out.numpy().tolist() == [2.0, -3.0, 3.0]
    assert count.numpy().tolist() == [1.0, 0.0, 1.0]  # the arm not chosen did not run


def test_device_call_arms_of_vectors_and_weak_floats(engine):
    vf = tack.array(np.array([[3.0, 4.0, 0.0], [-2.0, 0.0, 0.0]], np.float32), dtype=tack.vec3)
    out = tack.zeros(2, tack.vec3)
    vector_arms(vf, out)
    np.testing.assert_allclose(out.numpy(), [[0.6, 0.8, 0.0], [-2.0, 0.0, 0.0]], rtol=1e-6)
    x, o = tack.array(np.array([1.5, -1.0])), tack.zeros(2, tack.f64)
    weak_arm(x, o)
    assert o.numpy().tolist() == [3.0, 0.1]  # 0.1 meets the f64 arm: the exact double


def test_device_call_in_a_lazy_context_is_still_rejected():
    with pytest.raises(tack.UnsupportedSyntaxError, match=r"call of device function 'bump' "
                                                          r"inside `and`, `or` or a conditional"):
        call_in_and(tack.zeros(2, tack.f32), tack.zeros(2, tack.f32), tack.zeros(2, tack.f32))
