"""The simulator's NumPy op table (ir/semantics.py `NUMPY`) agrees with constant folding's scalar
table (`evaluate`) on every op and dtype both define, bit for bit; the functions chosen once per
dtype (`dtypes.converter`, `wrapper`) agree with `convert` and `wrap_int`."""
import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from tack import dtypes as D
from tack.ir.ops import Op
from tack.ir.semantics import evaluate, np_cast, np_evaluate

INTS = [D.i8, D.u8, D.i16, D.u16, D.i32, D.u32, D.i64, D.u64]
INT_OPS = [Op.ADD, Op.SUB, Op.MUL, Op.AND_, Op.OR_, Op.XOR, Op.MIN, Op.MAX, Op.IDIV, Op.IREM]


def _values(t, rng, k=200):
    info = np.iinfo(t.np)
    edge = [info.min, info.max, 0, 1, info.min + 1, info.max - 1]
    if t.is_signed:
        edge += [-1, -2]
    rand = rng.integers(info.min, info.max, size=k, dtype=t.np, endpoint=True)
    return np.r_[np.array(edge, t.np), rand]


@pytest.mark.parametrize("t", INTS, ids=lambda t: t.name)
@pytest.mark.parametrize("op", INT_OPS, ids=lambda o: o.name)
def test_integer_binary_ops(op, t):
    rng = np.random.default_rng(op.value)
    a, b = _values(t, rng), rng.permutation(_values(t, rng))
    if op in (Op.IDIV, Op.IREM):  # the IR never divides by 0 or (signed) -1
        keep = (b != 0) & ~((b == -1) if t.is_signed else False)
        a, b = a[keep], b[keep]
    with np.errstate(all="ignore"):
        got = np_evaluate(op, t, [a, b])
    want = [evaluate(op, t, [int(x), int(y)], None) for x, y in zip(a, b)]
    assert got.dtype == t.np
    assert got.tolist() == want


@pytest.mark.parametrize("t", INTS, ids=lambda t: t.name)
def test_shifts_powers_and_unary(t):
    rng = np.random.default_rng(1)
    a = _values(t, rng)
    s = rng.integers(0, t.bits, size=len(a)).astype(t.np)
    e = rng.integers(0, 40, size=len(a)).astype(t.np)
    with np.errstate(all="ignore"):
        for op, args in ((Op.SHL, [a, s]), (Op.SHR, [a, s]), (Op.IPOW, [a, e]),
                         (Op.NEG, [a]), (Op.INVERT, [a]), (Op.ABS, [a])):
            got = np_evaluate(op, t, args)
            want = [evaluate(op, t, [int(x) for x in xs], None) for xs in zip(*args)]
            assert got.astype(t.np).tolist() == want, op


@pytest.mark.parametrize("t", [D.f32, D.f64], ids=lambda t: t.name)
def test_float_arithmetic_rounds_like_folding(t):
    rng = np.random.default_rng(2)
    a = (rng.normal(size=300) * 10.0 ** rng.integers(-30, 30, 300)).astype(t.np)
    b = rng.permutation(a)
    for op in (Op.ADD, Op.SUB, Op.MUL):
        with np.errstate(over="ignore"):
            got = np_evaluate(op, t, [a, b])
        want = np.array([evaluate(op, t, [float(x), float(y)], None) for x, y in zip(a, b)],
                        t.np)
        np.testing.assert_array_equal(got, want)


def test_casts_and_comparisons():
    a = np.array([-3, -1, 0, 1, 200, 2**31 - 1], np.int64)
    for t in INTS + [D.f32, D.f64]:
        got = np_cast(a, t, D.i64)
        want = [evaluate(Op.CAST, t, [int(x)], D.i64) for x in a]
        assert got.tolist() == want, t
    for op in (Op.LT, Op.LE, Op.GT, Op.GE, Op.EQ, Op.NE):
        got = np_evaluate(op, D.bool_, [a, a[::-1]])
        assert got.astype(int).tolist() == [evaluate(op, D.bool_, [int(x), int(y)], None)
                                            for x, y in zip(a, a[::-1])]


def test_float_min_max_let_a_number_beat_nan():
    x = np.array([np.nan, 1.0, np.nan], np.float32)
    y = np.array([2.0, np.nan, np.nan], np.float32)
    assert np_evaluate(Op.MIN, D.f32, [x, y]).tolist()[:2] == [2.0, 1.0]
    assert np.isnan(np_evaluate(Op.MAX, D.f32, [x, y])[2])


def _bits(v):
    return ("nan", math.copysign(1.0, v)) if isinstance(v, float) and math.isnan(v) else (type(v), v)


@pytest.mark.parametrize("t", INTS + [D.f16, D.bf16, D.f32, D.f64, D.bool_],
                         ids=lambda t: t.name)
def test_converter_and_wrapper_are_convert_and_wrap_int(t):
    f32_max = float(np.finfo(np.float32).max)
    values = [0, 1, -1, 255, -129, 2**31, -(2**31) - 1, 2**53 + 1, 2**64 + 3, -(2**70), True,
              False, 0.0, -0.0, 0.5, -2.75, 1e-40, 65520.0, 3e38, f32_max, -f32_max,
              float(np.nextafter(f32_max, math.inf)), 1e300, -1e300, math.inf, -math.inf, math.nan,
              -math.nan, np.float32(1.5), np.int8(-3)]
    to_t = D.converter(t)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an f32 overflow is inf, silently, as in `convert`
        got = [_bits(to_t(v)) for v in values]
    assert got == [_bits(D.convert(v, t)) for v in values]
    if t.is_int:
        ints = [v for v in values if isinstance(v, int)] + [2.5, -7.9]
        assert [D.wrapper(t)(v) for v in ints] == [D.wrap_int(v, t) for v in ints]


@pytest.mark.parametrize("t", [D.f32, D.f64], ids=lambda t: t.name)
def test_muladd_folds_the_exact_value_rounded(t):
    rng = np.random.default_rng(5)
    a, b = rng.normal(size=(2, 300)) * 10.0 ** rng.integers(-20, 20, (2, 300))
    c = np.where(rng.random(300) < 0.5, -a * b, rng.normal(size=300))  # cancellations too
    for x, y, z in zip(*(v.astype(t.np).tolist() for v in (a, b, c))):
        want = D.convert(float(Fraction(x) * Fraction(y) + Fraction(z)), t)
        assert evaluate(Op.MULADD, t, [x, y, z], None) == want
    assert math.isnan(evaluate(Op.MULADD, t, [math.inf, 0.0, 1.0], None))


@pytest.mark.parametrize("t", [D.f32, D.f64], ids=lambda t: t.name)
def test_muladd_of_finite_operands_overflows_to_inf(t):
    """The exact a*b + c of finite operands may lie beyond f64's range: it rounds to ±inf, as an
    FMA instruction gives (np.float64(1e308) * 10 + 0 overflows the same way), never an error."""
    big = float(np.finfo(t.np).max)
    assert evaluate(Op.MULADD, t, [big, 10.0, 0.0], None) == math.inf
    assert evaluate(Op.MULADD, t, [-big, 10.0, 1.0], None) == -math.inf
    assert evaluate(Op.MULADD, t, [big, 2.0, -big], None) == big  # fused: no overflow between
