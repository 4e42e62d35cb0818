"""Shared fixtures of the algorithms tests: the device every test runs on (a parameter, so that
adding an engine is one word in DEVICES) and the error bound of floating sums."""
import math

import numpy as np
import pytest
import tack

DEVICES = ["cpu"]
SIZES = [0, 1, 2, 7, 31, 255, 256, 257, 1021, 4097, 65535, 65537, 131071]  # 0, 1, primes, 2^k±1


@pytest.fixture(params=DEVICES)
def device(request):
    old = tack.devices._global["device"]
    dev = tack.set_default_device(request.param)
    yield dev
    tack.devices._global["device"] = old


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
