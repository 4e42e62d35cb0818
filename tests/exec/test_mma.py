"""Matrix multiply-accumulate (docs/language.md, "Matrix multiply-accumulate"): one MMA bit for
bit against the documented accumulation order (tests/kernels/mma.py's exact-rational reference),
the tiled matmul written in Tack against float64 within the documented bound over awkward
shapes, and the refusals before launch. On the simulator and a GPU (the CPU engine refuses:
tested below); the GPU's tensor cores are held to the bound, not to the bits."""
import numpy as np
import pytest
import tack
from tack.errors import TackNameError, TackTypeError, UnsupportedSyntaxError

from tests.kernels import mma as K

pytestmark = pytest.mark.engines("sim", "cuda",
                                 reason="the CPU engine refuses MMAs (tested below); the Julia "
                                        "engine's portable form is tests/julia/test_mma_julia.py's")
U = 2.0 ** -24  # f32's unit roundoff


def _awkward(rng, shape, dtype):
    """Values over many binades (so products and sums round at every step), with signs, zeros,
    and, for f16, subnormal inputs."""
    x = rng.standard_normal(shape) * 2.0 ** rng.integers(-12, 12, shape)
    x[rng.random(shape) < 0.05] = 0.0
    if dtype is tack.f16:
        x[rng.random(shape) < 0.05] = 3e-6  # an f16 subnormal
    return x.astype(dtype.np)


def _tiles(engine, dtype, warps=8):
    rng = np.random.default_rng(11)
    k = 8 if dtype is tack.f32 else 16
    a = _awkward(rng, (16 * warps, k), dtype)
    b = _awkward(rng, (k * warps, 8), dtype)
    c = _awkward(rng, (16 * warps, 8), tack.f32)
    d = tack.zeros((16 * warps, 8))
    kernel = K.tile_mma_tf32 if dtype is tack.f32 else K.tile_mma
    kernel(tack.array(a), tack.array(b), tack.array(c), d, 32 * warps)
    return a, b, c, d.numpy(), k


@pytest.mark.parametrize("dtype", [tack.f16, tack.bf16, tack.f32], ids=["f16", "bf16", "tf32"])
def test_one_mma_is_the_documented_order(engine, dtype):
    """Simulator: bit for bit the reference (each product exact, added to C in k order, one f32
    rounding per addition; TF32 inputs rounded to nearest, ties away). GPU: within the bound."""
    a, b, c, got, k = _tiles(engine, dtype)
    if dtype is tack.f32:
        a, b = K.to_tf32(a), K.to_tf32(b)
    for w in range(len(a) // 16):
        ta, tb, tc = a[16 * w:16 * w + 16], b[k * w:k * w + k], c[16 * w:16 * w + 16]
        tile = got[16 * w:16 * w + 16]
        if engine.arch == "sim":
            want = K.reference_mma(ta, tb, tc)
            np.testing.assert_array_equal(tile.view(np.uint32), want.view(np.uint32), f"warp {w}")
        else:
            exact = ta.astype(np.float64) @ tb.astype(np.float64) + tc
            scale = np.abs(ta.astype(np.float64)) @ np.abs(tb.astype(np.float64)) + np.abs(tc)
            assert (np.abs(tile - exact) <= 2 * (k + 1) * 2 * U * scale).all(), f"warp {w}"


def test_tf32_rounding_is_to_nearest_ties_away():
    x = np.array([1 + 2.0 ** -11, 1 + 3 * 2.0 ** -11, -(1 + 2.0 ** -11), 1 + 2.0 ** -12,
                  np.float32(3.4028235e38), np.inf, np.nan], np.float32)
    want = np.array([1 + 2.0 ** -10, 1 + 2 * 2.0 ** -10, -(1 + 2.0 ** -10), 1.0, np.inf,
                     np.inf, np.nan], np.float32)
    np.testing.assert_array_equal(K.to_tf32(x), want)


SHAPES = [(16, 8, 16), (1, 1, 16), (37, 45, 32), (70, 33, 40), (128, 128, 128), (17, 130, 7)]


@pytest.mark.parametrize("dtype", [tack.f16, tack.bf16, tack.f32], ids=["f16", "bf16", "tf32"])
@pytest.mark.parametrize("m, n, k", SHAPES, ids=[f"{m}x{n}x{k}" for m, n, k in SHAPES])
def test_the_tiled_matmul_is_within_the_bound(engine, dtype, m, n, k):
    """C = A @ B by the Tack kernel of tests/kernels/mma.py (M and N not multiples of the
    block, K not of the MMA's k: the kernel's own bounds checks pad with zeros) against float64:
    |C - A @ B| <= K u (|A| @ |B|) after the inputs' own rounding (TF32: the inputs rounded)."""
    rng = np.random.default_rng(m * 1000 + n + k)
    a = rng.standard_normal((m, k)).astype(dtype.np)
    b = rng.standard_normal((k, n)).astype(dtype.np)
    c = tack.zeros((m, n))
    kernel = K.tiled_matmul_tf32 if dtype is tack.f32 else K.tiled_matmul
    kernel(tack.array(a), tack.array(b), c, K.launch_size(m, n))
    if dtype is tack.f32:
        a, b = K.to_tf32(a), K.to_tf32(b)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    bound = (k + 1) * U * (np.abs(a64) @ np.abs(b64))
    if engine.arch != "sim":
        bound *= 4  # tensor cores: the documented GPU bound
    assert (np.abs(c.numpy() - a64 @ b64) <= bound).all()


def test_an_mma_on_the_cpu_engine_is_refused_before_launch():
    """The CPU engine runs iterations one by one, without warps: refused as every warp
    operation is (docs/language.md, "Matrix multiply-accumulate")."""
    a = tack.zeros((16, 16), tack.f16, device="cpu")
    b = tack.zeros((16, 8), tack.f16, device="cpu")
    c, d = tack.zeros((16, 8), device="cpu"), tack.zeros((16, 8), device="cpu")
    with pytest.raises(RuntimeError, match="CPU backend does not support workgroup execution "
                                           "required by lane_id, mma, mma_load_a, mma_load_acc, "
                                           "mma_load_b"):
        K.tile_mma(a, b, c, d, 256)
    assert not d.numpy().any()


@tack.kernel
def f32_without_precision(A, B, C, n):
    for i in range(n):
        acc = tack.mma(tack.mma_load_a(A, 0, 0), tack.mma_load_b(B, 0, 0), tack.mma_zeros())
        tack.mma_store(acc, C, 0, 0)


@tack.kernel
def half_with_precision(A, B, C, n):
    for i in range(n):
        acc = tack.mma(tack.mma_load_a(A, 0, 0), tack.mma_load_b(B, 0, 0), tack.mma_zeros(),
                       "tf32")
        tack.mma_store(acc, C, 0, 0)


@tack.kernel
def swapped(A, B, C, n):
    for i in range(n):
        acc = tack.mma(tack.mma_load_b(B, 0, 0), tack.mma_load_a(A, 0, 0), tack.mma_zeros())
        tack.mma_store(acc, C, 0, 0)


@tack.kernel
def as_vector(A, B, C, n):
    for i in range(n):
        b = tack.mma_load_b(B, 0, 0)  # accumulators take arithmetic; A and B fragments do not
        acc = tack.mma(tack.mma_load_a(A, 0, 0), b * 2.0, tack.mma_zeros())
        tack.mma_store(acc, C, 0, 0)


@tack.kernel
def no_stride(A, B, C, n):
    for i in range(n):
        s = tack.shared(tack.f16, 256)
        acc = tack.mma(tack.mma_load_a(s, 0, 0), tack.mma_load_b(B, 0, 0), tack.mma_zeros())
        tack.mma_store(acc, C, 0, 0)


@tack.kernel
def unassigned_accumulator(A, B, C, n):
    for i in range(n):
        acc = tack.mma(tack.mma_load_a(A, 0, 0), tack.mma_load_b(B, 0, 0), acc)  # noqa: F821
        tack.mma_store(acc, C, 0, 0)


@tack.kernel
def from_local(A, B, C, n):
    for i in range(n):
        s = tack.local_array(tack.f16, 256)
        acc = tack.mma(tack.mma_load_a(s, 0, 0, 16), tack.mma_load_b(B, 0, 0), tack.mma_zeros())
        tack.mma_store(acc, C, 0, 0)


def _halves(t=tack.f16, c=tack.f32):
    return tack.zeros((16, 16), t), tack.zeros((16, 8), t), tack.zeros((16, 8), c), 256


@pytest.mark.parametrize("kernel, args, error, words", [
    (f32_without_precision, (tack.zeros((16, 8)), tack.zeros((8, 8)), tack.zeros((16, 8)), 256),
     TackTypeError, 'tack.mma(a, b, acc, "tf32")'),
    (half_with_precision, _halves(), TackTypeError, "only f32 fragments take a precision"),
    (swapped, _halves(), TackTypeError, "takes an A fragment"),
    (as_vector, _halves(), TackTypeError, "used as a vector"),
    (no_stride, _halves(), TackTypeError, "the row stride too"),
    (unassigned_accumulator, _halves(), TackNameError, "'acc'"),
    (from_local, _halves(), UnsupportedSyntaxError, "neither an array parameter nor a shared"),
    (K.tile_mma, (tack.zeros((16, 16), tack.i32), tack.zeros((16, 8), tack.i32),
                  tack.zeros((16, 8)), tack.zeros((16, 8)), 256), TackTypeError,
     "tensor cores multiply f16, bf16 or f32"),
    (K.tile_mma, (tack.zeros((16, 16), tack.f16), tack.zeros((16, 8), tack.bf16),
                  tack.zeros((16, 8)), tack.zeros((16, 8)), 256), TackTypeError,
     "A and B have one dtype"),
    (K.tile_mma, _halves(c=tack.f16)[:2] + (tack.zeros((16, 8), tack.f16), tack.zeros((16, 8)),
                                            256), TackTypeError, "an accumulator holds f32"),
], ids=["f32-needs-tf32", "half-takes-no-precision", "operands-swapped", "fragment-as-vector",
        "1d-needs-stride", "accumulator-unassigned", "local-array", "int-tile", "mixed-dtypes",
        "f16-accumulator"])
def test_misuse_is_refused_before_launch_with_its_position(engine, kernel, args, error, words):
    # the arrays were made when the cases were collected, on the CPU: moved to the engine's
    # device, so that the kernel's misuse, not the arrays' place, is what is refused
    args = [a.to(engine) if isinstance(a, tack.Array) else a for a in args]
    outs = [a for a in args if isinstance(a, tack.Array)]
    before = [o.numpy().copy() for o in outs]
    with pytest.raises(error) as info:
        kernel(*args)
    assert words in str(info.value)
    assert f"{kernel.fn.__code__.co_filename}:" in str(info.value) or "line" in str(info.value)
    for o, b in zip(outs, before):
        np.testing.assert_array_equal(o.numpy(), b)


@pytest.mark.parametrize("dtype, k", [(tack.f16, 32), (tack.bf16, 40), (tack.f32, 20)],
                         ids=["f16", "bf16", "tf32"])
def test_the_shared_memory_form_computes_the_same_bits(dtype, k):
    """passes/warps_shared.py's MMA (the Julia engine's portable loops: an exchange through
    shared memory and f32 fused multiply-adds over k) run on the simulator gives the MMA's own
    bits."""
    from tack.compiler import specialize
    from tack.ir.walk import iter_stmts, stmt_exprs
    from tack.passes.warps_shared import warps_through_shared
    from tack.runtime.sim.engine import SimKernel

    m, n = 70, 33
    rng = np.random.default_rng(k)
    a = rng.standard_normal((m, k)).astype(dtype.np)
    b = rng.standard_normal((k, n)).astype(dtype.np)
    kernel = K.tiled_matmul_tf32 if dtype is tack.f32 else K.tiled_matmul
    with tack.device("sim"):
        args = [tack.array(a), tack.array(b), tack.zeros((m, n)), K.launch_size(m, n)]
        kernel(*args)
        lowered = warps_through_shared(specialize(kernel, args))
    assert not any(x.op.name in ("MMA", "FRAGMENT", "LANE_ID")
                   for s in iter_stmts(lowered.body) for x in stmt_exprs(s))
    c = np.zeros((m, n), np.float32)
    SimKernel(lowered).launch([a, b, c, args[3]], args[3])
    np.testing.assert_array_equal(c.view(np.uint32), args[2].numpy().view(np.uint32))
