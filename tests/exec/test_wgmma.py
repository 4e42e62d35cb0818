"""The warpgroup MMA (docs/language.md, "Warpgroup MMA"): one warpgroup tile bit for bit against
the documented accumulation order (tests/kernels/mma.py's exact-rational reference) for every
input type, layout and several N; the tiled wgmma matmul against the warp-MMA tiled matmul's
bits over awkward shapes; and the refusals before launch. On the simulator and a GPU that has
the instruction (sm_90: an H100/H200; other GPUs skip, refused as tests/cuda/test_wgmma_ptx.py
shows); the GPU's tensor cores are held to the bound, not to the bits."""
import numpy as np
import pytest
import tack
from tack.errors import CapabilityError, TackTypeError, TackValueError, UnsupportedSyntaxError

from tests.kernels import mma as R
from tests.kernels import wgmma as K

pytestmark = pytest.mark.engines("sim", "cuda",
                                 reason="the warpgroup MMA runs on the simulator and an sm_90 GPU;"
                                        " the CPU engine refuses it, and the Julia engine's loops "
                                        "are tests/julia/test_wgmma_julia.py's")
U = 2.0 ** -24
ROWS = (0, 9, 17, 42, 63, 64, 77, 100, 127)  # rows of every warp of both warpgroups


def _awkward(rng, shape, dtype):
    """Values over many binades, with signs, zeros and, for f16, subnormal inputs."""
    x = rng.standard_normal(shape) * 2.0 ** rng.integers(-12, 12, shape)
    x[rng.random(shape) < 0.05] = 0.0
    if dtype is tack.f16:
        x[rng.random(shape) < 0.05] = 3e-6
    return x.astype(dtype.np)


def _run(kernel, *args):
    """Launch, or skip on a GPU without the warpgroup MMA."""
    try:
        kernel(*args)
    except CapabilityError as exc:
        if "only sm_90a" in str(exc):
            pytest.skip(f"this GPU has no wgmma: {exc}")
        raise


def _truncated(x: np.ndarray) -> np.ndarray:
    """f32 as the wgmma reads it for TF32: the low 13 significand bits dropped."""
    return (x.astype(np.float32).view(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32)


CASES = [(tack.f16, 64, "swizzle128"), (tack.f16, 64, "interleave"), (tack.bf16, 128,
         "swizzle128"), (tack.bf16, 8, "interleave"), (tack.f16, 256, "swizzle128"),
         (tack.f32, 64, "swizzle128"), (tack.f32, 16, "interleave")]


@pytest.mark.parametrize("dtype, n, layout", CASES,
                         ids=[f"{d.name}-n{n}-{lay}" for d, n, lay in CASES])
def test_one_tile_is_the_documented_order(engine, dtype, n, layout):
    """Simulator: bit for bit the reference (each product exact, added in k order over the four
    (eight) wgmmas, one f32 rounding per addition; TF32 inputs truncated as the hardware reads
    them). GPU: within the bound."""
    rng = np.random.default_rng(n)
    k = 32 if dtype is tack.f32 else 64
    a, b = _awkward(rng, (128, k), dtype), _awkward(rng, (k, n), dtype)
    d = tack.zeros((128, n))
    _run(K.tile_kernel(n, layout, dtype is tack.f32), tack.array(a), tack.array(b), d, 256)
    got = d.numpy()
    if dtype is tack.f32:
        a, b = _truncated(a), _truncated(b)
    if engine.arch == "sim":
        want = R.reference_mma(a[list(ROWS)], b, np.zeros((len(ROWS), n), np.float32))
        np.testing.assert_array_equal(got[list(ROWS)].view(np.uint32), want.view(np.uint32))
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    bound = (k + 1) * U * (np.abs(a64) @ np.abs(b64)) * (1 if engine.arch == "sim" else 4)
    assert (np.abs(got - a64 @ b64) <= bound).all()


SHAPES = [(1, 1, 1), (128, 64, 64), (67, 13, 131), (130, 70, 100), (200, 129, 65)]


@pytest.mark.parametrize("dtype", [tack.f16, tack.bf16], ids=["f16", "bf16"])
@pytest.mark.parametrize("m, n, k", SHAPES, ids=[f"{m}x{n}x{k}" for m, n, k in SHAPES])
def test_the_tiled_matmul_has_the_warp_mma_kernels_bits(engine, dtype, m, n, k):
    """C = A @ B by tests/kernels/wgmma.py's kernel: on the simulator the same bits as the warp
    MMA's tiled matmul (both add the products in k order, one rounding each; the zero padding
    adds exact zeros); on a GPU within the documented bound."""
    rng = np.random.default_rng(m * 7919 + n * 31 + k)
    a, b = _awkward(rng, (m, k), dtype), _awkward(rng, (k, n), dtype)
    c = tack.zeros((m, n))
    _run(K.tiled_matmul, tack.array(a), tack.array(b), c, K.launch_size(m, n))
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    if engine.arch == "sim":
        want = tack.zeros((m, n))
        R.tiled_matmul(tack.array(a), tack.array(b), want, R.launch_size(m, n))
        np.testing.assert_array_equal(c.numpy().view(np.uint32), want.numpy().view(np.uint32))
    bound = (k + 1) * U * (np.abs(a64) @ np.abs(b64)) * (1 if engine.arch == "sim" else 4)
    assert (np.abs(c.numpy() - a64 @ b64) <= bound).all()


def test_a_non_contiguous_operand(engine):
    rng = np.random.default_rng(3)
    big = rng.standard_normal((70, 200)).astype(np.float16)
    a = big[:, ::3]  # 70 × 67, a stride of 3 elements
    b = rng.standard_normal((67, 50)).astype(np.float16)
    c = tack.zeros((70, 50))
    _run(K.tiled_matmul, tack.array(a), tack.array(b), c, K.launch_size(70, 50))
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    bound = 68 * U * (np.abs(a64) @ np.abs(b64)) * (1 if engine.arch == "sim" else 4)
    assert (np.abs(c.numpy() - a64 @ b64) <= bound).all()


# ---- refusals before launch ----------------------------------------------------------------
@tack.kernel
def n_not_allowed(A, B, C, n):
    for i in range(n):
        acc = tack.wgmma_zeros(60)
        tack.wgmma_store(acc, C, 0, 0)


@tack.kernel
def f64_tiles(A, B, C, n):
    for i in range(n):
        As = tack.shared(tack.f64, 4096)
        Bs = tack.shared(tack.f64, 4096)
        acc = tack.wgmma_zeros(64)
        tack.wgmma(acc, As, 0, Bs, 0, "swizzle128")


@tack.kernel
def mixed_tiles(A, B, C, n):
    for i in range(n):
        As = tack.shared(tack.f16, 8192)
        Bs = tack.shared(tack.bf16, 4096)
        acc = tack.wgmma_zeros(64)
        tack.wgmma(acc, As, 0, Bs, 0, "swizzle128")


@tack.kernel
def f32_without_precision(A, B, C, n):
    for i in range(n):
        As = tack.shared(tack.f32, 4096)
        Bs = tack.shared(tack.f32, 2048)
        acc = tack.wgmma_zeros(64)
        tack.wgmma(acc, As, 0, Bs, 0, "swizzle128")


@tack.kernel
def half_with_precision(A, B, C, n):
    for i in range(n):
        As = tack.shared(tack.f16, 8192)
        Bs = tack.shared(tack.f16, 4096)
        acc = tack.wgmma_zeros(64)
        tack.wgmma(acc, As, 0, Bs, 0, "swizzle128", "tf32")


@tack.kernel
def unknown_layout(A, B, C, n):
    for i in range(n):
        As = tack.shared(tack.f16, 8192)
        Bs = tack.shared(tack.f16, 4096)
        acc = tack.wgmma_zeros(64)
        tack.wgmma(acc, As, 0, Bs, 0, "swizzle64")


@tack.kernel
def global_tile(A, B, C, n):
    for i in range(n):
        Bs = tack.shared(tack.f16, 4096)
        acc = tack.wgmma_zeros(64)
        tack.wgmma(acc, A, 0, Bs, 0, "swizzle128")


@tack.kernel
def not_an_accumulator(A, B, C, n):
    for i in range(n):
        As = tack.shared(tack.f16, 8192)
        Bs = tack.shared(tack.f16, 4096)
        acc = tack.mma_zeros()
        tack.wgmma(acc, As, 0, Bs, 0, "swizzle128")


@tack.kernel
def as_a_value(A, B, C, n):
    for i in range(n):
        As = tack.shared(tack.f16, 8192)
        Bs = tack.shared(tack.f16, 4096)
        acc = tack.wgmma_zeros(64)
        x = tack.wgmma(acc, As, 0, Bs, 0, "swizzle128")  # noqa: F841 - the error under test


@tack.kernel
def negative_wait(A, B, C, n):
    for i in range(n):
        tack.wgmma_wait(-1)


@tack.kernel
def runtime_wait(A, B, C, n):
    for i in range(n):
        tack.wgmma_wait(n)


REFUSED = [(n_not_allowed, TackValueError, "multiple of 8 from 8 to 256"),
           (f64_tiles, TackTypeError, "f64 tiles"),
           (mixed_tiles, TackTypeError, "f16 A and bf16 B"),
           (f32_without_precision, TackTypeError, "without a precision"),
           (half_with_precision, TackTypeError, "precision 'tf32' for f16"),
           (unknown_layout, TackValueError, "layout 'swizzle64'"),
           (global_tile, TackTypeError, "'A' is not one"),
           (not_an_accumulator, TackTypeError, "warpgroup accumulator"),
           (as_a_value, UnsupportedSyntaxError, "used as a value"),
           (negative_wait, TackValueError, "0 or more"),
           (runtime_wait, TackTypeError, "known when the kernel compiles")]


@pytest.mark.parametrize("kernel, error, text", REFUSED, ids=[r[0].name for r in REFUSED])
def test_bad_uses_are_refused_before_launch(kernel, error, text):
    args = [tack.zeros((128, 64), tack.f16, device="sim"),
            tack.zeros((64, 64), tack.f16, device="sim"), tack.zeros((128, 64), device="sim"),
            256]
    with pytest.raises(error, match=text) as info:
        tack.inspect(kernel, *args, mode="ir", engine="sim")
    assert "test_wgmma.py:" in str(info.value)  # at the kernel's line


def test_a_workgroup_that_is_not_whole_warpgroups_is_refused():
    a = tack.zeros((128, 64), tack.f16, device="sim")
    b = tack.zeros((64, 64), tack.f16, device="sim")
    with pytest.raises(ValueError, match="complete 256-lane groups"):
        K.tile_kernel(64, "swizzle128")(a, b, tack.zeros((128, 64), device="sim"), 300)


@tack.kernel
def misaligned(A, B, C, n):
    for i in range(n):
        As = tack.shared_like(A, 8192)
        Bs = tack.shared_like(B, 4096)
        acc = tack.wgmma_zeros(64)
        tack.wgmma(acc, As, 4, Bs, 0, "interleave")
        tack.wgmma_commit()
        tack.wgmma_wait(0)
        tack.wgmma_store(acc, C, 64 * (tack.thread_id() // 128), 0)


@tack.kernel
def lanes_disagree(A, B, C, n):
    for i in range(n):
        As = tack.shared_like(A, 8192)
        Bs = tack.shared_like(B, 4096)
        acc = tack.wgmma_zeros(64)
        tack.wgmma(acc, As, 64 * (tack.thread_id() % 2), Bs, 0, "interleave")
        tack.wgmma_commit()
        tack.wgmma_wait(0)


@pytest.mark.parametrize("kernel, text", [(misaligned, "16-byte units"),
                                          (lanes_disagree, "name different tiles")])
def test_the_simulator_refuses_tiles_the_hardware_cannot_take(kernel, text):
    args = [tack.zeros((128, 64), tack.f16, device="sim"),
            tack.zeros((64, 64), tack.f16, device="sim"), tack.zeros((128, 64), device="sim"),
            256]
    with pytest.raises(ValueError, match=text):
        kernel(*args)
