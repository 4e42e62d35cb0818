"""The float builtins are importable by name (`from tack import sqrt`, `tack.math.exp`), so a
kernel's names are defined for linters; inside a kernel they are the builtin, from Python they
compute with NumPy."""
import math

import numpy as np
import pytest
import tack
from tack import atan2, exp, floor, rsqrt, sqrt
from tack.builtins.registry import HOST_FUNCTIONS, REGISTRY


@tack.kernel
def imported_names(a, b, out):
    for i in range(a.shape[0]):
        out[i] = sqrt(a[i]) + exp(b[i]) + floor(a[i]) + rsqrt(a[i]) + atan2(b[i], a[i]) \
            + tack.math.tanh(b[i]) + tack.log2(a[i])


@pytest.mark.parametrize("n", [1, 7, 1025])
def test_imported_builtins_compute_in_kernels(engine, n):
    rng = np.random.default_rng(n)
    a = rng.uniform(0.5, 9.0, n)
    b = rng.uniform(-2.0, 2.0, n)
    out = tack.zeros(n, tack.f64)
    imported_names(tack.array(a), tack.array(b), out)
    got = out.numpy()
    ref = np.sqrt(a) + np.exp(b) + np.floor(a) + 1.0 / np.sqrt(a) + np.arctan2(b, a) \
        + np.tanh(b) + np.log2(a)
    np.testing.assert_allclose(got, ref, rtol=1e-13)


def test_every_float_builtin_is_importable_from_tack_and_tack_math():
    floats = {b.name for b in REGISTRY.values() if b.group == "math" and b.typing == "float"}
    assert set(HOST_FUNCTIONS) == floats
    for name in floats:
        assert getattr(tack, name) is HOST_FUNCTIONS[name] is getattr(tack.math, name)
        assert name in tack.__all__
        assert REGISTRY[name].doc in getattr(tack, name).__doc__


@pytest.mark.parametrize("name, args, expect", [
    ("sqrt", (4.0,), 2.0), ("rsqrt", (4.0,), 0.5), ("exp2", (3.0,), 8.0),
    ("atan2", (1.0, 1.0), math.pi / 4), ("copysign", (2.0, -0.0), -2.0),
    ("asin", (1.0,), math.pi / 2), ("trunc", (-2.5,), -2.0),
])
def test_called_from_python_they_compute_with_numpy(name, args, expect):
    assert getattr(tack, name)(*args) == pytest.approx(expect)
    np.testing.assert_allclose(tack.sqrt(np.array([1.0, 4.0])), [1.0, 2.0])


def test_wrong_argument_counts_from_python():
    with pytest.raises(TypeError, match="sqrt"):
        tack.sqrt(1.0, 2.0)
    with pytest.raises(TypeError, match="atan2"):
        tack.atan2(1.0)
