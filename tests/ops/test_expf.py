"""tack.lib.expf.exp_f32 against float64 NumPy: within 1 ulp of float32 over the whole range,
the subnormal results included, and the exact specials (0 below the range, +inf above it,
NaN and the infinities)."""
import numpy as np
import pytest
import tack
from tack.lib.expf import exp_f32
from tack.testing.bounds import MATH_ULPS

BOUND = MATH_ULPS["exp"][0]  # 1 ulp: docs/numerics.md


@tack.kernel
def _exp_f32(x, out):
    for i in range(x.shape[0]):
        out[i] = exp_f32(x[i])


def _run(x):
    out = tack.zeros(x.shape, tack.f32)
    _exp_f32(tack.array(x), out)
    return out.numpy()


def _ulp_errors(x):
    got = _run(x).astype(np.float64)
    exact = np.exp(x.astype(np.float64))
    with np.errstate(over="ignore"):
        ulp = np.spacing(exact.astype(np.float32)).astype(np.float64)  # 2^-149 for subnormals
    return np.abs(got - exact) / ulp


@pytest.mark.engines("cpu", "sim",
                     reason="exp_f32 compiled by the CPU engine and interpreted by the simulator "
                            "(at a coarser step); CUDA keeps libdevice's exp, and tests/numerics/"
                            "test_bits.py holds Julia's f32 gelu and silu (exp inside) to the CPU "
                            "engine's bits")
def test_within_one_ulp_on_every_1024th_of_the_range(engine):
    x = np.arange(-103.97, 88.72, 2.0**-10 if engine.name == "cpu" else 2.0**-4).astype(np.float32)
    err = _ulp_errors(x)
    assert err.max() <= BOUND, (err.max(), x[err.argmax()])


def test_within_one_ulp_at_random_points():
    tack.set_default_device("cpu")
    rng = np.random.default_rng(13)
    x = np.concatenate([rng.uniform(-103.97, 88.72, 1_000_000),
                        rng.uniform(-1, 1, 100_000), rng.uniform(-103.97, -87.3, 100_000)])
    err = _ulp_errors(x.astype(np.float32))
    assert err.max() <= BOUND, err.max()


@pytest.mark.engines("cpu", "sim",
                     reason="exp_f32 compiled by the CPU engine and interpreted by the simulator "
                            "(at a coarser step); CUDA keeps libdevice's exp, and tests/numerics/"
                            "test_bits.py holds Julia's f32 gelu and silu (exp inside) to the CPU "
                            "engine's bits")
def test_the_ends_of_the_range_and_the_specials(engine):
    x = np.array([88.72283, 88.722839, 89.0, 1e30, np.inf, -103.972, -103.9721, -104.5,
                  -1e30, -np.inf, np.nan, 0.0, -0.0, 1e-30, -87.33654], np.float32)
    got = _run(x)
    with np.errstate(over="ignore"):
        want = np.exp(x.astype(np.float64)).astype(np.float32)  # correctly rounded here
    np.testing.assert_array_equal(got, want)
    assert got[0] == np.float32(3.4027985e38) and got[1] == np.inf  # the last finite result
    assert got[5] == np.float32(2.0**-149) and got[6] == 0.0  # the smallest subnormal, then 0


def test_the_same_bits_on_the_cpu_and_the_simulator():
    x = np.random.default_rng(5).uniform(-110, 95, 20_000).astype(np.float32)
    tack.set_default_device("cpu")
    cpu = _run(x)
    tack.set_default_device("sim")
    sim = _run(x)
    np.testing.assert_array_equal(cpu.view(np.uint32), sim.view(np.uint32))
