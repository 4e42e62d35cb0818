"""An independent reference for Tack kernels: the kernel's own Python source, run serially.

`run_reference(kernel, *args)` parses the ORIGINAL source of a `@tack.kernel` (`kernel.fn`),
rewrites its AST so that every literal, operator, cast, builtin, load and store goes through a
helper implementing the Tack contract (TACK_API.md §1.5-1.8, §1.22), and executes it as plain
Python over NumPy copies of the array arguments, one parallel-loop iteration after another. It
uses nothing of Tack's parser, typechecker, IR or passes: only the language contract. (It imports
`tack` solely to recognise `tack.f32`-style cast objects and `tack.constant` values.)

Model, as implemented here (the contract's rule in brackets where it is a choice):

* Values are NumPy integer scalars of the ten dtypes (comparisons/`and`/`or`/`not` give i32 0/1),
  floats `F(value, err)`, and weak floats `Weak` (a float literal or an expression of literals,
  evaluated lazily at the precision it meets: [NEP 50 weak literals]). Integer arithmetic is done
  on Python big integers and wrapped to the width, so it is exact by construction.
* Integer literals are i32/i64/u64 by value; an integer literal (or `True`/`False`, or an untyped
  integer `tack.constant`) beside a weak float keeps the expression weak (NEP 50: two Python
  scalars stay weak); a weak float beside a non-literal integer is f32.
* Promotion follows the contract's table; a signed type with u64 raises `Rejected` (Tack must
  reject the kernel). `/` of two integers is f32; `**` of two integers wraps in the base's type
  (negative exponent: outside the domain); `x ** 2` with a literal 2 and a float x is `x * x`.
* Math builtins: integer arguments only (literals included, as for `/`) give f32; otherwise the
  arguments promote like an operator's operands, an integer converting straight to the result
  precision [§1.7 "integer arguments → f32 unless another argument is f64"].
* Locals: one type per local, joined over all its assignments by a type-only pass that walks every
  statement (both branches, loop bodies once) to a fixpoint, as the contract's "derived from all
  their assignments" says. A local assigned exactly once, from a weak value, stays weak
  (`weak_locals="spec"`, the 0.4.0 rule of §1.7); `weak_locals="f32"` makes it f32 instead.
* Sequential `range()` variables are i32 widened by the bounds' types; the parallel loop variable is
  i32 widened by the types of the parameters its bounds read (arrays count as i64) — the contract
  is silent on this, so this choice mirrors the documented host-range behaviour. A loop over
  `tack.unroll(range(...), k)` is the plain `range` loop: the hint changes no result.
* A conditional expression has the promoted type of both arms (computed by the type pass); only the
  selected arm is evaluated.

Floating point (no fast-math, FMA contraction permitted, vendor libm): every float value carries a
running bound `err` on how far any conforming implementation may be from it. Correctly rounded
operations (+ - * / sqrt floor ceil trunc abs min max copysign fmod, conversions) add nothing when
their inputs are exact, except that a product adds its own exact rounding error (an FMA may skip
that rounding); a transcendental function adds `LIBM_ULPS` ulps (none where every libm is exact,
e.g. exp(0) or log2 of a power of two); inexact inputs propagate with first-order bounds plus
rounding slack. A stored float is compared within its bound, which is 0 (bit-exact) wherever no
inexact product or libm call is involved. A branch, comparison or float→int conversion whose
outcome the bound cannot decide marks the iteration *tainted*: the elements it stored are reported
unverifiable instead of guessed. Signed zeros are not compared; denormal results may differ by the
smallest normal (outside the portable domain).

Where the model approximates: tainted iterations are not checked at all; the bounds are first-order
and assume libm is monotone where the function is; NaN payloads are not compared. Locals follow
Tack's rule exactly (an assignment in a branch never taken still takes part in the join). Anything
outside the portable domain (division by zero, shift counts outside [0, width), float→int of
non-finite or unrepresentable values, `MIN // -1`, negative integer exponents, out-of-bounds
indices, a zero sequential step) raises `OutsideDomain` naming the line.
"""
from __future__ import annotations

import ast
import builtins
import inspect
import math
import operator
import textwrap
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

__all__ = [
    "LIBM_ULPS",
    "OracleError",
    "OutsideDomain",
    "Reference",
    "Rejected",
    "reference",
    "run_reference",
]

LIBM_ULPS = 4  # allowed error of a transcendental function, in ulps of its result


class OracleError(Exception):
    """Base of the oracle's own errors."""


class OutsideDomain(OracleError):
    """The kernel leaves the portable domain for these inputs (no defined result to compare)."""


class Rejected(OracleError):
    """Tack must reject this kernel or these argument types (e.g. a signed type with u64)."""


class _Pending(Exception):
    """Type pass: a local's type is not known yet."""


# -- scalar types ----------------------------------------------------------------------------------
class ST:
    __slots__ = ("bits", "kind", "name", "np")

    def __init__(self, name, kind, bits, np_type):
        self.name, self.kind, self.bits, self.np = name, kind, bits, np_type

    is_int = property(lambda s: s.kind in "iu")
    is_float = property(lambda s: s.kind == "f")
    lo = property(lambda s: -(1 << (s.bits - 1)) if s.kind == "i" else 0)
    hi = property(lambda s: (1 << (s.bits - 1)) - 1 if s.kind == "i" else (1 << s.bits) - 1)

    def __repr__(self):
        return self.name


I8, U8, I16, U16 = ST("i8", "i", 8, np.int8), ST("u8", "u", 8, np.uint8), \
    ST("i16", "i", 16, np.int16), ST("u16", "u", 16, np.uint16)
I32, U32, I64, U64 = ST("i32", "i", 32, np.int32), ST("u32", "u", 32, np.uint32), \
    ST("i64", "i", 64, np.int64), ST("u64", "u", 64, np.uint64)
F32, F64 = ST("f32", "f", 32, np.float32), ST("f64", "f", 64, np.float64)
WEAK = ST("weak", "w", 0, None)
TYPES = (I8, U8, I16, U16, I32, U32, I64, U64, F32, F64)
BY_NAME = {t.name: t for t in TYPES}
BY_NP = {t.np: t for t in TYPES}
_FMAX = {F32: float(np.finfo(np.float32).max), F64: float(np.finfo(np.float64).max)}
_TINY = {F32: float(np.finfo(np.float32).tiny), F64: float(np.finfo(np.float64).tiny)}
_EPS = {F32: 2.0 ** -23, F64: 2.0 ** -52}
INF = math.inf


def literal_type(v: int) -> ST:
    for t in (I32, I64, U64):
        if t.lo <= v <= t.hi:
            return t
    raise Rejected(f"integer {v} is outside the 64-bit ranges")


def promote(a: ST, b: ST) -> ST:
    """The contract's table: the narrowest type holding both ranges; floats win; weak adapts."""
    if a is b:
        return a
    if a is WEAK:
        return b if b.is_float else WEAK
    if b is WEAK:
        return a if a.is_float else WEAK
    if a.is_float or b.is_float:
        if a.is_float and b.is_float:
            return a if a.bits >= b.bits else b
        return a if a.is_float else b
    if a.kind == b.kind:
        return a if a.bits >= b.bits else b
    s, u = (a, b) if a.kind == "i" else (b, a)
    if u.bits < s.bits:
        return s
    if u.bits == 64:
        raise Rejected(f"{s.name} mixed with u64 has no common type")
    return BY_NAME[f"i{2 * u.bits}"]


def wrap(v: int, t: ST):
    m = int(v) & ((1 << t.bits) - 1)
    if t.kind == "i" and m >> (t.bits - 1):
        m -= 1 << t.bits
    return t.np(m)


def int_to_float(v: int, t: ST) -> float:
    """The exact integer `v` rounded once (to nearest, ties to even) to `t`."""
    v = int(v)
    if t is F64:
        return float(v)  # CPython rounds int→float correctly
    a = abs(v)
    n = a.bit_length()
    if n > 24:
        shift = n - 24
        q, r = divmod(a, 1 << shift)
        half = 1 << (shift - 1)
        if r > half or (r == half and q & 1):
            q += 1
        a = q << shift
    return float(np.float32(float(-a if v < 0 else a)))  # exact: a has at most 24 bits


def ulp(x, t: ST) -> float:
    a = abs(float(x))
    if not math.isfinite(a):
        return INF
    a = min(a, _FMAX[t])
    return float(np.spacing(t.np(a)))


# -- values ----------------------------------------------------------------------------------------
class F:
    """A float of type f32/f64 (`v` is a NumPy scalar) with a bound `e` on conforming deviation."""

    __slots__ = ("e", "v")

    def __init__(self, v, e=0.0):
        self.v, self.e = v, e

    def __repr__(self):
        return f"F({self.v!r}{'' if not self.e else f' ± {self.e:.3g}'})"


class Weak:
    """A weak float: `at(t)` evaluates it at precision t. `lit` is the value of a bare literal."""

    __slots__ = ("fn", "lit")

    def __init__(self, fn, lit=None):
        self.fn, self.lit = fn, lit

    def at(self, t: ST) -> F:
        return self.fn(t)

    def __repr__(self):
        return f"Weak({self.lit!r})" if self.lit is not None else "Weak(<expr>)"


def weak_const(x: float) -> Weak:
    x = float(x)
    return Weak(lambda t: F(t.np(x), 0.0), lit=x)


def typeof(x) -> ST:
    if isinstance(x, F):
        return BY_NP[type(x.v)]
    if isinstance(x, Weak):
        return WEAK
    try:
        return BY_NP[type(x)]
    except KeyError:
        raise Rejected(f"value {x!r} of unsupported type {type(x).__name__}") from None


_PYCMP = {"lt": operator.lt, "le": operator.le, "gt": operator.gt, "ge": operator.ge,
          "eq": operator.eq, "ne": operator.ne}


def _libm(name: str, *xs: float) -> float:
    fn = {"exp2": lambda x: math.pow(2.0, x), "pow": math.pow}.get(name) or getattr(math, name)
    try:
        return float(fn(*xs))
    except (ValueError, OverflowError, ZeroDivisionError):
        npf = {"asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "atan2": np.arctan2,
               "pow": np.power}.get(name) or getattr(np, name)
        return float(npf(*[np.float64(x) for x in xs]))


_EXACT1 = {"sqrt": np.sqrt, "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc}
_TRANS1 = ("exp", "exp2", "log", "log2", "log10", "sin", "cos", "tan", "asin", "acos", "atan",
           "sinh", "cosh", "tanh")
MATH1 = frozenset(_EXACT1) | frozenset(_TRANS1)
MATH2 = frozenset({"atan2", "copysign"})


def _product_error(x, y, v) -> float:
    """|x*y - v|: the exact rounding error of the product v = fl(x*y) (0 for non-finite inputs)."""
    fx, fy, fv = float(x), float(y), float(v)
    if not (math.isfinite(fx) and math.isfinite(fy)):
        return 0.0
    if not math.isfinite(fv):
        return INF
    if type(v) is np.float32:
        return abs(fx * fy - fv)  # exact: a 48-bit product minus its rounding fits a double
    return float(abs(Fraction(fx) * Fraction(fy) - Fraction(fv)))


_EXACT_AT = {("exp", 0.0): 1.0, ("exp2", 0.0): 1.0, ("cos", 0.0): 1.0, ("cosh", 0.0): 1.0,
             ("log", 1.0): 0.0, ("log2", 1.0): 0.0, ("log10", 1.0): 0.0, ("acos", 1.0): 0.0}
_ODD_ZERO = frozenset({"sin", "tan", "atan", "asin", "sinh", "tanh"})


def _exact_libm(name: str, xs: tuple, r: float) -> bool:
    """Cases where any libm returns the exact result (so no ulp allowance is needed)."""
    x = xs[0]
    if not all(math.isfinite(z) for z in xs + (r,)):
        return False
    if name in _ODD_ZERO and x == 0.0 or _EXACT_AT.get((name, x)) == r:
        return True
    if name == "exp2" and x == int(x) and abs(x) < 1000:
        return True
    if name == "log2" and x > 0 and math.frexp(x)[0] == 0.5:
        return True
    if name == "pow":
        y = xs[1]
        if y == int(y) and 0 <= y <= 64 and x == int(x):
            return Fraction(int(x)) ** int(y) == Fraction(r)
    return False


def _spread(f, center: float, points) -> float:
    """max |f(p) - f(center)| over points, or INF when NaN-ness can change."""
    c = f(center)
    worst = 0.0
    for p in points:
        try:
            v = f(p)
        except (ValueError, OverflowError):
            return INF
        if math.isnan(v) != math.isnan(c):
            return INF
        if math.isnan(v):
            continue
        d = abs(v - c)
        if math.isnan(d):  # inf - inf
            return INF
        worst = max(worst, d)
    return worst


# -- the runtime the rewritten kernel calls --------------------------------------------------------
class _Arr:
    """An array argument: a C-contiguous copy, per-element error bounds and its dtype."""

    def __init__(self, data: np.ndarray, name: str):
        self.data = data
        self.flat = data.reshape(-1)
        self.err = np.zeros(data.size)
        self.unverified = np.zeros(data.size, dtype=bool)
        self.t = BY_NP[data.dtype.type]
        self.name = name
        self.shape = data.shape
        self.ndim = data.ndim
        self.size = data.size

    def __len__(self):
        return self.shape[0] if self.shape else 0


class Runtime:
    """Helpers the rewritten source calls as `_tack_R_.<op>(...)`; one instance per run."""

    def __init__(self, weak_locals: str = "spec"):
        self.typing = False
        self.weak_locals = weak_locals
        self.types: dict[str, ST] = {}
        self.sites: dict[str, dict] = {}  # local → {assignment site: value is a literal expr}
        self.ifx: dict[int, ST] = {}
        self.tainted = False
        self.iter_stores: list = []
        self.tainted_iters: list[int] = []
        self.iteration = None
        self.loop_plan = None

    # -- bookkeeping ------------------------------------------------------------------------------
    def domain(self, what: str):
        if not self.typing:
            raise OutsideDomain(what)

    def taint(self):
        if not self.typing:
            self.tainted = True

    def dummy(self, t: ST):
        if t is WEAK:
            return weak_const(1.0)
        return F(t.np(1.0), 0.0) if t.is_float else t.np(1)

    def iterations(self):
        start, stop, step, vt = self.loop_plan
        for k, v in enumerate(builtins.range(start, stop, step)):
            yield k, wrap(v, vt)

    def begin(self, k: int):
        self.finish()
        self.iteration, self.tainted, self.iter_stores = k, False, []

    def finish(self):
        if self.iteration is not None and self.tainted:
            self.tainted_iters.append(self.iteration)
            for arr, i in self.iter_stores:
                arr.unverified[i] = True
        self.iteration = None

    # -- literals ---------------------------------------------------------------------------------
    def ilit(self, v: int):
        return wrap(v, literal_type(v))

    def flit(self, v: float):
        return weak_const(v)

    def tconst(self, tname: str, v):
        t = BY_NAME[tname]
        return F(t.np(v), 0.0) if t.is_float else wrap(v, t)

    # -- conversions ------------------------------------------------------------------------------
    def to_float(self, x, t: ST) -> F:
        if isinstance(x, Weak):
            return x.at(t)
        if isinstance(x, F):
            src = typeof(x)
            if src is t:
                return x
            v = t.np(x.v)
            e = x.e
            if e and t.bits < src.bits:
                e = INF if not math.isfinite(float(v)) else e + ulp(v, t)
            return F(v, e)
        return F(t.np(int_to_float(int(x), t)), 0.0)

    def f2i(self, f: F, t: ST):
        if self.typing:
            return t.np(1)
        x = float(f.v)
        if not math.isfinite(x):
            self.domain(f"float→{t.name} conversion of {x}")
        r = math.trunc(x)
        if f.e and (not math.isfinite(f.e) or math.trunc(x - f.e) != math.trunc(x + f.e)):
            self.taint()
        if not t.lo <= r <= t.hi:
            self.domain(f"float→{t.name} conversion of {x} (not representable)")
        return t.np(r)

    def conv(self, x, t: ST):
        """Implicit or explicit conversion to `t` (stores, locals, casts, IfExp arms)."""
        if t.is_float:
            return self.to_float(x, t)
        if isinstance(x, Weak):
            if x.lit is not None:  # a bare literal converts its exact value once
                return self.f2i(F(np.float64(x.lit)), t)
            return self.f2i(x.at(F32), t)
        if isinstance(x, F):
            return self.f2i(x, t)
        return wrap(int(x), t)

    def settle(self, x):
        return x.at(F32) if isinstance(x, Weak) else x

    # -- float arithmetic with error bounds --------------------------------------------------------
    def _prop(self, v, p: float, t: ST, extra: float = 0.0) -> float:
        if p == 0 and extra == 0:
            return 0.0
        fv = float(v)
        if not (math.isfinite(p) and math.isfinite(extra) and math.isfinite(fv)):
            return INF
        e = extra
        if p:
            e += p * (1 + 4 * _EPS[t]) + ulp(abs(fv) + p, t)
        return INF if abs(fv) + e >= _FMAX[t] else e

    def fbin(self, op: str, a: F, b: F, t: ST) -> F:
        x, y = a.v, b.v
        if op in ("add", "sub"):
            v = x + y if op == "add" else x - y
            return F(v, self._prop(v, a.e + b.e, t))
        if op == "mul":
            v = x * y
            p = 0.0
            if a.e or b.e:
                p = abs(float(x)) * b.e + abs(float(y)) * a.e + a.e * b.e
            # An FMA may skip this product's rounding: allow for the rounding error it had.
            return F(v, self._prop(v, p, t, _product_error(x, y, v)))
        if op == "truediv":
            v = x / y
            if not (a.e or b.e):
                return F(v, 0.0)
            den = abs(float(y)) - b.e
            if den <= 0:
                return F(v, INF)
            return F(v, self._prop(v, (a.e + abs(float(v)) * b.e) / den, t))
        if op in ("floordiv", "mod"):
            return self.fdivmod(a, b, t, op == "floordiv")
        if op in ("min", "max"):
            return self.fminmax(a, b, op == "min")
        if op == "pow":
            return self.fmath2("pow", a, b, t)
        raise Rejected(f"operator {op} on floats")

    def fminmax(self, a: F, b: F, is_min: bool) -> F:
        x, y = a.v, b.v
        if np.isnan(x) and np.isnan(y):
            return F(x, 0.0 if not (a.e or b.e) else INF)
        if np.isnan(x):
            return F(y, INF if a.e else b.e)
        if np.isnan(y):
            return F(x, INF if b.e else a.e)
        pick_x = x < y if is_min else x > y
        if abs(float(x) - float(y)) > a.e + b.e:  # a decisive choice keeps only its own error
            return F(x, a.e) if pick_x else F(y, b.e)
        e = max(a.e, b.e)
        if x == y and np.signbit(x) != np.signbit(y):
            e = max(e, float(np.spacing(type(x)(0))))  # either zero is allowed: sign unknown
        return F(x if pick_x else y, e)

    def fdivmod(self, a: F, b: F, t: ST, floor: bool) -> F:
        x, y = a.v, b.v
        if y == 0:
            self.domain("float // or % by zero")
            return F(t.np(0.0))
        one, zero = t.np(1.0), t.np(0.0)
        mod = np.fmod(x, y)  # CPython's float_divmod, step by step at precision t
        div = (x - mod) / y
        if mod:
            if (y < 0) != (mod < 0):
                mod = mod + y
                div = div - one
        else:
            mod = np.copysign(zero, y)
        if div:
            fl = np.floor(div)
            if div - fl > t.np(0.5):
                fl = fl + one
        else:
            fl = np.copysign(zero, x / y)
        v = fl if floor else mod
        if not (a.e or b.e):
            return F(v, 0.0)
        q = float(x) / float(y)
        den = abs(float(y)) - b.e
        if den <= 0 or not math.isfinite(q):
            return F(v, INF)
        eq = (a.e + abs(q) * b.e) / den
        if not math.isfinite(eq) or not math.isfinite(q + eq):
            return F(v, INF)
        jumps = math.floor(q - eq) != math.floor(q + eq)
        if floor:
            p = (math.floor(q + eq) - math.floor(q - eq)) if jumps else 0.0
            return F(v, self._prop(v, p, t, ulp(v, t)))
        p = a.e + abs(math.floor(q)) * b.e + (abs(float(y)) + b.e if jumps else 0.0)
        return F(v, self._prop(v, p, t))

    def fmath1(self, name: str, a: F, t: ST) -> F:
        x = float(a.v)
        if name in _EXACT1:
            v = _EXACT1[name](a.v)
            if not a.e:
                return F(v, 0.0)
            return F(v, self._prop(v, _spread(lambda z: float(_EXACT1[name](np.float64(z))),
                                              x, (x - a.e, x + a.e)), t))
        v = t.np(_libm(name, x))
        exact = _exact_libm(name, (x,), float(v))
        libm = LIBM_ULPS * ulp(v, t) if math.isfinite(float(v)) and not exact else 0.0
        if not a.e:
            p = 0.0
        elif not math.isfinite(a.e):
            p = INF
        elif name in ("sin", "cos"):
            p = min(a.e, 2.0)
        elif name == "tan" and (a.e >= 1.5 or math.cos(x - a.e) * math.cos(x + a.e) <= 0):
            p = INF
        else:
            p = _spread(lambda z: _libm(name, z), x, (x - a.e, x + a.e))
        return F(v, self._prop(v, p, t, libm) if (p or libm) else 0.0)

    def fmath2(self, name: str, a: F, b: F, t: ST) -> F:
        x, y = float(a.v), float(b.v)
        if name == "copysign":
            v = np.copysign(a.v, b.v)
            if math.isnan(y):  # a NaN's sign bit is the producer's choice (outside the domain)
                return F(v, max(2 * abs(x) + a.e, float(np.spacing(type(v)(0)))))
            if b.e and (y - b.e <= 0 <= y + b.e or not math.isfinite(b.e)):
                return F(v, self._prop(v, 2 * abs(x) + a.e, t))
            return F(v, a.e)
        v = t.np(_libm(name, x, y))
        exact = _exact_libm(name, (x, y), float(v))
        libm = LIBM_ULPS * ulp(v, t) if math.isfinite(float(v)) and not exact else 0.0
        p = 0.0
        if a.e or b.e:
            if not (math.isfinite(a.e) and math.isfinite(b.e)):
                p = INF
            else:
                pts = [(x + sa * a.e, y + sb * b.e) for sa in (-1, 0, 1) for sb in (-1, 0, 1)]
                p = _spread(lambda z: _libm(name, *z), (x, y), pts)
        return F(v, self._prop(v, p, t, libm) if (p or libm) else 0.0)

    def fcmp(self, op: str, a: F, b: F) -> bool:
        x, y = float(a.v), float(b.v)
        r = _PYCMP[op](x, y)
        e = a.e + b.e
        if e and (not math.isfinite(e) or not abs(x - y) > e):
            self.taint()
        return r

    # -- typed operators --------------------------------------------------------------------------
    @staticmethod
    def _pe(ta: ST, tb: ST, la: bool, lb: bool) -> ST:
        """Promotion of two operands: a weak float beside a non-literal integer is f32."""
        t = promote(ta, tb)
        if t is WEAK and ((ta.is_int and not la) or (tb.is_int and not lb)):
            return F32
        return t

    def _weak2(self, fn, a, b) -> Weak:
        return Weak(lambda t: fn(self.to_float(a, t), self.to_float(b, t), t))

    def bin(self, op: str, a, b, la: bool = False, lb: bool = False):
        ta, tb = typeof(a), typeof(b)
        if op in ("and", "or", "xor", "shl", "shr"):
            if not (ta.is_int and tb.is_int):
                raise Rejected(f"operator {op} needs integers, got {ta} and {tb}")
            if op in ("shl", "shr"):
                return self.shift(op, a, b, ta)
            t = promote(ta, tb)
            f = {"and": operator.and_, "or": operator.or_, "xor": operator.xor}[op]
            return wrap(f(int(a), int(b)), t)
        if op == "truediv" and ta.is_int and tb.is_int:
            return self.fbin("truediv", self.to_float(a, F32), self.to_float(b, F32), F32)
        if op == "pow" and ta.is_int and tb.is_int:
            return self.ipow(a, b, ta)
        t = self._pe(ta, tb, la, lb)
        if op == "pow" and lb and tb.is_int and int(b) == 2:  # x ** 2 is exactly x * x
            if t is WEAK:
                return Weak(lambda tt: self.fbin("mul", a.at(tt), a.at(tt), tt))
            fa = self.to_float(a, t)
            return self.fbin("mul", fa, fa, t)
        if t is WEAK:
            return self._weak2(lambda x, y, tt: self.fbin(op, x, y, tt), a, b)
        if t.is_float:
            return self.fbin(op, self.to_float(a, t), self.to_float(b, t), t)
        return self.ibin(op, int(a), int(b), t)

    def ibin(self, op: str, x: int, y: int, t: ST):
        if op in ("floordiv", "mod"):
            if y == 0:
                self.domain("integer // or % by zero")
                return t.np(0)
            if op == "floordiv" and y == -1 and x == t.lo and t.kind == "i":
                self.domain(f"{t.name} MIN // -1")
            return wrap(x // y if op == "floordiv" else x % y, t)
        f = {"add": operator.add, "sub": operator.sub, "mul": operator.mul, "min": min,
             "max": max}.get(op)
        if f is None:
            raise Rejected(f"operator {op} on integers")
        return wrap(f(x, y), t)

    def shift(self, op: str, a, b, t: ST):
        n = int(b)
        if not 0 <= n < t.bits:
            self.domain(f"shift of {t.name} by {n}")
            n &= t.bits - 1
        x = int(a)
        return wrap(x << n if op == "shl" else x >> n, t)

    def ipow(self, a, b, t: ST):
        n = int(b)
        if n < 0:
            self.domain(f"integer power with negative exponent {n}")
            return t.np(0)
        return wrap(pow(int(a), n, 1 << t.bits), t)

    def neg(self, a):
        if isinstance(a, Weak):
            return Weak(lambda t: self.neg(a.at(t)))
        if isinstance(a, F):
            return F(-a.v, a.e)
        return wrap(-int(a), typeof(a))

    def invert(self, a):
        t = typeof(a)
        if not t.is_int:
            raise Rejected(f"~ needs an integer, got {t}")
        return wrap(~int(a), t)

    def abs_(self, a):
        if isinstance(a, Weak):
            return Weak(lambda t: self.abs_(a.at(t)))
        if isinstance(a, F):
            return F(abs(a.v), a.e)
        return wrap(abs(int(a)), typeof(a))

    def math(self, name: str, args: tuple, lits: tuple):
        """Integer arguments only: f32 (as for `/`; literals too: write `sqrt(2.0)` for a weak
        result). Otherwise the arguments promote like a binary operator's operands (an integer
        converts straight to the result precision; a literal one leaves a float literal weak)."""
        types = [typeof(x) for x in args]
        if all(t.is_int for t in types):
            fs = [self.to_float(x, F32) for x in args]
            return self.fmath1(name, fs[0], F32) if name in MATH1 else self.fmath2(name, *fs, F32)
        if name in MATH1:
            a = args[0]
            if isinstance(a, Weak):
                return Weak(lambda t: self.fmath1(name, a.at(t), t))
            return self.fmath1(name, a, types[0])
        (a, b), (la, lb) = args, lits
        t = self._pe(types[0], types[1], la, lb)
        if t is WEAK:
            return self._weak2(lambda x, y, tt: self.fmath2(name, x, y, tt), a, b)
        return self.fmath2(name, self.to_float(a, t), self.to_float(b, t), t)

    def cast(self, tname: str, x):
        return self.conv(x, BY_NAME[tname])

    # -- comparisons and logic --------------------------------------------------------------------
    def cmp(self, op: str, a, b, la=False, lb=False):
        t = self._pe(typeof(a), typeof(b), la, lb)
        if t is WEAK:
            t = F32
        if self.typing:
            return np.int32(1)
        if t.is_int:
            return np.int32(_PYCMP[op](int(a), int(b)))
        return np.int32(self.fcmp(op, self.to_float(a, t), self.to_float(b, t)))

    def chain(self, ops: tuple, thunks: tuple, lits: tuple):
        left = thunks[0]()
        result = 1
        for k, op in enumerate(ops):
            right = thunks[k + 1]()
            if not self.cmp(op, left, right, lits[k], lits[k + 1]) and not self.typing:
                result = 0
                break
            left = right
        return np.int32(result)

    def truth(self, x) -> bool:
        x = self.settle(x)
        if self.typing:
            typeof(x)
            return True
        if isinstance(x, F):
            return self.fcmp("ne", x, F(type(x.v)(0.0)))
        return int(x) != 0

    def land(self, *thunks):
        for th in thunks:
            if not self.truth(th()) and not self.typing:
                return np.int32(0)
        return np.int32(1)

    def lor(self, *thunks):
        for th in thunks:
            if self.truth(th()) and not self.typing:
                return np.int32(1)
        return np.int32(0)

    def not_(self, x):
        return np.int32(not self.truth(x))

    def ifexp(self, nid: int, cond, fx, fy, lx: bool, ly: bool):
        if self.typing:
            self.truth(cond)
            t = self._pe(typeof(fx()), typeof(fy()), lx, ly)
            self.ifx[nid] = t
            return self.dummy(t)
        t = self.ifx[nid]
        chosen = fx() if self.truth(cond) else fy()
        if t is WEAK:
            return chosen if isinstance(chosen, Weak) else Weak(
                lambda tt: self.to_float(chosen, tt))
        return self.conv(chosen, t)

    # -- memory -----------------------------------------------------------------------------------
    def _flat(self, arr: _Arr, idx: tuple) -> int:
        for i in idx:
            if not typeof(i).is_int:
                raise Rejected(f"index of type {typeof(i)} into '{arr.name}'")
        if self.typing:
            return 0
        if not idx:
            if arr.ndim:
                raise Rejected(f"'{arr.name}[None]' of a {arr.ndim}-dimensional array")
            return 0
        if len(idx) == 1:
            k = int(idx[0])
            if not 0 <= k < arr.size:
                self.domain(f"index {k} outside '{arr.name}' of size {arr.size}")
            return k
        if len(idx) != arr.ndim:
            raise Rejected(f"{len(idx)} indices for the {arr.ndim}-dimensional '{arr.name}'")
        k = 0
        for i, n in zip(idx, arr.shape):
            i = int(i)
            if not 0 <= i < n:
                self.domain(f"index {tuple(int(j) for j in idx)} outside '{arr.name}' "
                            f"of shape {arr.shape}")
            k = k * n + i
        return k

    def load(self, arr: _Arr, idx: tuple):
        k = self._flat(arr, idx)
        if self.typing:
            return self.dummy(arr.t)
        v = arr.flat[k]
        return F(v, float(arr.err[k])) if arr.t.is_float else v

    def store(self, arr: _Arr, idx: tuple, value):
        k = self._flat(arr, idx)
        v = self.conv(value, arr.t)
        if self.typing:
            return
        if isinstance(v, F):
            arr.flat[k], arr.err[k] = v.v, v.e
        else:
            arr.flat[k], arr.err[k] = v, 0.0
        self.iter_stores.append((arr, k))

    def shape(self, arr, k: int):
        if not isinstance(arr, _Arr) or not 0 <= k < arr.ndim:
            raise Rejected(f"shape[{k}] of {arr!r}")
        return np.int64(arr.shape[k])

    # -- locals and loops -------------------------------------------------------------------------
    def _join(self, name: str, t: ST):
        old = self.types.get(name)
        self.types[name] = t if old is None else promote(old, t)

    def _stays_weak(self, name: str) -> bool:
        """Assigned exactly once, to an expression of float literals (§1.7, since 0.4.0)."""
        sites = self.sites.get(name, {})
        return self.weak_locals == "spec" and len(sites) == 1 and all(sites.values())

    def assign(self, name: str, site, value, literal: bool = False):
        if self.typing:
            self._join(name, typeof(value))
            self.sites.setdefault(name, {})[site] = literal
            return None
        t = self.types[name]
        if t is WEAK:
            if self._stays_weak(name):
                return value
            t = F32
        return self.conv(value, t)

    def var(self, name: str):
        t = self.types.get(name)
        if t is None:
            raise _Pending(name)
        if t is WEAK and not self._stays_weak(name):
            t = F32
        return self.dummy(t)

    def _range_type(self, args) -> ST:
        t = I32
        for a in args:
            ta = typeof(a)
            if not ta.is_int:
                raise Rejected(f"range() argument of type {ta}")
            t = promote(t, ta)
        return t

    def range_t(self, name: str, site: int, *args):
        self._join(name, self._range_type(args))
        self.sites.setdefault(name, {})[site] = False

    def range(self, name: str, site: int, *args):
        self._range_type(args)
        t = self.types[name]
        bounds = [int(a) for a in args]
        if len(bounds) == 3 and bounds[2] == 0:
            self.domain("range() step of zero")
        for v in builtins.range(*bounds):
            yield wrap(v, t)


# -- source rewriting ------------------------------------------------------------------------------
_BINOPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "truediv",
           ast.FloorDiv: "floordiv", ast.Mod: "mod", ast.Pow: "pow", ast.BitAnd: "and",
           ast.BitOr: "or", ast.BitXor: "xor", ast.LShift: "shl", ast.RShift: "shr"}
_CMPOPS = {ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge", ast.Eq: "eq",
           ast.NotEq: "ne"}
_R, _P = "_tack_R_", "_tack_P_"


def _known_functions() -> dict[int, str]:
    known = {}
    for n in sorted(MATH1 | MATH2 | {"pow"}):
        if hasattr(math, n):
            known[id(getattr(math, n))] = n
    known[id(math.fabs)] = "abs"
    for n in ("abs", "min", "max", "pow", "int", "float", "len"):
        known[id(getattr(builtins, n))] = n
    for npn, n in (("sqrt", "sqrt"), ("exp", "exp"), ("exp2", "exp2"), ("log", "log"),
                   ("log2", "log2"), ("log10", "log10"), ("sin", "sin"), ("cos", "cos"),
                   ("tan", "tan"), ("arcsin", "asin"), ("arccos", "acos"), ("arctan", "atan"),
                   ("sinh", "sinh"), ("cosh", "cosh"), ("tanh", "tanh"), ("floor", "floor"),
                   ("ceil", "ceil"), ("trunc", "trunc"), ("arctan2", "atan2"), ("abs", "abs"),
                   ("fabs", "abs"), ("copysign", "copysign"), ("minimum", "min"),
                   ("maximum", "max"), ("power", "pow")):
        known[id(getattr(np, npn))] = n
    return known


_KNOWN = _known_functions()
_BUILTIN_NAMES = MATH1 | MATH2 | {"abs", "min", "max", "pow", "int", "float", "len"}
_MATH_CONSTS = (math.pi, math.e, math.tau, math.inf)


class _Local:
    pass


class _Unbound:
    def __init__(self, name):
        self.name = name


def _tack_kinds(obj):
    """('dtype', name) for tack.f32-like objects, ('const', obj) for tack.constant values."""
    if type(obj).__name__ == "DType" and getattr(obj, "name", None) in BY_NAME:
        return "dtype", obj.name
    try:
        from ..constants import Constant
    except ImportError:  # pragma: no cover
        return None, None
    if isinstance(obj, Constant):
        return "const", obj
    return None, None


def _lambda(body: ast.expr) -> ast.Lambda:
    return ast.Lambda(ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[],
                                    kw_defaults=[], kwarg=None, defaults=[]), body)


def _c(v) -> ast.Constant:
    return ast.Constant(v)


class _Rewriter:
    """Builds the type-pass function and the value function from the kernel's AST."""

    def __init__(self, fdef, fn_globals, closure):
        self.params = [a.arg for a in fdef.args.args]
        self.locals = {n.id for n in ast.walk(fdef)
                       if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        self.globals, self.closure = fn_globals, closure
        self.ids: dict[int, int] = {}
        self.typing = False

    # -- helpers ----------------------------------------------------------------------------------
    def num(self, node) -> int:
        return self.ids.setdefault(id(node), len(self.ids))

    def call(self, meth: str, *args) -> ast.Call:
        return ast.Call(ast.Attribute(ast.Name(_R, ast.Load()), meth, ast.Load()), list(args), [])

    def rejected(self, node, what: str):
        return Rejected(f"{what} at line {getattr(node, 'lineno', '?')}")

    def resolve(self, node):
        if isinstance(node, ast.Name):
            if node.id in self.params or node.id in self.locals:
                return _Local()
            for scope in (self.closure, self.globals):
                if node.id in scope:
                    return scope[node.id]
            if node.id in _BUILTIN_NAMES:
                return _Unbound(node.id)
            if hasattr(builtins, node.id):
                return getattr(builtins, node.id)
            raise self.rejected(node, f"name '{node.id}' is not defined in the kernel")
        if isinstance(node, ast.Attribute):
            base = self.resolve(node.value)
            if isinstance(base, (_Local, _Unbound)):
                raise self.rejected(node, f"attribute .{node.attr}")
            try:
                return getattr(base, node.attr)
            except AttributeError:
                raise self.rejected(node, f"unknown attribute .{node.attr}") from None
        raise self.rejected(node, f"unsupported {type(node).__name__}")

    def _is_unroll(self, func) -> bool:
        try:
            return getattr(self.resolve(func), "__tack_intrinsic__", None) == "unroll"
        except Rejected:
            return False

    def literal_float_expr(self, node) -> bool:
        """Float literals combined by + - * / // % **, unary minus, abs/min/max/pow and the math
        builtins: a local assigned once to such a value stays weak. (A conditional expression
        choosing between literals does not count: the contract says "float literals", and Tack
        draws the line there too.)"""
        floats = []

        def ok(n) -> bool:
            if isinstance(n, ast.Constant) and type(n.value) in (int, float):
                floats.append(type(n.value) is float)
                return True
            free = isinstance(n, ast.Name) and n.id not in self.locals and n.id not in self.params
            if free or isinstance(n, ast.Attribute):
                try:
                    obj = self.resolve(n)
                except Rejected:
                    return False
                kind, c = _tack_kinds(obj)
                if kind == "const" and c.dtype is None:
                    floats.append(isinstance(c, float))
                    return True
                if type(obj) is float and (obj in _MATH_CONSTS or math.isnan(obj)):
                    floats.append(True)
                    return True
                return False
            if isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.USub, ast.UAdd)):
                return ok(n.operand)
            if isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Add, ast.Sub, ast.Mult,
                                                             ast.Div, ast.FloorDiv, ast.Mod,
                                                             ast.Pow)):
                return ok(n.left) and ok(n.right)
            if isinstance(n, ast.Call) and not n.keywords:  # abs/min/max/pow/math of literals
                try:
                    fn = self.resolve(n.func)
                except Rejected:
                    return False
                name = fn.name if isinstance(fn, _Unbound) else _KNOWN.get(id(fn))
                if name in MATH1 | MATH2 | {"abs", "min", "max", "pow"}:
                    return all(ok(a) for a in n.args)
            return False

        return ok(node) and any(floats)

    def folded(self, node):
        """The value of a (possibly negated) bare numeric literal, else None (Tack folds -lit)."""
        if isinstance(node, ast.Constant) and type(node.value) in (int, float):
            return node.value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            v = self.folded(node.operand)
            if v is not None:
                return -v if isinstance(node.op, ast.USub) else v
        return None

    def is_lit(self, node) -> bool:
        """A bare integer literal (or True/False, or an untyped integer tack.constant).

        A weak float beside one stays weak (NEP 50: two Python scalars stay weak); beside any other
        integer, typed casts of literals included, it is f32 (§1.7 "`i * 0.1` is f32").
        """
        if isinstance(node, ast.Constant) and type(node.value) in (int, bool):
            return True
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.UAdd):
            return self.is_lit(node.operand)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return type(self.folded(node)) is int
        if isinstance(node, (ast.Name, ast.Attribute)):
            try:
                obj = self.resolve(node)
            except Rejected:
                return False
            kind, c = _tack_kinds(obj)  # an untyped constant "behaves exactly like the literal"
            return kind == "const" and isinstance(c, int) and c.dtype is None
        return False

    # -- expressions ------------------------------------------------------------------------------
    def ex(self, node) -> ast.expr:
        new = self._ex(node)
        return ast.copy_location(new, node)

    def _ex(self, node):
        v = self.folded(node)
        if v is not None:
            return self.call("ilit" if type(v) is int else "flit", _c(v))
        if isinstance(node, ast.Constant):
            if type(node.value) is bool:
                return self.call("ilit", _c(int(node.value)))
            raise self.rejected(node, f"constant {node.value!r}")
        if isinstance(node, ast.UnaryOp):
            meth = {ast.USub: "neg", ast.Invert: "invert", ast.Not: "not_"}.get(type(node.op))
            return self.ex(node.operand) if meth is None else self.call(meth, self.ex(node.operand))
        if isinstance(node, ast.Name) and (node.id in self.params or node.id in self.locals):
            if self.typing and node.id in self.locals:
                return self.call("var", _c(node.id))
            return ast.Name(node.id, ast.Load())
        if isinstance(node, (ast.Name, ast.Attribute)):
            return self.static(node, self.resolve(node))
        if isinstance(node, ast.BinOp):
            op = _BINOPS.get(type(node.op))
            if op is None:
                raise self.rejected(node, f"operator {type(node.op).__name__}")
            return self.call("bin", _c(op), self.ex(node.left), self.ex(node.right),
                             _c(self.is_lit(node.left)), _c(self.is_lit(node.right)))
        if isinstance(node, ast.BoolOp):
            meth = "land" if isinstance(node.op, ast.And) else "lor"
            return self.call(meth, *[_lambda(self.ex(v)) for v in node.values])
        if isinstance(node, ast.Compare):
            return self.compare(node)
        if isinstance(node, ast.IfExp):
            return self.call("ifexp", _c(self.num(node)), self.ex(node.test),
                             _lambda(self.ex(node.body)), _lambda(self.ex(node.orelse)),
                             _c(self.is_lit(node.body)), _c(self.is_lit(node.orelse)))
        if isinstance(node, ast.Subscript):
            return self.subscript(node)
        if isinstance(node, ast.Call):
            return self.builtin_call(node)
        raise self.rejected(node, f"unsupported {type(node).__name__}")

    def static(self, node, obj):
        kind, c = _tack_kinds(obj)
        if kind == "const":
            if c.dtype is not None:
                return self.call("tconst", _c(c.dtype.name), _c(c.value))
            return self.call("ilit" if isinstance(c, int) else "flit", _c(c.value))
        if type(obj) is float and (obj in _MATH_CONSTS or math.isnan(obj)) and (
                isinstance(node, ast.Attribute) or math.isnan(obj)):
            return self.call("flit", _c(obj))
        raise self.rejected(node, f"free name '{ast.unparse(node)}' (kernels capture no values)")

    def compare(self, node):
        ops = []
        for op in node.ops:
            if type(op) not in _CMPOPS:
                raise self.rejected(node, f"comparison {type(op).__name__}")
            ops.append(_CMPOPS[type(op)])
        operands = [node.left] + node.comparators
        lits = [self.is_lit(x) for x in operands]
        if len(ops) == 1:
            return self.call("cmp", _c(ops[0]), self.ex(node.left), self.ex(node.comparators[0]),
                             _c(lits[0]), _c(lits[1]))
        return self.call("chain", ast.Tuple([_c(o) for o in ops], ast.Load()),
                         ast.Tuple([_lambda(self.ex(x)) for x in operands], ast.Load()),
                         ast.Tuple([_c(x) for x in lits], ast.Load()))

    def array_name(self, node) -> ast.Name:
        if not (isinstance(node, ast.Name) and node.id in self.params
                and node.id not in self.locals):
            raise self.rejected(node, "indexing something that is not an array parameter")
        return ast.Name(node.id, ast.Load())

    def indices(self, node: ast.Subscript) -> ast.Tuple:
        sl = node.slice
        if isinstance(sl, ast.Constant) and sl.value is None:  # a[None]: a 0-d array's element
            return ast.Tuple([], ast.Load())
        elts = sl.elts if isinstance(sl, ast.Tuple) else [sl]
        if any(isinstance(e, ast.Slice) for e in elts):
            raise self.rejected(node, "slice")
        return ast.Tuple([self.ex(e) for e in elts], ast.Load())

    def subscript(self, node: ast.Subscript):
        v = node.value
        if isinstance(v, ast.Attribute) and v.attr == "shape":
            k = node.slice
            if not (isinstance(k, ast.Constant) and type(k.value) is int):
                raise self.rejected(node, "shape index that is not an integer literal")
            return self.call("shape", self.array_name(v.value), _c(k.value))
        return self.call("load", self.array_name(v), self.indices(node))

    def builtin_call(self, node: ast.Call):
        if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            raise self.rejected(node, "keyword or starred arguments")
        obj = self.resolve(node.func)
        kind, dname = _tack_kinds(obj)
        args = node.args
        if kind == "dtype":
            if len(args) != 1:
                raise self.rejected(node, "a cast takes one argument")
            return self.call("cast", _c(dname), self.ex(args[0]))
        name = obj.name if isinstance(obj, _Unbound) else _KNOWN.get(id(obj))
        if name is None:
            raise self.rejected(node, f"call to '{ast.unparse(node.func)}'")
        n = len(args)
        arity = {"min": (2, 99), "max": (2, 99), "pow": (2, 2)}.get(
            name, (2, 2) if name in MATH2 else (1, 1))
        if not arity[0] <= n <= arity[1]:
            raise self.rejected(node, f"{name}() with {n} arguments")
        if name in ("int", "float"):
            return self.call("cast", _c("i32" if name == "int" else "f32"), self.ex(args[0]))
        if name == "len":
            return self.call("shape", self.array_name(args[0]), _c(0))
        if name == "abs":
            return self.call("abs_", self.ex(args[0]))
        if name in ("min", "max"):
            out = self.ex(args[0])
            lit = self.is_lit(args[0])
            for a in args[1:]:
                out = self.call("bin", _c(name), out, self.ex(a), _c(lit), _c(self.is_lit(a)))
                lit = False
            return out
        if name == "pow":
            return self.call("bin", _c("pow"), self.ex(args[0]), self.ex(args[1]),
                             _c(self.is_lit(args[0])), _c(self.is_lit(args[1])))
        return self.call("math", _c(name), ast.Tuple([self.ex(a) for a in args], ast.Load()),
                         ast.Tuple([_c(self.is_lit(a)) for a in args], ast.Load()))

    # -- statements -------------------------------------------------------------------------------
    def block(self, stmts) -> list:
        out = []
        for s in stmts:
            for new in self.stmt(s):
                out.append(new if hasattr(new, "lineno") else ast.copy_location(new, s))
        if not out and not self.typing:
            out = [ast.Pass()]
        return out

    def guarded(self, stmts: list) -> list:
        """Type pass: a statement whose types are not known yet is skipped this round."""
        if not stmts:
            return []
        return [ast.Try(stmts, [ast.ExceptHandler(ast.Name(_P, ast.Load()), None, [ast.Pass()])],
                        [], [])]

    def assign_local(self, name: str, site, value: ast.expr, source=None) -> ast.stmt:
        literal = source is not None and self.literal_float_expr(source)
        call = self.call("assign", _c(name), _c(site), value, _c(literal))
        if self.typing:
            return ast.Expr(call)
        return ast.Assign([ast.Name(name, ast.Store())], call)

    def store(self, target: ast.Subscript, value: ast.expr, site) -> list:
        arr, idx = self.array_name(target.value), self.indices(target)
        if self.typing:
            return [ast.Expr(self.call("store", arr, idx, value))]
        tmp = f"_tack_v{site}_"
        return [ast.Assign([ast.Name(tmp, ast.Store())], value),
                ast.Expr(self.call("store", arr, idx, ast.Name(tmp, ast.Load())))]

    def target(self, tgt, value: ast.expr, site, source=None) -> list:
        if isinstance(tgt, ast.Name):
            return [self.assign_local(tgt.id, site, value, source)]
        if isinstance(tgt, ast.Subscript):
            return self.store(tgt, value, site)
        raise self.rejected(tgt, f"assignment to {type(tgt).__name__}")

    def stmt(self, s) -> list:
        site = self.num(s)
        if isinstance(s, ast.Assign):
            if len(s.targets) != 1:
                raise self.rejected(s, "chained assignment")
            tgt = s.targets[0]
            if isinstance(tgt, ast.Tuple):
                return self.tuple_assign(s, tgt, site)
            out = self.target(tgt, self.ex(s.value), site, s.value)
            return self.guarded(out) if self.typing else out
        if isinstance(s, ast.AugAssign):
            return self.aug_assign(s, site)
        if isinstance(s, (ast.If, ast.While)):
            test = self.call("truth", self.ex(s.test))
            if getattr(s, "orelse", None) and isinstance(s, ast.While):
                raise self.rejected(s, "while-else")
            if self.typing:
                return self.guarded([ast.Expr(test)] + self.block(s.body) + self.block(s.orelse))
            if isinstance(s, ast.If):
                return [ast.If(test, self.block(s.body), self.block(s.orelse))]
            return [ast.While(test, self.block(s.body), [])]
        if isinstance(s, ast.For):
            return self.for_(s, site)
        if isinstance(s, (ast.Break, ast.Continue, ast.Pass)):
            return [] if self.typing else [s]
        if isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant) and isinstance(
                s.value.value, str):
            return []
        raise self.rejected(s, f"unsupported {type(s).__name__}")

    def tuple_assign(self, s, tgt, site) -> list:
        if not isinstance(s.value, ast.Tuple) or len(s.value.elts) != len(tgt.elts):
            raise self.rejected(s, "tuple assignment without a matching tuple")
        out, temps = [], []
        for k, v in enumerate(s.value.elts):  # the whole right side first, into plain temporaries
            name = f"_tack_t{site}_{k}"  # (transparent: they keep the value's type, even weak)
            temps.append(name)
            out.append(ast.Assign([ast.Name(name, ast.Store())], self.ex(v)))
        for k, (t, name, v) in enumerate(zip(tgt.elts, temps, s.value.elts)):  # then the targets
            out += self.target(t, ast.Name(name, ast.Load()), f"{site}:{k}", v)
        return self.guarded(out) if self.typing else out

    def aug_assign(self, s, site) -> list:
        op = _BINOPS.get(type(s.op))
        if op is None:
            raise self.rejected(s, f"operator {type(s.op).__name__}")
        tgt = s.target
        rhs, lit = self.ex(s.value), _c(self.is_lit(s.value))
        if isinstance(tgt, ast.Name):
            old = self.ex(ast.copy_location(ast.Name(tgt.id, ast.Load()), tgt))
            out = [self.assign_local(tgt.id, site, self.call("bin", _c(op), old, rhs, _c(False),
                                                               lit))]
            return self.guarded(out) if self.typing else out
        if not isinstance(tgt, ast.Subscript):
            raise self.rejected(s, f"augmented assignment to {type(tgt).__name__}")
        arr = self.array_name(tgt.value)
        idx_name = f"_tack_i{site}_"
        idx = self.indices(tgt)  # evaluated once
        pre = [ast.Assign([ast.Name(idx_name, ast.Store())], idx)]
        idx_ref = ast.Name(idx_name, ast.Load())
        new = self.call("bin", _c(op), self.call("load", arr, idx_ref), rhs, _c(False), lit)
        out = pre + [ast.Expr(self.call("store", arr, idx_ref, new))]
        return self.guarded(out) if self.typing else out

    def range_args(self, s) -> list:
        it = s.iter
        if isinstance(it, ast.Call) and it.args and self._is_unroll(it.func):
            it = it.args[0]  # tack.unroll(range(...), k): a performance hint, the same iterations
        if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name)
                and it.func.id == "range" and not it.keywords and 1 <= len(it.args) <= 3):
            raise self.rejected(s, "loop over something other than range(...)")
        if s.orelse:
            raise self.rejected(s, "for-else")
        if not isinstance(s.target, ast.Name):
            raise self.rejected(s, "loop target that is not a name")
        args = [self.ex(a) for a in it.args]
        return [self.call("ilit", _c(0))] + args if len(args) == 1 else args

    def for_(self, s, site) -> list:
        args = self.range_args(s)
        name = s.target.id
        if self.typing:
            head = ast.Expr(self.call("range_t", _c(name), _c(site), *args))
            return self.guarded([head]) + self.block(s.body)
        it = self.call("range", _c(name), _c(site), *args)
        return [ast.For(ast.Name(name, ast.Store()), it, self.block(s.body), [])]

    # -- the two functions ------------------------------------------------------------------------
    def functions(self, prologue, loop, assigned_params) -> ast.Module:
        self.typing = True
        tbody = self.block(prologue) + self.block(loop.body) or [ast.Pass()]
        self.typing = False
        var = loop.target.id
        head = [ast.Expr(self.call("begin", ast.Name("_tack_k_", ast.Load())))]
        for p in assigned_params:
            head.append(self.assign_local(p, -1, ast.Name(f"_tack_p_{p}", ast.Load())))
        head.append(self.assign_local(var, -1, ast.Name("_tack_iv_", ast.Load())))
        inner = head + self.block(prologue) + self.block(loop.body)
        vbody = [ast.copy_location(ast.For(
            ast.Tuple([ast.Name("_tack_k_", ast.Store()), ast.Name("_tack_iv_", ast.Store())],
                      ast.Store()), self.call("iterations"), inner, []), loop)]
        sig = [f"_tack_p_{p}" if p in assigned_params else p for p in self.params]

        def fdef(name, params, body):
            args = ast.arguments(posonlyargs=[], args=[ast.arg(p) for p in params], vararg=None,
                                 kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
            return ast.FunctionDef(name, args, body, [], None, None)

        mod = ast.Module([fdef("_tack_types_", self.params, tbody),
                          fdef("_tack_value_", sig, vbody)], [])
        for f in mod.body:
            ast.copy_location(f, loop)
        return ast.fix_missing_locations(mod)


# -- driver ----------------------------------------------------------------------------------------
def _source(fn):
    lines, first = inspect.getsourcelines(fn)
    file = inspect.getsourcefile(fn) or "<kernel>"
    tree = ast.parse(textwrap.dedent("".join(lines)))
    ast.increment_lineno(tree, first - 1)
    fdef = next(n for n in tree.body if isinstance(n, ast.FunctionDef))
    closure = {}
    if fn.__closure__:
        for name, cell in zip(fn.__code__.co_freevars, fn.__closure__):
            try:
                closure[name] = cell.cell_contents
            except ValueError:
                pass
    return fdef, file, closure


def _is_array(a) -> bool:
    return isinstance(a, np.ndarray) or type(a).__name__ == "Array"


def _host_range(it, prologue, params, pyargs):
    """The parallel loop's (start, stop, step) in Python integers, and the parameters it reads."""
    if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range"
            and 1 <= len(it.args) <= 3 and not it.keywords):
        raise Rejected("the parallel loop must iterate over range(...)")
    subst = {s.targets[0].id: s.value for s in prologue if isinstance(s, ast.Assign)
             and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)}
    uses = set()

    class Sub(ast.NodeTransformer):
        depth = 0

        def visit_Name(self, node):
            if node.id in params:
                uses.add(node.id)
                return node
            if node.id in subst and self.depth < 50:
                self.depth += 1
                return self.visit(ast.parse(ast.unparse(subst[node.id]), mode="eval").body)
            return node

    env = dict(zip(params, pyargs))
    vals = []
    for a in it.args:
        node = ast.fix_missing_locations(ast.Expression(Sub().visit(
            ast.parse(ast.unparse(a), mode="eval").body)))
        try:
            v = eval(compile(node, "<range>", "eval"), {"__builtins__": {"len": len}}, env)
            vals.append(operator.index(v))
        except Exception as exc:  # noqa: BLE001 - any failure means Tack cannot resolve it either
            raise Rejected(f"cannot resolve the parallel loop's range: {exc}") from None
    start, stop, step = (0, vals[0], 1) if len(vals) == 1 else (vals + [1])[:3]
    if step <= 0:
        raise OutsideDomain("the parallel loop's step must be positive")
    return start, stop, step, uses


@dataclass
class Reference:
    """What a kernel call must leave in its array arguments, and how exactly to compare."""

    names: list  # parameter names of the array arguments
    positions: list  # their argument positions
    arrays: list  # final contents (NumPy, the argument's dtype and shape)
    tolerance: list  # per element: absolute bound (0.0: exact; inf: not verifiable)
    unverified: list  # per element: stored by a tainted iteration
    tainted: list = field(default_factory=list)  # loop-variable values of tainted iterations
    iterations: int = 0

    def mismatches(self, actual, rows_of_tainted: bool = False, limit: int = 8) -> list[str]:
        """Descriptions of the elements where `actual` (arrays in argument order) disagrees.

        rows_of_tainted: also skip row `v` of every array for each tainted loop value v (for
        kernels whose iteration i writes only row i, so a flipped branch cannot be checked).
        """
        out = []
        for name, ref, tol, unv, act in zip(self.names, self.arrays, self.tolerance,
                                            self.unverified, actual):
            act = np.asarray(act.numpy() if hasattr(act, "numpy") else act)
            if act.shape != ref.shape or act.dtype != ref.dtype:
                out.append(f"{name}: got {act.dtype}{act.shape}, expected {ref.dtype}{ref.shape}")
                continue
            skip = unv.reshape(ref.shape).copy()
            if rows_of_tainted and ref.ndim:
                for v in self.tainted:
                    if 0 <= v < ref.shape[0]:
                        skip[v] = True
            bad = _disagree(act, ref, tol.reshape(ref.shape)) & ~skip
            where = [()] if ref.ndim == 0 and bad else zip(*np.nonzero(bad)) if ref.ndim else []
            for pos in where:
                if len(out) >= limit:
                    break
                t = tol.reshape(ref.shape)[pos]
                out.append(f"{name}[{', '.join(map(str, pos))}]: tack {act[pos]!r}, reference "
                           f"{ref[pos]!r}" + (f" ± {t:.3g}" if t else " (exact)"))
        return out

    def check(self, actual, rows_of_tainted: bool = False) -> None:
        bad = self.mismatches(actual, rows_of_tainted)
        if bad:
            raise AssertionError("kernel disagrees with the reference:\n  " + "\n  ".join(bad))


def _disagree(act, ref, tol):
    if ref.dtype.kind in "iu":
        return act != ref
    a, r = act.astype(np.float64), ref.astype(np.float64)
    tiny = float(np.finfo(ref.dtype).tiny)
    with np.errstate(all="ignore"):
        close = np.abs(a - r) <= tol + tiny
    same = (a == r) | (np.isnan(a) & np.isnan(r)) | np.isinf(tol)
    return ~(same | (close & np.isfinite(a) & np.isfinite(r)))


def reference(kernel, *args, weak_locals: str = "spec") -> Reference:
    """Run `kernel` (a @tack.kernel or a plain function) serially on copies of `args`."""
    fn = getattr(kernel, "fn", kernel)
    fdef, file, closure = _source(fn)
    params = [a.arg for a in fdef.args.args]
    if len(args) != len(params):
        raise Rejected(f"kernel '{fdef.name}' expects {len(params)} arguments, got {len(args)}")
    body = [s for s in fdef.body if not (isinstance(s, ast.Expr) and isinstance(
        s.value, ast.Constant) and isinstance(s.value.value, str))]
    loops = [k for k, s in enumerate(body) if isinstance(s, ast.For)]
    if not loops:
        raise Rejected("kernel has no parallel loop")
    k = loops[0]
    loop, prologue = body[k], body[:k]
    if any(not isinstance(s, ast.Pass) for s in body[k + 1:]):
        raise Rejected("statements after the parallel loop")
    if not isinstance(loop.target, ast.Name) or loop.orelse:
        raise Rejected("the parallel loop's target must be a single name")

    any_f64 = any(_is_array(a) and np.dtype(getattr(a.dtype, "np", a.dtype)) == np.float64
                  for a in args)
    values, pyargs, arrays, seen = [], [], [], {}
    for name, a in zip(params, args):
        if _is_array(a) and id(a) in seen:  # the same array twice: one shared buffer (aliasing)
            arr = seen[id(a)]
            values.append(arr)
            pyargs.append(arr.data)
            arrays.append((name, len(values) - 1, arr))
        elif _is_array(a):
            data = np.array(a.numpy() if hasattr(a, "numpy") else a, order="C", copy=True)
            if data.dtype.type not in BY_NP or not data.dtype.isnative:
                raise Rejected(f"unsupported dtype {data.dtype} for '{name}'")
            arr = seen[id(a)] = _Arr(data, name)
            values.append(arr)
            pyargs.append(data)
            arrays.append((name, len(values) - 1, arr))
        elif isinstance(a, (bool, int, np.integer)):
            values.append(wrap(int(a), literal_type(int(a))))
            pyargs.append(int(a))
        elif isinstance(a, (float, np.floating)):
            values.append(F((F64 if any_f64 else F32).np(float(a)), 0.0))
            pyargs.append(float(a))
        else:
            raise Rejected(f"unsupported argument type for '{name}': {type(a).__name__}")

    start, stop, step, uses = _host_range(loop.iter, prologue, params, pyargs)
    vt = I32
    for u in uses:
        v = values[params.index(u)]
        try:
            vt = promote(vt, I64 if isinstance(v, _Arr) else typeof(v))
        except Rejected:
            vt = I64
    if not vt.is_int:
        vt = I64

    rw = _Rewriter(fdef, fn.__globals__, closure)
    var = loop.target.id
    assigned_params = [p for p in params if p in rw.locals and not isinstance(
        values[params.index(p)], _Arr)]
    mod = rw.functions(prologue, loop, assigned_params)
    R = Runtime(weak_locals)
    ns = {_R: R, _P: _Pending}
    exec(compile(mod, file, "exec"), ns)  # noqa: S102 - the kernel's own, rewritten source

    with np.errstate(all="ignore"):
        R.typing = True
        dummies = [v if isinstance(v, _Arr) else R.dummy(typeof(v)) for v in values]
        R.types = {var: vt, **{p: typeof(values[params.index(p)]) for p in assigned_params}}
        for _ in range(64):
            before = (dict(R.types), dict(R.ifx))
            ns["_tack_types_"](*dummies)
            if before == (dict(R.types), dict(R.ifx)):
                break
        else:  # pragma: no cover
            raise Rejected("local types do not settle")
        R.typing = False
        R.loop_plan = (start, stop, step, vt)
        try:
            ns["_tack_value_"](*values)
        except OutsideDomain as exc:
            raise OutsideDomain(f"{exc} ({_where(exc, file)})") from None
        R.finish()

    loop_values = list(builtins.range(start, stop, step))
    return Reference(
        names=[n for n, _, _ in arrays], positions=[params.index(n) for n, _, _ in arrays],
        arrays=[a.data for _, _, a in arrays],
        tolerance=[_tolerances(a) for _, _, a in arrays],
        unverified=[a.unverified for _, _, a in arrays],
        tainted=[int(wrap(loop_values[k], vt)) for k in R.tainted_iters],
        iterations=len(loop_values))


def _tolerances(arr: _Arr) -> np.ndarray:
    return arr.err.copy()


def _where(exc, file) -> str:
    tb, line = exc.__traceback__, None
    while tb is not None:
        if tb.tb_frame.f_code.co_name == "_tack_value_":
            line = tb.tb_lineno
        tb = tb.tb_next
    if line is None:
        return file
    import linecache

    return f"{file}:{line}: {linecache.getline(file, line).strip()}"


def run_reference(kernel, *args, weak_locals: str = "spec") -> list:
    """The final contents of every array argument, as NumPy arrays in argument order."""
    return reference(kernel, *args, weak_locals=weak_locals).arrays


def check_kernel(kernel, *args, rows_of_tainted: bool = False, weak_locals: str = "spec"):
    """Run `kernel` with Tack (NumPy arrays become tack arrays) and compare with the reference.

    Returns the `Reference`; raises AssertionError listing the disagreeing elements.
    """
    import tack

    ref = reference(kernel, *args, weak_locals=weak_locals)
    targs = [tack.array(a) if isinstance(a, np.ndarray) else a for a in args]
    kernel(*targs)
    ref.check([targs[p] for p in ref.positions], rows_of_tainted)
    return ref
