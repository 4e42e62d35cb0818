"""The runtime the rewritten kernel calls (`_tack_R_.<op>(...)`): values, memory, locals, loops."""
from __future__ import annotations

import builtins
import math
import operator

import numpy as np

from .errors import OutsideDomain, Rejected, _Pending
from .floats import MATH1, FloatArith
from .scalars import (
    BY_NAME,
    BY_NP,
    F32,
    I32,
    INF,
    ST,
    WEAK,
    int_to_float,
    literal_type,
    promote,
    ulp,
    wrap,
)
from .values import _PYCMP, F, Weak, typeof, weak_const


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


class Runtime(FloatArith):
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
        """Assigned exactly once, to an expression of float literals: such a local stays weak
        (since 0.4.0; "Integer and float rules" in docs/language.md)."""
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
