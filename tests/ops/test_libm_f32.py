"""tack.lib's float32 log, sin, cos and tanh (tack.lib.logf, .trigf, .tanhf) against float64
NumPy: within their stated ulp bounds (tack.testing.bounds.MATH_ULPS) over a dense sweep of
float32 arguments, 1e6 random points and the whole exponent range, the IEEE special values
exact; and the builtins `log`, `sin`, `cos`, `tanh` (and `exp`) of an f32 are those functions,
bit for bit, on every engine that takes them, in every position an expression can take."""
import numpy as np
import pytest
import tack
from tack.lib.logf import log_f32
from tack.lib.tanhf import tanh_f32
from tack.lib.trigf import cos_f32, sin_f32
from tack.testing.bounds import MATH_ULPS


@tack.kernel
def _lib(x, lg, sn, cs, th):
    for i in range(x.shape[0]):
        lg[i] = log_f32(x[i])
        sn[i] = sin_f32(x[i])
        cs[i] = cos_f32(x[i])
        th[i] = tanh_f32(x[i])


@tack.kernel
def _builtins(x, lg, sn, cs, th):
    for i in range(x.shape[0]):
        lg[i] = log(x[i])  # noqa: F821 - kernel builtins
        sn[i] = sin(x[i])  # noqa: F821
        cs[i] = cos(x[i])  # noqa: F821
        th[i] = tanh(x[i])  # noqa: F821


NAMES = ("log", "sin", "cos", "tanh")
REFS = {"log": np.log, "sin": np.sin, "cos": np.cos, "tanh": np.tanh}


def _run(kern, x):
    outs = [tack.zeros(x.shape, tack.f32) for _ in NAMES]
    kern(tack.array(x), *outs)
    return dict(zip(NAMES, (o.numpy() for o in outs)))


def _ulps(got, x, name):
    """|got - f(x)| in units of the last place of f(x) rounded to float32 (2^-149 for the
    subnormals), f in float64; only where f(x) is finite."""
    with np.errstate(all="ignore"):
        exact = REFS[name](x.astype(np.float64))
        ulp = np.spacing(np.abs(exact).astype(np.float32)).astype(np.float64)
        err = np.abs(got.astype(np.float64) - exact) / ulp
    return np.where(np.isfinite(exact), err, 0.0)


def _check(x, results):
    for name in NAMES:
        err = _ulps(results[name], x, name)
        assert err.max() <= MATH_ULPS[name][0], (name, err.max(), x[err.argmax()])


def _sweep(step):
    """Every `step` from -30 to 30, and 2000 points in each binade of float32, both signs."""
    dense = np.arange(-30.0, 30.0, step)
    e = np.arange(-149, 128)
    binades = (np.ldexp(1.0, e)[:, None] * np.linspace(1, 2, 2000, endpoint=False)).ravel()
    x = np.concatenate([dense, binades, -binades]).astype(np.float32)
    return x[np.isfinite(x)]


def test_within_the_bound_over_a_dense_sweep_and_every_binade(engine):
    dense = engine.arch == "cpu" and engine.engine_name == "native"
    x = _sweep(2.0**-12 if dense else 2.0**-4)
    if not dense:
        x = x[::7]  # the other engines run slower: every 7th point
    _check(x, _run(_lib, x))


def test_within_the_bound_at_random_points():
    tack.set_default_device("cpu")
    rng = np.random.default_rng(29)
    x = np.concatenate([rng.uniform(-10, 10, 400_000), rng.uniform(-1e4, 1e4, 300_000),
                        rng.uniform(0, 1e-3, 100_000),
                        np.exp(rng.uniform(-103, 88.7, 200_000)) * rng.choice([-1, 1], 200_000)])
    x = x.astype(np.float32)
    _check(x, _run(_lib, x))


def test_near_multiples_of_pi_over_2():
    """Where sin or cos is near 0 the reduction's cancellation is largest; float32 multiples of
    pi/2 and their neighbours, up to 2^60, and the largest floats."""
    k = np.unique(np.round(np.exp(np.linspace(0, np.log(2.0**60), 3000))))
    m = (k * (np.pi / 2)).astype(np.float32)
    x = np.concatenate([m, np.nextafter(m, np.float32(np.inf)), np.nextafter(m, np.float32(0)),
                        np.float32(3.4028235e38) - np.arange(0, 2000, dtype=np.float32) * 2e31])
    tack.set_default_device("cpu")
    _check(x.astype(np.float32), _run(_lib, x.astype(np.float32)))


def test_the_special_values(engine):
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 1e-45, -1e-45, 3.4028235e38,
                  -3.4028235e38, 9.01, 9.02, 20.0, -20.0], np.float32)
    got = _run(_lib, x)
    nan = np.nan
    want = {
        "log": [-np.inf, -np.inf, np.inf, nan, nan, 0.0, nan],
        "sin": [0.0, -0.0, nan, nan, nan],
        "cos": [1.0, 1.0, nan, nan, nan, np.float32(np.cos(1.0))],
        "tanh": [0.0, -0.0, 1.0, -1.0, nan],
    }
    for name, w in want.items():
        np.testing.assert_array_equal(got[name][:len(w)], np.array(w, np.float32), name)
        # the signs of the zeros
        assert np.array_equal(np.signbit(got[name][:len(w)]), np.signbit(np.array(w, np.float32))), name
    assert got["tanh"][-2] == 1.0 and got["tanh"][-1] == -1.0
    assert got["log"][7] == np.float32(np.log(np.float64(x[7])))  # the smallest subnormal


@pytest.mark.engines("cpu", "sim", "julia",
                     reason="the engines that take tack.lib's math; CUDA keeps libdevice's "
                            "(library_math=False)")
def test_the_builtins_are_the_library_functions_bit_for_bit(engine):
    x = np.random.default_rng(3).uniform(-200, 200, 30_001).astype(np.float32)
    x[:7] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, 3.4e38]
    lib, bi = _run(_lib, x), _run(_builtins, x)
    for name in NAMES:
        np.testing.assert_array_equal(lib[name].view(np.uint32), bi[name].view(np.uint32), name)


def test_the_same_bits_on_the_cpu_and_the_simulator():
    x = np.random.default_rng(5).uniform(-1e3, 1e3, 20_000).astype(np.float32)
    tack.set_default_device("cpu")
    cpu = _run(_builtins, x)
    tack.set_default_device("sim")
    sim = _run(_builtins, x)
    for name in NAMES:
        np.testing.assert_array_equal(cpu[name].view(np.uint32), sim[name].view(np.uint32), name)


@tack.kernel
def _positions(x, plain, inwhile, lazy, inand, atomic, nested, twostep):
    for i in range(x.shape[0]):
        v = x[i]
        plain[i] = sin(v)  # noqa: F821
        k = 0
        while k < 1 and sin(v) == plain[i]:  # noqa: F821 - a while condition, lazily
            k += 1
        inwhile[i] = k
        lazy[i] = sin(v) if v > -1e30 else 0.0  # noqa: F821 - one arm of a conditional
        inand[i] = 1 if v == v and sin(v) == plain[i] else 0  # noqa: F821, PLR0124
        tack.atomic_add(atomic, i, sin(v))  # noqa: F821 - an atomic's operand: 0 + s is s
        nested[i] = tanh(sin(v) * 3.0)  # noqa: F821
        s = sin(v)  # noqa: F821
        twostep[i] = tanh(s * 3.0)  # noqa: F821


def test_the_same_bits_in_every_position(engine):
    """A builtin becomes an expression wherever it stands (passes/libmath.py), so a `while`
    condition, a conditional's arm, an `and`, an atomic's operand and a nested call compute
    what a plain assignment does."""
    x = np.random.default_rng(11).uniform(-50, 50, 4099).astype(np.float32)
    outs = [tack.zeros(x.shape, t) for t in (tack.f32, tack.i32, tack.f32, tack.i32, tack.f32,
                                             tack.f32, tack.f32)]
    _positions(tack.array(x), *outs)
    plain, inwhile, lazy, inand, atomic, nested, twostep = (o.numpy() for o in outs)
    assert inwhile.all() and inand.all()
    for other in (lazy, atomic):
        np.testing.assert_array_equal(other.view(np.uint32), plain.view(np.uint32))
    np.testing.assert_array_equal(nested.view(np.uint32), twostep.view(np.uint32))


def test_a_loop_of_builtins_vectorizes_on_the_cpu():
    """The point of the library functions: no scalar C library call is left in the loop."""
    import re

    tack.set_default_device("cpu")

    @tack.kernel
    def every(x, out):
        for i in range(x.shape[0]):
            v = x[i]
            out[i] = exp(v) + log(v) + sin(v) * cos(v) - tanh(v)  # noqa: F821

    x = tack.array(np.linspace(0.5, 2, 64, dtype=np.float32))
    ir = tack.inspect(every, x, tack.zeros(64, tack.f32), mode="optimized")
    calls = set(re.findall(r"call [^@]*@([\w.]+)", ir))
    assert not {c for c in calls if re.fullmatch(r"(exp|log|sin|cos|tanh)f?", c)}, calls
    assert not {c for c in calls if re.match(r"llvm\.(exp|log|sin|cos)\.", c)}, calls
    assert re.search(r"<(4|8|16) x float>", ir)


@tack.kernel
def _beside_atomics(f, out):
    for i in range(1):
        out[0] = tack.atomic_add(f, 0, 1.0) + sin(f[0])  # noqa: F821 - the atomic first
        out[1] = sin(f[1]) + tack.atomic_add(f, 1, 1.0)  # noqa: F821 - the load first


def test_evaluation_order_beside_an_atomic(engine):
    """A statement with an atomic is taken apart in its evaluation order (passes/libmath.py):
    a load after the atomic sees the update, one before it does not (tests/exec/test_eval_order.py
    for the builtin-free rule)."""
    f = tack.array(np.array([0.5, 0.5], np.float32))
    out = tack.zeros(2, tack.f32)
    _beside_atomics(f, out)
    np.testing.assert_allclose(out.numpy(), [0.5 + np.sin(1.5), np.sin(0.5) + 0.5], rtol=1e-6)
