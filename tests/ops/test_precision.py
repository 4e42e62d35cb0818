"""`precision="tf32"` of matmul, batched_matmul and attention, and `tack.tf32`, the rounding it
applies (docs/ops.md, "Precision"): the rounding bit for bit against two NumPy references over
every class of float32, the ops equal to the "ieee" op on rounded operands, their error within
the declared bound (tack.testing.bounds), the argument checks."""
import math

import numpy as np
import pytest
import tack
from tack import ops
from tack.testing.bounds import TF32_UNIT, tf32_matmul_bound
from tack.testing.harness.tolerances import tolerance

from tests.kernels import mma as mma_kernels
from tests.ops import refs
from tests.ops.refs import tf32_bits

U32 = np.uint32


def tf32_value(x) -> np.ndarray:
    """The TF32 rounding of finite float32 `x` in float64 arithmetic: the nearest multiple of
    the TF32 spacing of x's binade (2^(e - 10), e >= -126 so that subnormals share the smallest
    normal binade's spacing), ties away from zero; overflow past the largest TF32 to infinity."""
    v = np.asarray(x, np.float32).astype(np.float64)
    _, ex = np.frexp(v)
    spacing = np.ldexp(1.0, np.maximum(ex - 1, -126) - 10)
    r = np.copysign(np.floor(np.abs(v) / spacing + 0.5) * spacing, v)
    with np.errstate(over="ignore"):
        return r.astype(np.float32)


rounded = refs.tf32_rounded


def _bits(*patterns) -> np.ndarray:
    return np.array(patterns, U32).view(np.float32)


# (input bits, expected bits): every class a rounding can meet, both signs
SPECIAL = [
    (0x00000000, 0x00000000), (0x80000000, 0x80000000),  # zeros
    (0x00000001, 0x00000000), (0x00000FFF, 0x00000000),  # subnormals rounding to zero
    (0x00001000, 0x00002000), (0x80001000, 0x80002000),  # a subnormal tie: away from zero
    (0x007FFFFF, 0x00800000),  # the largest subnormal rounds up to the smallest normal
    (0x00800000, 0x00800000), (0x00800FFF, 0x00800000), (0x00801000, 0x00802000),
    (0x3F800000, 0x3F800000), (0x3F800FFF, 0x3F800000),  # 1.0, and just below its tie
    (0x3F801000, 0x3F802000), (0xBF801000, 0xBF802000),  # 1 + 2^-11: the tie, away
    (0x3F801001, 0x3F802000), (0x3F803000, 0x3F804000),  # past a tie; an odd tie (no even)
    (0x3FFFF000, 0x40000000),  # a carry out of the fraction into the exponent: 2.0
    (0x7F7FEFFF, 0x7F7FE000),  # to the largest TF32
    (0x7F7FF000, 0x7F800000), (0x7F7FFFFF, 0x7F800000), (0xFF7FFFFF, 0xFF800000),  # overflow
    (0x7F800000, 0x7F800000), (0xFF800000, 0xFF800000),  # infinities kept
    (0x7FC00000, 0x7FC00000), (0x7FFFFFFF, 0x7FFFE000), (0xFFC00001, 0xFFC00000),  # quiet NaNs
    (0x7F800001, 0x7FC00000), (0xFF800FFF, 0xFFC00000), (0x7FA00000, 0x7FE00000),  # signalling
]


# fractions that bound a class in every binade: the ends, the dropped bits just below, at and
# past a tie, an odd tie, the lowest kept bit; in the top binade (exponent 255) the same words
# are infinity and NaNs: payload only in the dropped bits, the largest signalling, the quiet bit
FRACTIONS = (0, 0xFFF, 0x1000, 0x1001, 0x1FFF, 0x2000, 0x3000, 0x3FFFFF, 0x400000, 0x7FF000,
             0x7FFFFF)


def _sweep(randoms: int = 2**16) -> np.ndarray:
    """The special classes, `randoms` random bit patterns, and in every binade (subnormals,
    infinities and NaNs included) the class boundaries of FRACTIONS, both signs."""
    rng = np.random.default_rng(32)
    e = np.arange(256, dtype=U32) << 23
    edges = np.concatenate([e | f for f in FRACTIONS])
    words = np.concatenate([np.array([s for s, _ in SPECIAL], U32), edges, edges | 0x80000000,
                            rng.integers(0, 2**32, randoms, dtype=np.uint64).astype(U32)])
    return words.view(np.float32)


@tack.kernel
def _round_all(x, y):
    for i in range(x.shape[0]):
        y[i] = tack.tf32(x[i])


def test_the_references_agree():
    """The two references, bits and arithmetic, on every finite value of the sweep; and the
    bits one on the listed classes (NaN and infinity)."""
    x = _sweep()
    finite = np.isfinite(x)
    want = tf32_value(x[finite]).view(U32)
    assert np.array_equal(tf32_bits(x[finite]), want)
    got = tf32_bits(_bits(*(s for s, _ in SPECIAL)))
    assert [hex(g) for g in got] == [hex(e) for _, e in SPECIAL]


@pytest.mark.engines("cpu", "sim", "cuda", "julia",
                     reason="tack.tf32 is the same rounding on every engine")
def test_tf32_rounding_bit_for_bit(device):
    x = _sweep()
    y = tack.zeros(x.shape, tack.f32)
    _round_all(tack.array(x), y)
    got = y.numpy().view(U32)
    want = tf32_bits(x)
    bad = np.flatnonzero(got != want)
    assert bad.size == 0, [(hex(x.view(U32)[i]), hex(got[i]), hex(want[i])) for i in bad[:5]]
    assert np.array_equal(got[:len(SPECIAL)], [e for _, e in SPECIAL])
    # the result is a TF32 value, within half a unit of the 11th significant bit
    normal = np.isfinite(x) & (np.abs(x) >= 2.0**-126) & np.isfinite(y.numpy())
    err = np.abs(y.numpy()[normal].astype(np.float64) - x[normal])
    assert (got[normal] & 0x1FFF == 0).all()
    assert (err <= TF32_UNIT * np.abs(x[normal].astype(np.float64))).all()


@pytest.mark.engines("sim", "cuda", "julia", reason="the CPU engine refuses MMAs")
def test_mma_rounds_its_inputs_as_tack_tf32(device):
    """`tack.mma(a, b, acc, "tf32")` rounds each f32 input with `tack.tf32`'s definition, NaN
    quieted included. Each value x sits alone in a row of A (the rest -0.0), B's first row is
    ones (the rest +0.0) and C is -0.0, so every product but x * 1 is -0.0 or +0.0, every sum
    exact, and each element of the row of D is x rounded; a NaN is the rounded NaN's bits on
    the engines that compute the documented order, and a NaN on a GPU (its tensor cores give
    their own NaN), where a zero may also come out as +0.0 for -0.0."""
    x = _sweep(randoms=2**12)
    warps = -(-x.size // 128) * 8  # 16 rows a warp, whole 256-lane workgroups
    a = np.full((16 * warps, 8), -0.0, np.float32)
    a[:x.size, 0] = x
    b = np.zeros((8 * warps, 8), np.float32)
    b[0::8] = 1.0
    d = tack.zeros((16 * warps, 8))
    mma_kernels.tile_mma_tf32(tack.array(a), tack.array(b),
                              tack.array(np.full((16 * warps, 8), -0.0, np.float32)), d,
                              32 * warps)
    got = d.numpy()[:x.size]
    want = np.repeat(tf32_bits(x)[:, None], 8, axis=1)
    nan = np.isnan(want.view(np.float32))
    assert np.array_equal(np.isnan(got), nan)
    if tack.default_device().arch == "cuda":
        # the tensor cores' own NaN, and +0.0 for the sum of -0.0 terms (measured on an H100;
        # docs/language.md, "Matrix multiply-accumulate"): those compare by value
        exact = ~nan & (want.view(np.float32) != 0)
        assert np.array_equal(got[~exact & ~nan], want.view(np.float32)[~exact & ~nan])
    else:
        exact = np.ones_like(nan)
    bad = np.unique(np.argwhere((got.view(U32) != want) & exact)[:, 0])
    assert bad.size == 0, [(hex(x.view(U32)[i]), hex(got.view(U32)[i, 0]), hex(want[i, 0]))
                           for i in bad[:5]]


def test_tf32_takes_float32_only():
    @tack.kernel
    def wide(x, y):
        for i in range(x.shape[0]):
            y[i] = tack.tf32(x[i])

    x = tack.array(np.ones(3, np.float64))
    with pytest.raises(TypeError, match=r"tf32 requires f32 input, got f64"):
        wide(x, tack.zeros(3, tack.f64))
    with pytest.raises(tack.TackError, match=r"'tf32' cannot be called from Python"):
        tack.tf32(1.0)


# ---- the ops ---------------------------------------------------------------------------------
MM = [(1, 1, 1), (1, 7, 1), (7, 13, 5), (13, 1, 17), (65, 17, 130), (129, 31, 33),
      (1025, 3, 2), (3, 5, 1025)]
LONG_K = [(6, 1025, 17), (2, 1025, 3)]  # the CPU only: a minute each on the simulator
BMM = [(1, 3, 4, 5), (3, 17, 9, 70), (2, 65, 33, 1), (2, 7, 1, 129)]


def _inputs(shape_a, shape_b, seed):
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal(shape_a) * 3).astype(np.float32)
    b = (rng.standard_normal(shape_b) * 3).astype(np.float32)
    return a, b


@pytest.mark.parametrize("m,k,n", MM + LONG_K, ids=str)
@pytest.mark.engines("cpu", reason="every shape, long k included (the simulator's 256-lane kernel "
                     "below at the short ones); a GPU's tf32 matmul takes the tensor cores, whose "
                     "bits are their own")
def test_matmul_tf32_is_ieee_on_rounded_operands(device, m, k, n):
    _check_rounded_operands(m, k, n)


@pytest.mark.parametrize("m,k,n", MM, ids=str)
@pytest.mark.engines("sim", reason="the 256-lane kernel at the short shapes; not cuda: bit for "
                     "bit, and a GPU's tf32 matmul takes the tensor cores, whose bits are their "
                     "own")
def test_matmul_tf32_is_ieee_on_rounded_operands_workgroups(device, m, k, n):
    _check_rounded_operands(m, k, n)


def _check_rounded_operands(m, k, n):
    a, b = _inputs((m, k), (k, n), m * k * n)
    got = ops.matmul(a, b, precision="tf32").numpy()
    want = ops.matmul(rounded(a), rounded(b)).numpy()
    assert np.array_equal(got.view(U32), want.view(U32))
    if k > 1:  # the rounding is not the identity here: these differ
        assert not np.array_equal(got, ops.matmul(a, b).numpy())


@pytest.mark.parametrize("z,m,k,n", BMM, ids=str)
@pytest.mark.engines("cpu", "sim",
                     reason="bit for bit: a GPU's tf32 matmul takes the tensor cores, whose bits "
                            "are their own")
def test_batched_matmul_tf32_is_ieee_on_rounded_operands(device, z, m, k, n):
    a, b = _inputs((z, m, k), (z, k, n), z + m * k * n)
    got = ops.batched_matmul(a, b, precision="tf32").numpy()
    want = ops.batched_matmul(rounded(a), rounded(b)).numpy()
    assert np.array_equal(got.view(U32), want.view(U32))


@pytest.mark.engines("julia",
                     reason="the Julia engine renders the same kernels: the same bits as the CPU "
                            "engine's")
def test_matmul_tf32_on_julia(device):
    a, b = _inputs((7, 13), (13, 5), 3)
    got = ops.matmul(a, b, precision="tf32").numpy()
    with tack.device("cpu"):
        want = ops.matmul(a, b, precision="tf32").numpy()
    assert np.array_equal(got.view(U32), want.view(U32))


def _layouts(a, b):
    """(name, a, b): contiguous, a transposed view, b a strided slice (equal values)."""
    at = np.ascontiguousarray(a.T).T  # Fortran order
    wide = np.zeros((b.shape[0], 2 * b.shape[1]), b.dtype)
    wide[:, ::2] = b
    return [("contiguous", a, b), ("transposed", at, b), ("strided", a, wide[:, ::2])]


@pytest.mark.parametrize("m,k,n", MM + LONG_K, ids=str)
@pytest.mark.engines("cpu", reason="every shape, long k included (the simulator's 256-lane kernel "
                     "below at the short ones); a GPU's tensor cores are held to their own bound "
                     "(test_matmul_mma.py)")
def test_matmul_tf32_within_its_bound(device, m, k, n):
    _check_bound(m, k, n)


@pytest.mark.parametrize("m,k,n", MM, ids=str)
@pytest.mark.engines("sim", reason="the 256-lane kernel at the short shapes; a GPU's tensor "
                     "cores are held to their own bound (test_matmul_mma.py)")
def test_matmul_tf32_within_its_bound_workgroups(device, m, k, n):
    _check_bound(m, k, n)


def _check_bound(m, k, n):
    """|C - A B| <= tf32_matmul_bound(k) * |A| |B| elementwise against float64, for every
    layout; and, on the same data, the harness's tfloat32 tolerance."""
    a, b = _inputs((m, k), (k, n), 7 + m + k + n)
    exact = a.astype(np.float64) @ b.astype(np.float64)
    mags = np.abs(a).astype(np.float64) @ np.abs(b).astype(np.float64)
    atol, rtol = tolerance("tfloat32", op_class="reduction")
    for name, av, bv in _layouts(a, b):
        got = ops.matmul(av, bv, precision="tf32").numpy().astype(np.float64)
        assert (np.abs(got - exact) <= tf32_matmul_bound(k) * mags).all(), name
        np.testing.assert_allclose(got, exact, rtol=rtol, atol=atol * np.abs(exact).max())


@pytest.mark.parametrize("k", [1, 2, 129])
@pytest.mark.engines("cpu", "sim", reason="the documented order reaches the bound; a GPU's "
                     "tensor cores are held to their own bound (test_matmul_mma.py)")
def test_matmul_tf32_bound_is_reached(device, k):
    _reach_bound(k)


@pytest.mark.engines("cpu", reason="k = 1025 on the CPU's kernel, the simulator runs the short k "
                     "above; a GPU's tensor cores are held to their own bound")
def test_matmul_tf32_bound_is_reached_long_k(device):
    _reach_bound(1025)


def _reach_bound(k):
    """Operands 1 + 2^-11, each a tie rounding up to 1 + 2^-10: every product is 2^-10 of itself
    too large, so the error is within 0.2 % of the bound's first term, and "ieee" stays far
    below it (the bound is tight, and it is the rounding's)."""
    a = np.full((3, k), 1 + 2.0**-11, np.float32)
    exact = (a.astype(np.float64) @ a.T.astype(np.float64))
    err = np.abs(ops.matmul(a, a.T, precision="tf32").numpy() - exact) / exact
    assert (err >= 0.998 * 2.0**-10).all() and (err <= tf32_matmul_bound(k)).all()
    assert (np.abs(ops.matmul(a, a.T).numpy() - exact) / exact < k * 2.0**-23).all()


# attention: one query row repeated, head_dim columns of which only the first is not zero, so
# that each key's score is one product and its weight can be kept clear of TF32 rounding ties
def _attention_model(q, k, v, scale, rnd):
    """attention in float64 with the named operands (`rnd`: a subset of "qkpv") rounded to
    TF32 as the kernels do: q * scale (in float32) and k in the scores, the weights and v in
    the weighted sum; the sum of the weights unrounded."""
    r = {c: (rounded if c in rnd else (lambda x: np.asarray(x, np.float32))) for c in "qkpv"}
    qs = r["q"](np.float32(scale) * q).astype(np.float64)
    s = np.einsum("bhid,bhjd->bhij", qs, r["k"](k).astype(np.float64))
    s = s.astype(np.float32).astype(np.float64)  # a score is a float32 product here
    p = np.exp(s - s.max(-1, keepdims=True))
    w = r["p"](p.astype(np.float32)).astype(np.float64)
    return np.einsum("bhij,bhjd->bhid", w, r["v"](v).astype(np.float64)) / p.sum(-1,
                                                                                keepdims=True)


def _attention_inputs(d, seq, seed):
    """(q, k, v, scale) as above. The largest score comes first, so that every weight is
    exp(score - the final maximum) (an online softmax weighs each key against the maximum so
    far), and the keys are chosen so that no weight is within 2^-16 of its size of a TF32 tie
    (the kernels' exp and subtraction are within about 2^-20 of it)."""
    rng = np.random.default_rng(seed)
    scale = 0.3
    q = np.zeros((1, 1, seq, d), np.float32)
    q[..., 0] = np.float32(1.7 + 2.0**-9)  # not a TF32 value, nor is q * scale
    keys = (rng.standard_normal(4 * seq) * 2).astype(np.float32)
    qs = rounded(np.float32(scale) * q[0, 0, 0, 0]).astype(np.float64)
    s = (qs * rounded(keys).astype(np.float64)).astype(np.float32).astype(np.float64)
    p = np.exp(s - s.max())
    frac = p / np.ldexp(1.0, np.frexp(p)[1] - 11) % 1.0  # position between TF32 values
    top = np.argmax(s)
    clear = np.flatnonzero((np.abs(frac - 0.5) > 2.0**-6) & (s < s[top]))
    assert clear.size >= seq - 1
    k = np.zeros((1, 1, seq, d), np.float32)
    k[0, 0, :, 0] = keys[np.concatenate([[top], clear[:seq - 1]])]
    v = (rng.standard_normal((1, 1, seq, d)) * 2).astype(np.float32)
    return q, k, v, scale


@pytest.mark.parametrize("d", [1, 300], ids=["narrow", "wide"])
@pytest.mark.engines("cpu", "sim",
                     reason="rows, blocked, wide, wide_group: every attention kernel, on the CPU "
                            "and the simulator")
def test_attention_rounds_each_operand_of_both_products(device, d):
    """The result is the float64 model with q * scale, k, the weights and v rounded; without
    any one of those roundings the model is measurably farther (so each is taken)."""
    q, k, v, scale = _attention_inputs(d, 24, d)
    got = ops.attention(q, k, v, scale=scale, precision="tf32").numpy().astype(np.float64)
    full = _attention_model(q, k, v, scale, "qkpv")
    size = np.abs(v).max()
    assert np.abs(got - full).max() <= 5e-7 * size
    for missing in "qkpv":
        other = _attention_model(q, k, v, scale, "qkpv".replace(missing, ""))
        assert np.abs(got - other).max() > 5e-6 * size, missing
    ieee = ops.attention(q, k, v, scale=scale).numpy().astype(np.float64)
    assert np.abs(ieee - _attention_model(q, k, v, scale, "")).max() <= 5e-7 * size


ATTN = [(1, 1, 1, 1), (2, 3, 17, 5), (1, 2, 31, 64), (1, 1, 3, 129), (1, 1, 5, 257)]


@pytest.mark.parametrize("shape", ATTN, ids=str)
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.engines("cpu", "sim",
                     reason="the CPU engine and the simulator (a GPU's workgroup paths), the "
                            "engines CI runs")
def test_attention_tf32_against_float64(device, shape, causal):
    """Within the harness's tfloat32 tolerance of the exact attention (a softmax between two
    products: chained, two matmuls fused), and farther from it than "ieee" (the operands were
    rounded)."""
    q, k, v = (refs.rand(shape, np.float32, s, 1.5) for s in (1, 2, 3))
    want = refs.attention(q, k, v, 1 / math.sqrt(shape[-1]), causal)
    got = ops.attention(q, k, v, causal=causal, precision="tf32").numpy().astype(np.float64)
    atol, rtol = tolerance("tfloat32", op_class="chained", fused_ops=("matmul", "matmul"))
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)
    ieee = ops.attention(q, k, v, causal=causal).numpy().astype(np.float64)
    if shape[-2] > 1:
        assert np.abs(got - want).max() > np.abs(ieee - want).max()


@pytest.mark.engines("cpu", "sim",
                     reason="the CPU engine and the simulator (a GPU's workgroup paths), the "
                            "engines CI runs")
def test_half_inputs_accept_tf32(device):
    """Every float16 and bfloat16 value is a TF32 value: matmul's "tf32" is its "ieee" bit for
    bit; attention's rounds its f32 weights and scaled queries, and stays close."""
    a, b = _inputs((9, 33), (33, 7), 1)
    for dt in (np.float16, tack.bf16.np):
        ah, bh = a.astype(dt), b.astype(dt)
        tf = ops.matmul(ah, bh, precision="tf32").numpy()
        assert np.array_equal(tf.view(np.uint16), ops.matmul(ah, bh).numpy().view(np.uint16))
    q, k, v = (refs.rand((1, 2, 9, 8), np.float16, s, 1.5) for s in (1, 2, 3))
    got = ops.attention(q, k, v, precision="tf32").numpy().astype(np.float64)
    np.testing.assert_allclose(got, refs.attention(q, k, v, 1 / math.sqrt(8), False),
                               rtol=1e-2, atol=1e-2)


# ---- argument checks -------------------------------------------------------------------------
F = np.ones((2, 3), np.float32)
Q = np.ones((1, 1, 2, 2), np.float32)
CALLS = {
    "matmul": lambda p, x=F: ops.matmul(x, x.T.copy(), precision=p),
    "batched_matmul": lambda p, x=F: ops.batched_matmul(x[None], x.T.copy()[None], precision=p),
    "attention": lambda p, x=Q: ops.attention(x, x, x, precision=p),
}


@pytest.mark.parametrize("op", CALLS)
@pytest.mark.parametrize("bad", ["fp32", "TF32", "highest", "", None, 1, True])
def test_precision_must_be_ieee_or_tf32(op, bad, monkeypatch):
    """A TackValueError naming the allowed values, before any kernel is called."""
    calls = []
    monkeypatch.setattr(tack.Kernel, "__call__", lambda self, *a: calls.append(self.name))
    with pytest.raises(tack.TackValueError,
                       match=rf"{op}: argument 'precision' must be 'ieee' or 'tf32', got"):
        CALLS[op](bad)
    assert calls == []


@pytest.mark.parametrize("op", CALLS)
def test_tf32_refuses_float64(op, monkeypatch):
    calls = []
    monkeypatch.setattr(tack.Kernel, "__call__", lambda self, *a: calls.append(self.name))
    x = (F if op != "attention" else Q).astype(np.float64)
    with pytest.raises(tack.TackValueError, match=rf"{op}: precision='tf32' rounds float32 "
                                                  r"operands to TF32; float64 inputs take"):
        CALLS[op]("tf32", x)
    assert calls == []
    CALLS[op]("ieee", x)  # the default precision is float64's


@pytest.mark.parametrize("op", CALLS)
def test_ieee_is_the_default(op):
    """Nothing chooses TF32 unless asked: the default call is "ieee" bit for bit, and an input
    that TF32 would round comes out of it exact."""
    x = (F if op != "attention" else Q) * np.float32(1 + 2.0**-20)
    plain = {"matmul": lambda: ops.matmul(x, x.T.copy()),
             "batched_matmul": lambda: ops.batched_matmul(x[None], x.T.copy()[None]),
             "attention": lambda: ops.attention(x, x, x)}[op]().numpy()
    assert np.array_equal(plain.view(U32), CALLS[op]("ieee", x).numpy().view(U32))
    assert not np.array_equal(plain.view(U32), CALLS[op]("tf32", x).numpy().view(U32))


@pytest.mark.engines("cpu", "sim",
                     reason="bit for bit: a GPU's tf32 matmul takes the tensor cores, whose bits "
                            "are their own")
def test_tf32_with_out_sharing_an_input_and_calls_in_a_row(device):
    """The rounded copies are kept between calls: a second call of the same shapes with other
    values gets its own result, and `out` sharing `a` still gives what a fresh array would."""
    a1, b1 = _inputs((9, 17), (17, 9), 1)
    a2, b2 = _inputs((9, 17), (17, 9), 2)
    first = ops.matmul(a1, b1, precision="tf32").numpy()
    second = ops.matmul(a2, b2, precision="tf32").numpy()
    assert np.array_equal(second, ops.matmul(rounded(a2), rounded(b2)).numpy())
    assert not np.array_equal(first, second)
    sq = tack.array(a1[:, :9].copy())
    want = ops.matmul(sq, sq, precision="tf32").numpy()
    assert ops.matmul(sq, sq, out=sq, precision="tf32") is sq
    assert np.array_equal(sq.numpy(), want)
    q = refs.rand((1, 2, 5, 4), np.float32, 1, 1.5)
    qt = tack.array(q)
    want = ops.attention(q, q, q, precision="tf32").numpy()
    ops.attention(qt, qt, qt, out=qt, precision="tf32")
    assert np.array_equal(qt.numpy(), want)
