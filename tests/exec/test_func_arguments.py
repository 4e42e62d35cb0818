"""A `@tack.func` as a kernel argument (docs/language.md, "Device functions as arguments"): a
compile-time argument inlined where the parameter is called, by position or keyword, on every
engine without a GPU; its own specialization; served by the prebuilt call path; and refused with
a TypeError before launch where a value stands for a function or a function for a value."""
import numpy as np
import pytest
import tack


@tack.func
def add(a, b):
    return a + b


@tack.func
def mul(a, b):
    return a * b


@tack.func
def apply(f, a, b):
    return f(a, b)


@tack.kernel
def pairwise(x, out, combine):
    for i in range(out.shape[0]):
        out[i] = combine(x[2 * i], x[2 * i + 1])


@tack.kernel
def passed_on(combine, x, out):
    for i in range(out.shape[0]):
        out[i] = apply(combine, x[2 * i], x[2 * i + 1])


@tack.kernel
def two_steps(x, out, first, then):
    for i in range(out.shape[0]):
        out[i] = then(first(x[i], x[i]), x[i])


@pytest.mark.parametrize("n", [1, 7, 64])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_each_function_is_inlined_where_the_parameter_is_called(engine, n, dtype):
    v = (np.arange(2 * n) % 11 - 4).astype(dtype)
    x, out = tack.array(v), tack.zeros(n, dtype)
    want = {add: v[0::2] + v[1::2], mul: v[0::2] * v[1::2]}
    for f in (add, mul, add):  # each its own variant; the first again reuses its own
        pairwise(x, out, f)
        np.testing.assert_array_equal(out.numpy(), want[f])
    pairwise(x, out, combine=mul)
    np.testing.assert_array_equal(out.numpy(), want[mul])
    passed_on(add, x, out)
    np.testing.assert_array_equal(out.numpy(), want[add])
    x3 = tack.array(v[:n])
    two_steps(x3, out, mul, add)  # x*x + x
    np.testing.assert_array_equal(out.numpy(), v[:n] * v[:n] + v[:n])
    two_steps(x3, out, then=mul, first=add)  # (x+x)*x
    np.testing.assert_array_equal(out.numpy(), (v[:n] + v[:n]) * v[:n])


def test_a_specialization_per_function_and_the_prebuilt_path_serves_them():
    x, out = tack.array(np.arange(8, dtype=np.float32)), tack.zeros(4)

    @tack.kernel
    def fresh(x, out, combine):
        for i in range(out.shape[0]):
            out[i] = combine(x[2 * i], x[2 * i + 1])

    for _ in range(3):
        fresh(x, out, add)
    (plan,) = fresh._plans.values()
    (variant,) = plan.variants.values()
    assert variant.fast is not None  # built at the second call, taken at the third
    assert fresh._entry == variant.fast.call
    assert variant.fast((x, out, add)) is None  # a launch, not a miss
    from tack.call.fast import MISS

    assert variant.fast((x, out, mul)) is MISS  # another function: the general path
    fresh(x, out, mul)
    np.testing.assert_array_equal(out.numpy(), [0, 6, 20, 42])
    assert len(fresh._plans) == 2


@tack.kernel
def adds_one(x, out, combine):
    for i in range(out.shape[0]):
        out[i] = combine + x[i]


def test_errors_come_before_launch():
    x, out = tack.array(np.arange(8, dtype=np.float32)), tack.zeros(4)
    with pytest.raises(TypeError, match=r"'combine' is called, but it holds a value, not a "
                                        r"@tack\.func") as e:
        pairwise(x, out, 2.0)
    assert e.value.loc.line == pairwise.fn.__code__.co_firstlineno + 3
    with pytest.raises(TypeError, match=r"'f' is called, but it holds a value"):
        passed_on(1, x, out)
    with pytest.raises(TypeError, match=r"<class 'function'>\. A function passed to a kernel "
                                        r"is a @tack\.func"):
        pairwise(x, out, lambda a, b: a + b)
    with pytest.raises(TypeError, match=r"device function 'add' \(given for 'combine'\) used "
                                        r"as a value"):
        adds_one(x, out, add)
    with pytest.raises(TypeError, match="has no parameter 'combin'"):
        pairwise(x, out, combin=add)
    with pytest.raises(TypeError, match="no argument for 'out'"):
        pairwise(x, combine=add)
    np.testing.assert_array_equal(out.numpy(), np.zeros(4))  # nothing ran


def test_inspect_shows_the_inlined_function():
    x, out = tack.array(np.arange(8, dtype=np.float32)), tack.zeros(4)
    ir = tack.inspect(pairwise, x, out, mul, mode="ir")
    assert "kernel pairwise(x: f32[?], out: f32[?])" in ir and " * " in ir
