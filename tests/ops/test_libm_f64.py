"""tack.lib's float64 exp, log, sin, cos and tanh (tack.lib.mathd, tack.lib.trigd), which the
builtins of an f64 become on the engines that take the library's math (docs/numerics.md): within
their declared ulp bounds (tack.testing.bounds.MATH_ULPS_F64) of NumPy's long double over dense
sweeps, every binade from the subnormals to 1.8e308, random points and, for sin and cos, the
float64 arguments nearest to multiples of pi/2 (the hardest reductions); the IEEE special values
as the C library gives them; and the same bits on every such engine (the CPU engine, the
simulator, Julia's CPU backend) through the shared `engine` fixture."""
import numpy as np
import pytest
import tack
from tack.testing.bounds import MATH_ULPS_F64

pytestmark = pytest.mark.engines("cpu", "sim", "julia",
                                 reason="the engines that take tack.lib's float64 functions; a GPU"
                                        " keeps its device library")

NAMES = ("exp", "log", "sin", "cos", "tanh")
REFS = {"exp": np.exp, "log": np.log, "sin": np.sin, "cos": np.cos, "tanh": np.tanh}
ENOUGH = np.finfo(np.longdouble).nmant >= 63  # x86's 80-bit long double: 11 bits beyond float64


@tack.kernel
def _builtins(x, ex, lg, sn, cs, th):
    for i in range(x.shape[0]):
        ex[i] = exp(x[i])  # noqa: F821 - kernel builtins
        lg[i] = log(x[i])  # noqa: F821
        sn[i] = sin(x[i])  # noqa: F821
        cs[i] = cos(x[i])  # noqa: F821
        th[i] = tanh(x[i])  # noqa: F821


def _run(x):
    outs = [tack.zeros(x.shape, tack.f64) for _ in NAMES]
    _builtins(tack.array(x), *outs)
    return dict(zip(NAMES, (o.numpy() for o in outs)))


def _ulps(got, x, name):
    """|got - f(x)| in units of the last place of f(x) rounded to float64 (2^-1074 for the
    subnormals), f in long double; 0 where f(x) is not a finite float64."""
    with np.errstate(all="ignore"):
        exact = REFS[name](x.astype(np.longdouble))
        ulp = np.spacing(np.abs(exact.astype(np.float64))).astype(np.longdouble)
        err = np.abs(got.astype(np.longdouble) - exact) / ulp
        return np.where(np.isfinite(exact.astype(np.float64)), err, 0.0).astype(np.float64)


def _pi_over_2_multiples():
    """The float64s nearest to k pi/2 (k up to 2^20, and a few huge ones), with their
    neighbours: the arguments whose reduced value cancels the most."""
    k = np.concatenate([np.arange(1, 4097), np.unique(np.geomspace(4097, 2.0**20, 3000)
                                                      .astype(np.int64))])
    near = (k.astype(np.longdouble) * (np.pi / np.longdouble(2))).astype(np.float64)
    worst = np.array([6381956970095103.0 * 2.0**797, 5.319372648326541e255, 1e22,
                      1.7976931348623157e308])
    x = np.concatenate([near, worst])
    with np.errstate(over="ignore"):  # DBL_MAX's upper neighbour: inf, left out later
        return np.concatenate([x, np.nextafter(x, np.inf), np.nextafter(x, 0)])


def _arguments(engine):
    rng = np.random.default_rng(11)
    dense = np.arange(-40.0, 40.0, 2.0**-9 if engine == "cpu" else 2.0**-6)
    per = 60 if engine == "cpu" else 12
    e = np.arange(-1074, 1024)
    binades = (np.ldexp(1.0, e)[:, None] * np.linspace(1, 2, per, endpoint=False)).ravel()
    x = np.concatenate([dense, binades, -binades, rng.uniform(-750, 750, 20_000),
                        rng.standard_normal(20_000) * 5, _pi_over_2_multiples()])
    return x[np.isfinite(x)]


@pytest.mark.skipif(not ENOUGH, reason="NumPy's long double is float64 here: no reference")
def test_within_the_bound_everywhere(engine):
    x = _arguments(engine)
    got = _run(x)
    for name in NAMES:
        err = _ulps(got[name], x, name)
        assert err.max() <= MATH_ULPS_F64[name][0], (name, err.max(), x[err.argmax()])


SPECIAL = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, -5e-324, 2.2250738585072014e-308,
                    2.2250738585072009e-308, 709.782712893384, 709.7827128933841, -745.1332191019411,
                    -745.1332191019412, -745.14, 1e-300, 22.0, -22.0, 1.0, -1.0, 0.7853981633974483,
                    1.7976931348623157e308, -1.7976931348623157e308])


def test_the_special_values(engine):
    got = _run(SPECIAL)
    with np.errstate(all="ignore"):
        for name in NAMES:
            want = REFS[name](SPECIAL)
            exact = ~np.isfinite(want) | (want == 0) | (np.abs(want) == 1) | np.isin(
                SPECIAL, [0.0, 5e-324, -5e-324, 1e-300])
            np.testing.assert_array_equal(got[name][exact], want[exact], name)
    assert np.signbit(got["sin"][1]) and np.signbit(got["tanh"][1])  # sin(-0), tanh(-0)
    assert got["exp"][9] < np.inf and got["exp"][10] == np.inf  # the last finite exp
    assert got["exp"][11] == 5e-324 and got["exp"][13] == 0.0  # the smallest subnormal, then 0


def test_the_same_bits_on_every_engine(engine):
    """Each engine that takes the library's math gives the CPU engine's bits."""
    x = _arguments("sim")[::5]
    x = np.concatenate([x, SPECIAL])
    got = _run(x)
    tack.set_default_device("cpu")
    want = _run(x)
    for name in NAMES:
        np.testing.assert_array_equal(got[name].view(np.uint64), want[name].view(np.uint64), name)
