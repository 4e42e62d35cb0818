"""Computing on accumulator tiles without leaving the registers (docs/language.md, "Arithmetic
on accumulators"): elementwise arithmetic, comparisons and `tack.select` on accumulator-shaped
fragments, their element coordinates (`tack.mma_rows`, `tack.mma_cols`), row reductions
(`tack.mma_row_max`, `tack.mma_row_sum`, in the documented order), two accumulators as an A
fragment (`tack.mma_to_a`) and the transposed B load (`tack.mma_load_bt`), each against NumPy,
bit for bit; the same bits through the Julia engine's shared-memory lowering of warp operations;
and the misuses refused before launch."""
import ml_dtypes
import numpy as np
import pytest
import tack
from tack.errors import TackTypeError

pytestmark = pytest.mark.engines("sim", "cuda",
                                 reason="the CPU engine refuses MMAs; the Julia engine's shared-"
                                        "memory form runs on the simulator below")


@tack.kernel
def tiles(A, K, V, S, M, P, T, R, C, O, n):
    """Warp w: S = A_w K_w^T (16×16 as two 16×8 tiles), M its row maxima, P = exp(S - M)
    masked to column <= row, T its row sums, R and C the coordinates, O = P V with P rounded
    to f16."""
    for i in range(n):
        w = tack.warp_id()
        r = w * 16
        s0 = tack.mma(tack.mma_load_a(A, r, 0), tack.mma_load_bt(K, r, 0), tack.mma_zeros())
        s1 = tack.mma(tack.mma_load_a(A, r, 0), tack.mma_load_bt(K, r + 8, 0), tack.mma_zeros())
        m = tack.mma_row_max(max(s0, s1))
        rows = tack.mma_rows()
        p0 = tack.select(tack.mma_cols() <= rows, exp(s0 - m), 0.0)  # noqa: F821
        p1 = tack.select(tack.mma_cols() + 8 <= rows, exp(s1 - m), 0.0)  # noqa: F821
        o = tack.mma(tack.mma_to_a(tack.f16(p0), tack.f16(p1)), tack.mma_load_b(V, r, 0),
                     tack.mma_zeros())
        tack.mma_store(s0, S, r, 0)
        tack.mma_store(s1, S, r, 8)
        tack.mma_store(m, M, r, 0)
        tack.mma_store(p0, P, r, 0)
        tack.mma_store(p1, P, r, 8)
        tack.mma_store(tack.mma_row_sum(p0 + p1), T, r, 0)
        tack.mma_store(rows + w * 100, R, r, 0)
        tack.mma_store(tack.mma_cols(), C, r, 0)
        tack.mma_store(o, O, r, 0)


def _run(warps=8):
    rng = np.random.default_rng(3)
    a, k, v = (rng.standard_normal((16 * warps, 16)).astype(np.float16) for _ in range(3))
    outs = {n: tack.zeros((16 * warps, w), t) for n, w, t in (
        ("S", 16, tack.f32), ("M", 8, tack.f32), ("P", 16, tack.f32), ("T", 8, tack.f32), ("R", 8, tack.i32),
        ("C", 8, tack.i32), ("O", 8, tack.f32))}
    args = [tack.array(a), tack.array(k), tack.array(v[:, :8].copy()), *outs.values(),
            32 * warps]
    tiles(*args)
    return a, k, v[:, :8], {n: o.numpy() for n, o in outs.items()}, args


def _quad_sum(x):
    """A row of 8 f32 summed as tack.mma_row_sum does: each lane's pair, then the quad's
    butterfly over lane bits 0 and 1 (lane 0's view)."""
    pairs = [np.float32(x[2 * q] + x[2 * q + 1]) for q in range(4)]
    return np.float32(np.float32(pairs[0] + pairs[1]) + np.float32(pairs[2] + pairs[3]))


def test_tile_operations_against_numpy(engine):
    a, k, v, got, _ = _run()
    for w in range(8):
        sl = slice(16 * w, 16 * w + 16)
        s = got["S"][sl]
        exact = a[sl].astype(np.float64) @ k[sl].astype(np.float64).T
        assert np.abs(s - exact).max() <= 64 * 2.0**-24 * (np.abs(a[sl]).astype(float)
                                                           @ np.abs(k[sl]).astype(float).T).max()
        m = s.max(axis=1)
        np.testing.assert_array_equal(got["M"][sl], np.repeat(m[:, None], 8, 1))
        np.testing.assert_array_equal(got["R"][sl], np.repeat(np.arange(16)[:, None], 8, 1)
                                      + 100 * w)
        np.testing.assert_array_equal(got["C"][sl], np.repeat(np.arange(8)[None], 16, 0))
        p = got["P"][sl]
        np.testing.assert_allclose(p, np.where(np.tril(np.ones((16, 16), bool)),
                                               np.exp(s - m[:, None]), 0.0), rtol=1e-6)
        want = [_quad_sum(p[r, :8] + p[r, 8:]) for r in range(16)]
        np.testing.assert_array_equal(got["T"][sl], np.repeat(np.array(want)[:, None], 8, 1))
        ph = p.astype(np.float16).astype(np.float64)
        np.testing.assert_allclose(got["O"][sl], ph @ v[sl].astype(np.float64), rtol=1e-5,
                                   atol=1e-5)


@tack.kernel
def transposed(K, Kt, X, Y, n):
    for i in range(n):
        r = tack.warp_id() * 16
        a = tack.mma_load_a(X, r, 0)
        tack.mma_store(tack.mma(a, tack.mma_load_bt(K, r // 2, 0), tack.mma_zeros()), Y, r, 0)
        tack.mma_store(tack.mma(a, tack.mma_load_b(Kt, 0, r // 2), tack.mma_zeros()), Y, r, 8)


@pytest.mark.parametrize("dtype", [tack.f16, tack.bf16], ids=["f16", "bf16"])
def test_the_transposed_load_is_the_load_of_the_transpose(engine, dtype):
    rng = np.random.default_rng(5)
    k = rng.standard_normal((64, 16)).astype(dtype.np)
    x = rng.standard_normal((128, 16)).astype(dtype.np)
    y = tack.zeros((128, 16))
    transposed(tack.array(k), tack.array(np.ascontiguousarray(k.T)), tack.array(x), y, 256)
    np.testing.assert_array_equal(y.numpy()[:, :8], y.numpy()[:, 8:])


@tack.kernel
def to_a_and_back(X, H, B, Y, n):
    """The A fragment of two rounded accumulators multiplies as the A fragment loaded from
    their tile stored in the half type."""
    for i in range(n):
        r = tack.warp_id() * 16
        lo = tack.mma_load_acc(X, r, 0) * 3.0
        hi = tack.mma_load_acc(X, r, 8) - 1.0
        tack.mma_store(lo, H, r, 0)
        tack.mma_store(hi, H, r, 8)
        b = tack.mma_load_b(B, 0, 0)
        tack.mma_store(tack.mma(tack.mma_to_a(tack.bf16(lo), tack.bf16(hi)), b,
                                tack.mma_zeros()), Y, r, 0)


def test_to_a_is_the_a_fragment_of_the_rounded_tile(engine):
    rng = np.random.default_rng(6)
    x = rng.standard_normal((128, 16)).astype(np.float32)
    b = rng.standard_normal((16, 8)).astype(ml_dtypes.bfloat16)
    h, y = tack.zeros((128, 16), tack.bf16), tack.zeros((128, 8))
    to_a_and_back(tack.array(x), h, tack.array(b), y, 256)
    again = tack.zeros((128, 8))
    _plain_mma(h, tack.array(b), again, 256)
    np.testing.assert_array_equal(y.numpy(), again.numpy())


@tack.kernel
def _plain_mma(H, B, Y, n):
    for i in range(n):
        r = tack.warp_id() * 16
        tack.mma_store(tack.mma(tack.mma_load_a(H, r, 0), tack.mma_load_b(B, 0, 0),
                                tack.mma_zeros()), Y, r, 0)


@pytest.mark.engines("sim",
                     reason="runs the Julia engine's rewritten IR on the simulator's own kernel "
                            "runner")
def test_the_shared_memory_form_computes_the_same_bits(engine):
    """passes/warps_shared.py (the Julia engine's warp operations through shared memory) on
    the simulator: the row reductions' shuffles and the MMA give the same bits."""
    from tack.compiler import specialize
    from tack.passes.warps_shared import warps_through_shared
    from tack.runtime.sim.engine import SimKernel

    a, k, v, got, args = _run()
    lowered = warps_through_shared(specialize(tiles, args))
    outs = [np.zeros_like(x) for x in got.values()]
    SimKernel(lowered).launch([a, k, np.ascontiguousarray(v), *outs, 256], 256)
    for o, x in zip(outs, got.values()):
        np.testing.assert_array_equal(o, x)


@tack.kernel
def chosen(A, B, C, n, flag):
    for i in range(n):
        s = tack.mma(tack.mma_load_a(A, 0, 0), tack.mma_load_b(B, 0, 0), tack.mma_zeros())
        t = s * 2.0 if flag > 0 else -1.0  # an accumulator, or -1 in every element
        a = tack.mma_load_a(A, 0, 0) if flag > 1 else tack.mma_load_a(A, 16, 0)
        d = tack.mma(a, tack.mma_load_b(B, 0, 0), t)
        if tack.warp_id() == 0:
            tack.mma_store(d, C, 0, 0)


def test_conditional_expressions_of_fragments(engine):
    a = np.concatenate([np.ones((16, 16)), np.full((16, 16), 2.0)]).astype(np.float16)
    A, B = tack.array(a), tack.array(np.ones((16, 8), np.float16))
    for flag, want in ((2, 16 * 2 + 16), (1, 16 * 2 + 32), (0, 32 - 1)):
        C = tack.zeros((16, 8))
        chosen(A, B, C, 256, flag)
        assert (C.numpy() == want).all(), (flag, C.numpy()[0, 0])


@tack.kernel
def a_arith(A, B, C, n):
    for i in range(n):
        a = tack.mma_load_a(A, 0, 0) * 2.0
        tack.mma_store(tack.mma(a, tack.mma_load_b(B, 0, 0), tack.mma_zeros()), C, 0, 0)


@tack.kernel
def int_acc(A, B, C, n):
    for i in range(n):
        acc = tack.mma(tack.mma_load_a(A, 0, 0), tack.mma_load_b(B, 0, 0), tack.mma_rows())
        tack.mma_store(acc, C, 0, 0)


@tack.kernel
def f32_to_a(A, B, C, n):
    for i in range(n):
        a = tack.mma_to_a(tack.mma_zeros(), tack.mma_zeros())
        tack.mma_store(tack.mma(a, tack.mma_load_b(B, 0, 0), tack.mma_zeros()), C, 0, 0)


@tack.kernel
def int_row_sum(A, B, C, n):
    for i in range(n):
        tack.mma_store(tack.mma_row_sum(tack.mma_cols()), C, 0, 0)


@tack.kernel
def with_vector(A, B, C, n):
    for i in range(n):
        tack.mma_store(tack.mma_zeros() + tack.vec3(1.0, 2.0, 3.0), C, 0, 0)


@tack.kernel
def f32_bt(A, B, C, n):
    for i in range(n):
        acc = tack.mma(tack.mma_load_a(C, 0, 0), tack.mma_load_bt(C, 0, 0), tack.mma_zeros(),
                       "tf32")
        tack.mma_store(acc, C, 0, 0)


@pytest.mark.parametrize("kernel, words", [
    (a_arith, "an A fragment (m16n8k16.f16) used as a vector"),
    (int_acc, "accumulates into f32"),
    (f32_to_a, "makes an f16 or bf16 A fragment"),
    (int_row_sum, "it reduces f32 tiles"),
    (with_vector, "mixes an MMA fragment and a vector"),
    (f32_bt, "the transposed load serves f16 and bf16 tiles"),
], ids=["a-fragment-arithmetic", "int-accumulator", "f32-to-a", "int-row-sum",
        "fragment-and-vector", "f32-transposed"])
def test_misuse_is_refused_before_launch(engine, kernel, words):
    c = tack.zeros((16, 8))
    with pytest.raises(TackTypeError) as info:
        kernel(tack.zeros((16, 16), tack.f16), tack.zeros((16, 8), tack.f16), c, 256)
    assert words in str(info.value)
    assert "test_mma_tiles.py:" in str(info.value)
    assert not c.numpy().any()
