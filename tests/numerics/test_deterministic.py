"""The cross-engine differential test of deterministic mode (docs/numerics.md, "Deterministic
mode"): tack.ops and tack.algorithms in float32, float64, float16 and bfloat16, over awkward
shapes (one element, primes, a workgroup and one past it, rows past the one-read limit,
non-contiguous inputs) and several batch sizes, on every engine of the `engine` fixture
(tests/engines.py: cuda runs on the GPU machines, julia where Julia is installed), compared bit
for bit with the CPU engine's results at one and two threads. The mode's plumbing (the kernel option, the switch, the ops' keyword, the
specialization keys, the PTX of a mode kernel) is checked here too, without a GPU.
"""
import ml_dtypes
import numpy as np
import pytest
import tack
import tack.algorithms as alg
from tack import ops
from tack.compiler import specialize
from tack.testing.bounds import ENGINE_MATH

DTYPES = [np.float32, np.float64, np.float16, ml_dtypes.bfloat16]
# one element, primes, a workgroup and one past it, several rounds of lanes, past the one-read
# limit of softmax (256 * 32), a transposed and a strided input
SHAPES = [(1,), (7,), (3, 13), (2, 256), (2, 257), (3, 1025), (1, 8209)]
STRIDED = [("transposed", (13, 5), lambda a: a.T), ("strided", (4, 2 * 257), lambda a: a[:, ::2])]
BATCHES = [1, 3, 64]  # rows sharing a launch: a row's bits may not depend on it
LENGTHS = [1, 7, 256, 257, 1025, 65537 + 256 * 3 + 1]  # the algorithms' flat lengths


def _name(d) -> str:
    return np.dtype(d).name


# The Julia engine's share of the batch and algorithm tests: Float32 only, and the lengths that
# reach every path (one workgroup, several, more than one group of lanes). Each shape is its own
# specialization, which costs Julia 1.5.3 seconds to compile, and the other types add no order of
# their own (the same rendered kernels; half computes in Float32 and rounds): they run on the
# other engines, and the ops test runs every type on Julia too.
JULIA_DTYPES = (np.float32,)
JULIA_LENGTHS = (7, 257, 65537 + 256 * 3 + 1)
JULIA_ROWS = (257, 8209)
JULIA_SHAPES = [(1,), (2, 257), (1, 8209)]  # and the transposed input: every type, fewer shapes


def _julia(engine) -> bool:
    return engine.engine_name == "julia"


def _on_julias_types(engine, dtype) -> None:
    if _julia(engine) and dtype not in JULIA_DTYPES:
        pytest.skip(f"the Julia tier runs this test in float32, not {_name(dtype)}: "
                    "the other engines run it in every type")


def _bits(a):
    a = np.asarray(a)
    return a.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])


def _data(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) * 3 + 0.5).astype(dtype)


OPS = {
    "softmax": lambda a: [ops.softmax(a)],
    "log_softmax": lambda a: [ops.log_softmax(a)],
    "softmax_axis0": lambda a: [ops.softmax(a, axis=0)],
    "layer_norm": lambda a: list(ops.layer_norm(a, return_stats=True)),
    "rms_norm": lambda a: [ops.rms_norm(a)],
    "gelu": lambda a: [ops.gelu(a)],
    "gelu_erf": lambda a: [ops.gelu(a, approximate="none")],
    "silu": lambda a: [ops.silu(a)],
    "relu": lambda a: [ops.relu(a)],
    "add": lambda a: [ops.add(a, a, alpha=0.3)],
}


def _run(fn, x, device=None):
    """fn's results on `device` (the default device when None) in deterministic mode, as NumPy."""
    with tack.deterministic():
        if device is None:
            return [np.asarray(r.numpy() if hasattr(r, "numpy") else r) for r in fn(x)]
        with device:
            return [np.asarray(r.numpy() if hasattr(r, "numpy") else r) for r in fn(x)]


def _cpu(fn, x, threads=1):
    return _run(fn, x, tack.device("cpu", num_threads=threads))


def _same(got, want, what):
    assert len(got) == len(want)
    for k, (g, w) in enumerate(zip(got, want)):
        assert g.dtype == w.dtype and g.shape == w.shape, what
        np.testing.assert_array_equal(_bits(g), _bits(w), f"{what} [result {k}]")


@pytest.mark.parametrize("dtype", DTYPES, ids=_name)
@pytest.mark.parametrize("op", OPS, ids=str)
def test_ops_have_the_cpu_engines_bits(engine, op, dtype):
    fn = OPS[op]
    shapes, strided = (JULIA_SHAPES, STRIDED[:1]) if _julia(engine) else (SHAPES, STRIDED)
    inputs = [(str(s), _data(s, dtype)) for s in shapes]
    inputs += [(label, view(_data(s, dtype))) for label, s, view in strided]
    for label, x in inputs:
        want = _cpu(fn, x)
        _same(_cpu(fn, x, threads=2), want, f"{op} {label} cpu threads")
        _same(_run(fn, x), want, f"{op} {label} {engine!r}")


@pytest.mark.parametrize("dtype", DTYPES, ids=_name)
@pytest.mark.parametrize("op", ["softmax", "log_softmax", "layer_norm", "rms_norm"])
def test_a_rows_bits_do_not_depend_on_the_batch(engine, op, dtype):
    _on_julias_types(engine, dtype)
    fn = OPS[op]
    for n in JULIA_ROWS if _julia(engine) else (13, 257, 8209):
        rows = _data((max(BATCHES), n), dtype, seed=n)
        want = [r[:1] if r.ndim else r for r in _cpu(fn, rows[:1])]
        for b in BATCHES:
            got = _run(fn, rows[:b])
            _same([g[:1] for g in got], want, f"{op} n={n} row 0 in a batch of {b}")


def _alg_cases():
    """name -> f(x, y) giving the results of one tack.algorithms call on Tack arrays."""
    def scalars(*vals):
        return [np.asarray(v) for v in vals]

    return {
        "sum": lambda x, y: scalars(x.sum()),
        "mean": lambda x, y: scalars(x.mean()),
        "min_max": lambda x, y: scalars(x.min(), x.max()),
        "dot": lambda x, y: scalars(alg.dot(x, y)),
        "norm": lambda x, y: scalars(alg.norm(x), alg.norm(x, ord=1)),
        "var_std": lambda x, y: scalars(alg.var(x), alg.std(x)),
        "histogram": lambda x, y: list(alg.histogram(x, bins=17)),
        "scans": lambda x, y: _scans(x),
    }


ALGS = _alg_cases()


def _alg(name):
    def fn(data):
        xs, ys = data
        out = ALGS[name](tack.array(xs), tack.array(ys))
        return [o.numpy() if hasattr(o, "numpy") else o for o in out]
    return fn


def _scans(xs):
    """Both scans of xs (NumPy or Tack), their totals, and an inclusive scan in place."""
    x = tack.array(xs) if isinstance(xs, np.ndarray) else xs
    inclusive, exclusive = tack.zeros(x.shape, dtype=x.dtype), tack.zeros(x.shape, dtype=x.dtype)
    totals = [alg.inclusive_scan(x, inclusive), alg.exclusive_scan(x, exclusive)]
    same = tack.array(x.numpy())
    totals.append(alg.inclusive_scan(same, same))
    return [inclusive.numpy(), exclusive.numpy(), same.numpy(), np.asarray(totals, np.float64)]


@pytest.mark.parametrize("dtype", DTYPES, ids=_name)
@pytest.mark.parametrize("name", ALGS, ids=str)
def test_algorithms_have_the_cpu_engines_bits(engine, name, dtype):
    _on_julias_types(engine, dtype)
    fn = _alg(name)
    for n in JULIA_LENGTHS if _julia(engine) else LENGTHS:
        data = (_data(n, dtype, seed=n), _data(n, dtype, seed=n + 1))
        want = _cpu(fn, data)
        _same(_cpu(fn, data, threads=2), want, f"{name} n={n} cpu threads")
        _same(_run(fn, data), want, f"{name} n={n} {engine!r}")


@pytest.mark.engines("cpu", "sim", "cuda",
                     reason="not julia: the test above runs the scans there at JULIA_LENGTHS, "
                            "each length a compile of seconds on Julia 1.5.3")
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=_name)
def test_long_scans_have_the_cpu_engines_bits(engine, dtype):
    """Past 256 tiles the two passes scan their tile totals by the same algorithm again."""
    n = 257 * 4096 + 1
    xs = _data(n, dtype, seed=3)
    _same(_run(_scans, xs), _cpu(_scans, xs), f"scans n={n} {engine!r}")


# ---- the mode's plumbing ------------------------------------------------------------------------
@tack.kernel
def _math(x, y):
    for i in range(x.shape[0]):
        y[i] = exp(x[i]) + log(x[i]) * sin(x[i]) - cos(x[i]) * tanh(x[i])  # noqa: F821


_math_det = tack.kernel(deterministic=True)(_math.fn)


def _engine_math_calls(kir) -> set:
    from tack.ir.walk import iter_stmts, stmt_exprs

    return {x.op.name for s in iter_stmts(kir.body) for x in stmt_exprs(s)
            if x.op in ENGINE_MATH}


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16], ids=_name)
def test_a_deterministic_kernels_ptx_calls_no_device_library(dtype):
    """The CUDA engine keeps libdevice's exp, log, sin, cos and tanh by default; in
    deterministic mode they are tack.lib's arithmetic, so nothing of libdevice is linked."""
    from tack.toolchain.nvptx import compile_ptx

    x = tack.array(np.linspace(0.1, 3.0, 7).astype(dtype))
    y = tack.zeros(7, dtype=dtype)
    cuda = tack.device("cuda")  # specialized for it; no GPU is needed to render PTX
    default = specialize(_math, [x, y], cuda)
    assert {"EXP", "LOG", "SIN", "COS", "TANH"} <= _engine_math_calls(default)
    for kernel in (_math_det, _math.in_mode(True)):
        kir = specialize(kernel, [x, y], cuda)
        assert not _engine_math_calls(kir)
        m = compile_ptx(kir, "sm_90")
        assert not m.libdevice
        assert "__nv_" not in m.llvm_ir and "__nv_" not in m.ptx
        assert "ex2.approx" not in m.ptx and "lg2.approx" not in m.ptx


@pytest.mark.parametrize("dtype", [np.float32, np.float16], ids=_name)
def test_the_ops_ptx_in_deterministic_mode_calls_no_device_library(monkeypatch, dtype):
    """Every kernel tack.ops and tack.algorithms launch on a workgroup engine (the simulator
    runs CUDA's paths), specialized for CUDA in deterministic mode, renders without libdevice."""
    from tack.call import plan
    from tack.toolchain.nvptx import compile_ptx

    seen, call = {}, plan.call

    def record(kernel, args):
        seen.setdefault(kernel.name, (kernel, args))
        return call(kernel, args)

    monkeypatch.setattr(plan, "call", record)
    tack.set_default_device("sim")
    x = _data((2, 300), dtype)
    with tack.deterministic():
        for op in OPS.values():
            op(x)
        ops.softmax(_data((1, 8209), dtype))
        a = tack.array(x.ravel())
        a.sum(), alg.var(a), alg.dot(a, a)
    cuda = tack.device("cuda")
    assert {"softmax_cached", "_online", "_gelu_tanh_spread", "_silu_spread"} <= set(seen)
    for name, (kernel, args) in seen.items():
        m = compile_ptx(specialize(kernel.in_mode(True), args, cuda))
        assert not m.libdevice and "__nv_" not in m.llvm_ir, name


def test_the_mode_is_part_of_the_specialization():
    tack.set_default_device("cpu")
    x, y = tack.array(np.linspace(0.5, 2, 9).astype(np.float32)), tack.zeros(9)
    _math(x, y)
    _math(x, y)  # the prebuilt call path
    with tack.deterministic():
        _math(x, y)
        assert _math._twin is not None and _math._twin._plans
        assert tack.deterministic_mode()
        with tack.deterministic(False):
            assert not tack.deterministic_mode()
        with tack.deterministic(None):
            assert tack.deterministic_mode()
    assert not tack.deterministic_mode()
    tack.set_deterministic(True)
    assert tack.deterministic_mode()
    tack.set_deterministic(False)
    assert _math.options == {"fastmath": False, "deterministic": False}
    assert _math_det.options == {"fastmath": False, "deterministic": True}
    assert _math_det.in_mode(True) is _math_det and _math.in_mode(False) is _math


def test_a_block_holds_in_its_thread_only():
    """One `tack.deterministic()` object entered by several threads at once: each thread sees
    its own block's mode, and every block ends where it began."""
    import threading

    from tack.devices import _global

    shared, seen = tack.deterministic(), []

    def work(flag):
        block = shared if flag else tack.deterministic(False)
        for _ in range(100):
            with block:
                seen.append(tack.deterministic_mode() == flag)

    threads = [threading.Thread(target=work, args=(k % 2 == 0,)) for k in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(seen) == 600 and all(seen)
    assert _global["deterministic_scoped"] == 0 and not shared.tokens
    assert not tack.deterministic_mode()


def test_the_prebuilt_path_follows_the_mode():
    """After a kernel's prebuilt call path exists, deterministic mode still reaches its twin."""
    tack.set_default_device("sim")
    calls = []

    @tack.kernel
    def k(x, y):
        for i in range(x.shape[0]):
            y[i] = x[i] * 2.0

    x, y = tack.array(np.ones(5, np.float32)), tack.zeros(5)
    for _ in range(3):
        k(x, y)
    with tack.deterministic():
        k(x, y)
        k(x, y)
        calls.append(k._twin is not None and len(k._twin._plans) == 1)
    k(x, y)
    assert calls == [True]


@pytest.mark.parametrize("bad", ["yes", 2, None, 1.5])
def test_bad_flags_are_refused(bad):
    with pytest.raises(tack.TackTypeError):
        tack.set_deterministic(bad)
    with pytest.raises(tack.TackTypeError):
        tack.kernel(deterministic=bad)
    if bad is not None:
        with pytest.raises(tack.TackTypeError):
            tack.deterministic(bad)
        with pytest.raises(tack.TackTypeError):
            ops.softmax(np.ones(3, np.float32), deterministic=bad)


def test_fastmath_and_deterministic_exclude_each_other():
    with pytest.raises(tack.TackValueError, match="choose one"):
        tack.kernel(fastmath=True, deterministic=True)
