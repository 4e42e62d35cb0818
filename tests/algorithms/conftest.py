"""Shared fixtures of the algorithms tests: the device every test runs on, and the error bound of
floating sums.

`device` is the engine of the case (tests/engines.py: `test_x[cpu]`, `test_x[sim]`,
`test_x[cuda]`), by default the CPU engine, the simulator and a GPU (skipped without one); a module
or test narrows it with `@pytest.mark.engines(..., reason="...")`, saying why. A test marked
`sim_scans` runs on the simulator twice, once with each GPU scan (`sim` takes the two passes, as
it does unforced; `sim-look-back` forces the single-pass look-back scan, which CUDA takes)."""
import math

import numpy as np
import pytest
import tack
from tack.algorithms import tuning

from tests import engines

DEFAULT = ("cpu", "sim", "cuda")
KEYS = [np.int32, np.uint32, np.int64, np.uint64]  # the sort's key dtypes
SIZES = [0, 1, 2, 7, 31, 255, 256, 257, 1021, 4097, 65535, 65537, 131071]  # 0, 1, primes, 2^k±1


def pytest_generate_tests(metafunc):
    params = engines.cases(metafunc, "device", __name__, DEFAULT)
    if params is None:
        return
    if metafunc.definition.get_closest_marker("sim_scans"):
        sim = [k for k, p in enumerate(params) if p.values == ("sim",)]
        for k in sim:
            params.insert(k + 1, pytest.param("sim-look-back", id="sim-look-back"))
    metafunc.parametrize("device", params, indirect=True)


@pytest.fixture
def device(request):
    name = request.param
    if name != "sim-look-back":
        yield engines.select(name, request)
        return
    with tuning(scan="look_back"):
        yield engines.select("sim", request)


def unit(dtype) -> float:
    return {np.float32: 2.0 ** -24, np.float64: 2.0 ** -53}[np.dtype(dtype).type]


def gamma(n: int, dtype) -> float:
    """γ_n = n·u / (1 − n·u): the worst-case relative error of any order of n − 1 additions."""
    nu = n * unit(dtype)
    return nu / (1 - nu)


def check_sum(got: float, terms: np.ndarray, dtype) -> None:
    """|got − Σ terms| ≤ γ_n · Σ|terms|, the exact values summed with math.fsum."""
    terms = np.asarray(terms, np.float64).ravel()
    exact = math.fsum(terms)
    bound = gamma(len(terms), dtype) * math.fsum(np.abs(terms))
    assert abs(got - exact) <= bound, (got, exact, bound)


def data(n: int, dtype, seed: int = 0) -> np.ndarray:
    """n awkward values of `dtype`: mixed signs and magnitudes, full-range integers."""
    rng = np.random.default_rng(seed + n)
    t = np.dtype(dtype)
    if t.kind == "f":
        return (rng.standard_normal(n) * 10.0 ** rng.integers(-3, 4, n)).astype(t)
    info = np.iinfo(t)
    return rng.integers(info.min, info.max, n, dtype=t, endpoint=True)


def check_sort(dtype, n: int) -> None:
    """`A.sort`: a new array of the sorted keys and the stable permutation, as NumPy's, the input
    untouched; all-equal keys (no radix pass) and a leading n too."""
    from tack import algorithms as A

    for k in (data(n, dtype), np.full(n, np.iinfo(dtype).min, dtype)):
        kt = tack.array(k)
        s, p = A.sort(kt)
        order = np.argsort(k, kind="stable")
        assert s.dtype == kt.dtype and p.dtype == tack.i32
        np.testing.assert_array_equal(s.numpy(), k[order])
        np.testing.assert_array_equal(p.numpy(), order)
        np.testing.assert_array_equal(kt.numpy(), k)
    s, p = A.sort(tack.array(data(n, dtype)), n=n // 2)
    np.testing.assert_array_equal(p.numpy(), np.argsort(data(n, dtype)[:n // 2], kind="stable"))
    np.testing.assert_array_equal(s.numpy(), np.sort(data(n, dtype)[:n // 2], kind="stable"))
