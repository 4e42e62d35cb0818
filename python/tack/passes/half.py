"""Half precision (f16, bf16) arithmetic as f32 arithmetic rounded once, decided here for every
engine (docs/language.md, "Half precision").

A half type is a storage type: every operation on half values computes in f32 from the exactly
widened operands and rounds the f32 result once to the half type. For + - * / sqrt the f32 result
is the exact one rounded to 24 bits, and 24 >= 2p + 2 for both half types (p = 11 for f16, 8 for
bf16), so rounding it again to p bits gives the correctly rounded half result: what NumPy's
float16 and ml_dtypes' bfloat16 compute. Transcendentals are the f32 function rounded once. Float
`//` and `%` are one operation each: this pass runs before `passes.lower_ops`, which writes them
out (CPython's divmod) in f32, and the result rounds once, as NumPy's float16 `floor_divide` and
`remainder` do.
Comparisons, min/max, abs and negation are exact in f32. Half values never fuse a multiply-add
(`passes.muladd` runs later and sees only f32 operations whose operands are roundings).
Because f32-then-round is the correctly rounded half result, a target with half instructions may
compute it with one (LLVM turns `fptrunc(fadd(fpext a, fpext b))` into PTX's `add.rn.f16`).

After this pass a half type appears only in leaves (CONST, VAR, PARAM, LOAD), SELECT/IFEXP, BITCAST
to or from a 16-bit integer, and two conversions every engine implements exactly: CAST f32 → half
(round to nearest even, overflow to inf, subnormals kept, NaN kept) and CAST half → f32 (exact).
Every other conversion is written with them here:

- half → anything: through f32 (exact), then the f32 conversion.
- f64 → half: f64 → f32 rounded to odd, then f32 → half. Rounding to odd keeps a sticky bit in
  the f32 significand's last place, below either half type's rounding position, so the two steps
  round once (Boldo & Melquiond, https://doi.org/10.1109/TC.2007.70819).
- integer → f16: through f32. An integer below 2**24 is exact in f32; one at or above 65520
  rounds to inf in f16 either way.
- integer → bf16: 8- and 16-bit integers through f32 (exact); wider ones through f64, exact for
  32-bit integers; a 64-bit magnitude of 2**53 or more keeps its top bits and a sticky bit
  below them, so that f64 holds it exactly and the f64 → half path above rounds once.
"""
from __future__ import annotations

from .. import dtypes as dt
from ..dtypes import DType
from ..ir.nodes import Expr
from ..ir.ops import COMPARISON, MATH_BINARY, MATH_UNARY, WARP_REDUCTIONS, Op
from ..ir.walk import map_body
from .build import B

# Ops whose half result is the f32 op of the widened operands, rounded once (a warp sum of halves
# is the f32 butterfly's sum, rounded once at the end; shuffles move half values as they are).
ROUNDED = frozenset({Op.NEG, Op.ADD, Op.SUB, Op.MUL, Op.MULADD, Op.FDIV, Op.FREM, Op.POW,
                     Op.MIN, Op.MAX, Op.ABS, Op.RSQRT, Op.FLOORDIV, Op.MOD}) \
    | MATH_UNARY | MATH_BINARY | WARP_REDUCTIONS
# Ops of half operands with a result that is not half: computed on the widened operands.
WIDENED = COMPARISON | {Op.ISNAN}


def widen_half(body: list) -> list:
    """`body` with every half operation computed in f32 (the module docstring's rules)."""
    return map_body(body, _rewrite)


def _is_half(t) -> bool:
    return isinstance(t, DType) and t.is_half


def _rewrite(e: Expr) -> Expr:
    if e.op is Op.CAST:
        src, t = e.args[0].dtype, e.dtype
        if _is_half(t) and src is not t:
            return to_half(e.args[0], t, B(e.loc))
        if _is_half(src) and t is not src:
            return B(e.loc).cast(widen(e.args[0]), t)
        return e
    if e.op in ROUNDED and _is_half(e.dtype):
        wide = e.replace(dtype=dt.f32, args=tuple(widen(a) for a in e.args))
        return B(e.loc).cast(wide, e.dtype)  # f32 → half: one rounding
    if (e.op in WIDENED or e.op is Op.PRINT) and any(_is_half(a.dtype) for a in e.args):
        return e.replace(args=tuple(widen(a) for a in e.args))
    return e


def widen(e: Expr) -> Expr:
    """A half value as f32 (exact); other values unchanged."""
    return B(e.loc).cast(e, dt.f32) if _is_half(e.dtype) else e


def to_half(e: Expr, t: DType, k: B) -> Expr:
    """`e` (any scalar dtype) rounded once to the half type `t`."""
    src = e.dtype
    if e.op is Op.CONST:
        return k.const(e.arg, t)  # dtypes.convert: rounded once
    if src is dt.f32:
        return k.cast(e, t)
    if _is_half(src):
        return k.cast(k.cast(e, dt.f32), t)
    if src is dt.f64:
        return k.cast(round_to_odd_f32(e, k), t)
    if src.kind == "b":
        return k.cast(k.cast(k.cast(e, dt.i32), dt.f32), t)  # 0 or 1
    if t is dt.f16 or src.bits <= 16:
        return k.cast(k.cast(e, dt.f32), t)
    return k.cast(round_to_odd_f32(int_as_f64(e, k), k), t)


def round_to_odd_f32(d: Expr, k: B) -> Expr:
    """f64 `d` → f32 rounded to odd: the f32 toward zero, its last bit set when inexact."""
    if d.op is Op.CONST:  # folded by the same rule (dtypes.convert rounds constants once)
        return d
    t = k.cast(d, dt.f32)  # to nearest even
    back = k.cast(t, dt.f64)
    inexact = k.both(k.cmp(Op.NE, back, d), k.op(Op.NOT, dt.bool_, k.op(Op.ISNAN, dt.bool_, d)))
    bits = k.op(Op.BITCAST, dt.u32, t)
    away = k.cmp(Op.GT, k.op(Op.ABS, dt.f64, back), k.op(Op.ABS, dt.f64, d))
    toward_zero = k.sel(away, k.bin(Op.SUB, bits, k.const(1, dt.u32)), bits)
    odd = k.op(Op.BITCAST, dt.f32, k.bin(Op.OR_, toward_zero, k.const(1, dt.u32)))
    return k.sel(inexact, odd, t)


def int_as_f64(v: Expr, k: B) -> Expr:
    """An integer of 32 or 64 bits as an f64 that rounds to any half type as `v` itself does:
    exact below 2**53, else its magnitude's bits above 2**11 and one sticky bit for the rest."""
    if v.dtype.bits < 64:
        return k.cast(v, dt.f64)  # exact
    u = k.cast(v, dt.u64)  # the same bits
    neg = k.cmp(Op.LT, v, k.const(0, v.dtype)) if v.dtype.is_signed else None
    m = u if neg is None else k.sel(neg, k.bin(Op.SUB, k.const(0, dt.u64), u), u)
    sticky = k.cast(k.cmp(Op.NE, k.bin(Op.AND_, m, k.const(2047, dt.u64)), k.const(0, dt.u64)),
                    dt.u64)
    top = k.bin(Op.OR_, k.bin(Op.SHR, m, k.const(11, dt.u64)), sticky)
    big = k.bin(Op.MUL, k.cast(top, dt.f64), k.const(2048.0, dt.f64))  # exact: a power of two
    mag = k.sel(k.cmp(Op.GE, m, k.const(1 << 53, dt.u64)), big, k.cast(m, dt.f64))
    return mag if neg is None else k.sel(neg, k.op(Op.NEG, dt.f64, mag), mag)
