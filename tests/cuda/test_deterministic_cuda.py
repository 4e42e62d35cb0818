"""Deterministic mode on the CUDA engine (docs/numerics.md, "Deterministic mode"): the float
kernels of the shared corpus, tack.ops and tack.algorithms give the CPU engine's bits in
deterministic mode (f32, f64, f16, bf16; awkward shapes, batch and launch sizes), and in the
default mode, where the device library's exp, log, sin, cos and tanh stay, each op is within
twice its declared bound of the CPU engine's result (each is within the bound of the exact
one). tests/numerics/test_deterministic.py runs the same comparisons through the `engine`
fixture, whose cuda case runs here too; this module adds the corpus, the default mode's bounds
and the PTX a deterministic call loads."""
import ml_dtypes
import numpy as np
import pytest
import tack
from tack import ops
from tack.compiler import specialize
from tack.ir.ops import Op
from tack.ir.walk import iter_stmts, stmt_exprs
from tack.testing.bounds import ENGINE_MATH, HALF_OP_BOUNDS, OP_BOUNDS

from tests.cuda import gpu
from tests.kernels.corpus import CASES, run_case

pytestmark = [*gpu.MARKS, pytest.mark.usefixtures("cuda_device")]

DTYPES = [np.float32, np.float64, np.float16, ml_dtypes.bfloat16]
SHAPES = [(1,), (7,), (3, 13), (2, 257), (3, 1025), (1, 8209), (64, 1000)]


def _bits(a):
    a = np.asarray(a)
    return a.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])


def _floats(actual):
    return {k: v for k, v in actual.items() if v.dtype.kind == "f"}


def _corpus(case, n, device):
    with tack.deterministic(), device:
        return _floats(run_case(case, n)[0])


def _engine_dependent(case, n) -> bool:
    """Whether the case's kernel, specialized in deterministic mode, keeps an op of ENGINE_MATH
    (pow, atan2, ...) or adds floats by atomics: the contract's exceptions."""
    made = case.make(np.random.default_rng(0), n)
    args = [tack.array(a) if isinstance(a, np.ndarray) else a for a in made]
    kir = specialize(case.kernel.in_mode(True), args, tack.default_device())
    return any(x.op in ENGINE_MATH or (x.op is Op.ATOMIC_ADD and x.dtype.is_float)
               for s in iter_stmts(kir.body) for x in stmt_exprs(s))


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_corpus_float_kernels_have_the_cpu_engines_bits(case):
    for n in case.sizes:
        if _engine_dependent(case, n):
            pytest.skip("the contract's exception: an engine's own pow or atan2, or float "
                        "atomics (docs/numerics.md)")
        want = _corpus(case, n, tack.device("cpu"))
        got = _corpus(case, n, tack.default_device())
        for k, w in want.items():
            np.testing.assert_array_equal(_bits(got[k]), _bits(w), f"{case.name}[{k}] n={n}")


OPS = {
    "softmax": lambda a, **kw: ops.softmax(a, **kw),
    "log_softmax": lambda a, **kw: ops.log_softmax(a, **kw),
    "layer_norm": lambda a, **kw: ops.layer_norm(a, **kw),
    "rms_norm": lambda a, **kw: ops.rms_norm(a, **kw),
    "gelu": lambda a, **kw: ops.gelu(a, **kw),
    "gelu(none)": lambda a, **kw: ops.gelu(a, approximate="none", **kw),
    "silu": lambda a, **kw: ops.silu(a, **kw),
    "add": lambda a, **kw: ops.add(a, a, alpha=0.3, **kw),
}


def _data(shape, dtype):
    return (np.random.default_rng(len(shape) * 7 + shape[-1]).standard_normal(shape) * 3
            + 0.5).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", OPS)
def test_ops_have_the_cpu_engines_bits_with_the_keyword(op, dtype):
    for shape in SHAPES:
        x = _data(shape, dtype)
        got = OPS[op](x, deterministic=True).numpy()
        with tack.device("cpu"):
            want = OPS[op](x, deterministic=True).numpy()
        np.testing.assert_array_equal(_bits(got), _bits(want), f"{op} {shape}")


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("op", OPS)
def test_the_default_mode_is_within_the_declared_bounds(op, dtype):
    """By default the GPU keeps the device library; its result and the CPU engine's are each
    within the op's bound of the exact result, so within twice it of each other."""
    half = dtype in (np.float16, ml_dtypes.bfloat16)
    factor = (HALF_OP_BOUNDS[op] if half else OP_BOUNDS[op])[0]
    unit = {np.float16: 2.0**-11, ml_dtypes.bfloat16: 2.0**-8, np.float32: 2.0**-24,
            np.float64: 2.0**-53}[dtype]
    for shape in SHAPES:
        x = _data(shape, dtype)
        got = OPS[op](x).numpy().astype(np.float64)
        with tack.device("cpu"):
            want = OPS[op](x).numpy().astype(np.float64)
        rows = want.reshape(-1, shape[-1])
        scale = np.max(np.abs(rows), axis=1, keepdims=True)  # the row's largest result
        err = np.abs(got.reshape(rows.shape) - rows)
        assert np.all(err <= 2 * factor * unit * scale), (op, shape, float(np.max(err / scale)))


def test_a_deterministic_calls_ptx_calls_no_device_library():
    @tack.kernel
    def math(x, y):
        for i in range(x.shape[0]):
            y[i] = exp(x[i]) + log(x[i]) * sin(x[i]) - cos(x[i]) * tanh(x[i])  # noqa: F821

    x, y = tack.array(np.linspace(0.1, 3, 9).astype(np.float32)), tack.zeros(9)
    with tack.deterministic():
        ptx = tack.inspect(math, x, y, mode="source")
        math(x, y)
    got = y.numpy()
    with tack.device("cpu"):
        y_cpu = tack.zeros(9)
        math(tack.array(np.linspace(0.1, 3, 9).astype(np.float32)), y_cpu)
    assert "ex2.approx" not in ptx and "lg2.approx" not in ptx and "__nv_" not in ptx
    np.testing.assert_array_equal(_bits(got), _bits(y_cpu.numpy()))
