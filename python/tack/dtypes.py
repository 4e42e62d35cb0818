"""The twelve storage dtypes, plus the internal `bool` of comparisons and the weak float of literals.

Also the exact conversion of a Python number to a dtype's value (`convert`): one rule decides what
a literal becomes in the typechecker, what the constant folder computes and what `tack.f32(x)`
returns on the host.
"""
from __future__ import annotations

import math

import numpy as np

from .errors import TackTypeError, TackValueError


class DType:
    """A scalar type. `kind` is 'i' (signed), 'u' (unsigned), 'f' (float) or 'b' (internal bool)."""

    __slots__ = ("_np", "bits", "kind", "name")

    def __init__(self, name: str, kind: str, bits: int, np_dtype):
        self.name, self.kind, self.bits = name, kind, bits
        self._np = np.dtype(np_dtype) if np_dtype is not None and not callable(np_dtype) \
            else np_dtype

    @property
    def np(self):
        """The NumPy dtype of the values (None for the internal types)."""
        n = self._np
        if callable(n):  # loaded on first use (bf16: ml_dtypes takes a while to import)
            n = self._np = np.dtype(n())
        return n

    def __repr__(self) -> str:
        return f"tack.{self.name}"

    def __reduce__(self):
        return (by_name, (self.name,))

    @property
    def is_int(self) -> bool:
        return self.kind in "iu"

    @property
    def is_signed(self) -> bool:
        return self.kind == "i"

    @property
    def is_float(self) -> bool:
        return self.kind == "f"

    @property
    def is_half(self) -> bool:
        """f16 or bf16: stored in 16 bits, computed in f32 and rounded once (docs/language.md,
        "Half precision")."""
        return self.kind == "f" and self.bits == 16

    @property
    def itemsize(self) -> int:
        return max(1, self.bits // 8)

    def min(self) -> int:
        return -(1 << (self.bits - 1)) if self.kind == "i" else 0

    def max(self) -> int:
        return (1 << (self.bits - 1)) - 1 if self.kind == "i" else (1 << self.bits) - 1

    def __call__(self, value):
        """`tack.f32(x)` and friends called from host code: the kernel language's conversion."""
        if isinstance(value, np.ndarray):
            raise TypeError(f"{self!r}() converts one number; use array.astype({self.np.name})")
        if not isinstance(value, (int, float, np.integer, np.floating, bool)):
            raise TypeError(f"{self!r}() takes a number, got {type(value).__name__}")
        v = value.item() if isinstance(value, np.generic) else value
        return self.np.type(convert(v, self))


i8 = DType("i8", "i", 8, np.int8)
u8 = DType("u8", "u", 8, np.uint8)
i16 = DType("i16", "i", 16, np.int16)
u16 = DType("u16", "u", 16, np.uint16)
i32 = DType("i32", "i", 32, np.int32)
u32 = DType("u32", "u", 32, np.uint32)
i64 = DType("i64", "i", 64, np.int64)
u64 = DType("u64", "u", 64, np.uint64)
f16 = DType("f16", "f", 16, np.float16)  # IEEE binary16


def _bfloat16():
    import ml_dtypes

    return ml_dtypes.bfloat16


bf16 = DType("bf16", "f", 16, _bfloat16)  # bfloat16: f32's exponent, 8 significant bits
f32 = DType("f32", "f", 32, np.float32)
f64 = DType("f64", "f", 64, np.float64)
# Internal types, never storage: comparisons give `bool_`; a float literal is `weak_float` until it
# meets a concrete floating type (NEP 50 style), and becomes f32 when it meets none.
bool_ = DType("bool", "b", 1, None)
weak_float = DType("weak_float", "f", 0, None)

STORAGE = (i8, u8, i16, u16, i32, u32, i64, u64, f16, bf16, f32, f64)
_BY_NAME = {d.name: d for d in STORAGE + (bool_, weak_float)}
_BY_NP = {d.np: d for d in STORAGE if d is not bf16}  # bf16: by name, not loading ml_dtypes


def numeric_numpy(np_dtype) -> bool:
    """Whether NumPy arrays of `np_dtype` hold numbers (ml_dtypes' bfloat16 is NumPy kind 'V')."""
    return np_dtype.kind in "biuf" or is_bfloat16(np_dtype)


def is_bfloat16(np_dtype) -> bool:
    """ml_dtypes' bfloat16, recognized by name first: a process holding none never loads it."""
    return np_dtype.name == "bfloat16" and np_dtype == bf16.np


def by_name(name: str) -> DType:
    return _BY_NAME[name]


def from_numpy(np_dtype) -> DType:
    """The Tack dtype of a NumPy dtype, or TypeError naming it."""
    try:
        dt = np.dtype(np_dtype)
    except TypeError as exc:
        raise TackTypeError(f"Unsupported dtype: {np_dtype!r}") from exc
    found = _BY_NP.get(dt.newbyteorder("=") if dt.byteorder not in "=|" else dt)
    if found is None and is_bfloat16(dt):
        found = bf16
    if found is None or not dt.isnative:
        raise TackTypeError(
            f"Unsupported numpy dtype: {dt}. Tack arrays hold "
            + ", ".join(d.np.name for d in STORAGE)
            + "; convert with astype() first."
        )
    return found


def as_dtype(value) -> DType:
    """Accept a tack dtype, a NumPy dtype or a Python type (float → f32? no: NumPy's rules)."""
    if isinstance(value, DType):
        if value not in STORAGE:
            raise TackTypeError(f"{value!r} is not a storage dtype")
        return value
    return from_numpy(value)


def promote(a: DType, b: DType) -> DType | None:
    """Tack's promotion table: the narrowest type that holds both full ranges.

    Returns None where the contract rejects the pair (a signed type with u64).
    Float wins over int; a weak float takes the other float's type, or f32 beside ints.
    """
    if a is b:
        return a
    if a.kind == "b":
        a = i32
    if b.kind == "b":
        b = i32
    if a is b:
        return a
    if a.is_float or b.is_float:
        if a is weak_float:
            return b if b.is_float else weak_float
        if b is weak_float:
            return a if a.is_float else weak_float
        if a.is_float and b.is_float:
            if a.bits == b.bits:  # f16 with bf16: neither holds the other; f32 holds both
                return f32
            return a if a.bits > b.bits else b
        return a if a.is_float else b
    if a.kind == b.kind:
        return a if a.bits >= b.bits else b
    s, u = (a, b) if a.kind == "i" else (b, a)
    if u.bits < s.bits:
        return s
    if u.bits >= 64:
        return None
    return _BY_NAME[f"i{u.bits * 2}"]


def concrete(dt: DType) -> DType:
    """A weak float standing alone is f32; the internal bool stored anywhere is i32."""
    if dt is weak_float:
        return f32
    if dt is bool_:
        return i32
    return dt


def int_literal_dtype(value: int) -> DType | None:
    """i32 if it fits, else i64, else u64; None outside the 64-bit ranges."""
    for dt in (i32, i64, u64):
        if dt.min() <= value <= dt.max():
            return dt
    return None


def wrap_int(value: int, dt: DType) -> int:
    """Reduce modulo 2^bits and reinterpret with the dtype's signedness."""
    bits = dt.bits
    v = int(value) & ((1 << bits) - 1)
    if dt.kind == "i" and v >= 1 << (bits - 1):
        v -= 1 << bits
    return v


def wrapper(dt: DType):
    """`wrap_int` to `dt` as a function of the value, chosen once."""
    mask, half = (1 << dt.bits) - 1, (1 << (dt.bits - 1) if dt.kind == "i" else 0)
    return lambda v: ((int(v) + half) & mask) - half


def convert(value, dt: DType):
    """`value` (Python int/float/bool) as a value of `dt`, with Tack's cast rules."""
    if dt.kind == "b":
        return 1 if value else 0
    if dt.is_float:
        if dt.is_half:
            return _to_half(value, dt)
        if dt.bits == 32 and isinstance(value, int) and abs(value) > 1 << 53:
            return _int_to_f32(value)  # through a double would round twice
        v = float(value)
        if dt.bits != 32:
            return v
        with np.errstate(over="ignore"):  # an f32 overflow is inf, as at run time
            return float(np.float32(v))
    if isinstance(value, float):  # truncate, saturate at the range, NaN → 0 (saturate_int)
        if math.isnan(value):
            return 0
        if math.isinf(value):
            return dt.max() if value > 0 else dt.min()
        return min(max(math.trunc(value), dt.min()), dt.max())
    return wrap_int(int(value), dt)


_F32_MAX = float(np.finfo(np.float32).max)


def converter(dt: DType):
    """`convert` to `dt` as a function of the value, its dtype's rule chosen once: for
    interpreters that convert many values. The common cases skip `convert`'s tests (a Python
    float within f32's range cannot overflow, so it needs no `errstate`); the rest go through it."""
    if dt.kind == "b":
        return lambda v: 1 if v else 0
    if dt.is_float and dt.bits == 64:
        return float
    if dt.is_float and dt.bits == 32:
        f32 = np.float32
        return lambda v: float(f32(v)) if type(v) is float and -_F32_MAX <= v <= _F32_MAX \
            else convert(v, dt)
    if dt.is_int:
        mask, half = (1 << dt.bits) - 1, (1 << (dt.bits - 1) if dt.kind == "i" else 0)
        return lambda v: ((v + half) & mask) - half if type(v) is int else convert(v, dt)
    return lambda v: convert(v, dt)


def saturate_int(x, dt: DType):
    """NumPy floats (an array or a scalar) → integer dtype `dt` by the kernel language's rule:
    truncation toward zero, saturated at `dt`'s range, NaN → 0 — what LLVM's `fptosi.sat` /
    `fptoui.sat` compute on the CPU and CUDA (docs/language.md, "Conversions"). NumPy's own
    `astype` leaves values out of range undefined (it wraps or gives the indefinite integer)."""
    a = np.asarray(x)
    hi, lo = a.dtype.type(dt.max()), a.dtype.type(dt.min())  # hi may round up: then >= is exact
    with np.errstate(invalid="ignore", over="ignore"):
        inside = np.where(np.isnan(a) | (a >= hi) | (a <= lo), 0, a).astype(dt.np)
    out = np.where(np.isnan(a), dt.np.type(0), np.where(a >= hi, dt.np.type(dt.max()), np.where(
        a <= lo, dt.np.type(dt.min()), inside))).astype(dt.np)
    return out if np.ndim(x) else out[()]


def _to_half(value, dt: DType) -> float:
    """A Python int or float rounded once, to nearest even, to f16 or bf16. NumPy's float64 →
    float16 and ml_dtypes' float64 → bfloat16 casts round once, directly; an integer wider than a
    double's 53 bits first keeps its top 53 bits and one sticky bit for those below (which lie
    below either half type's rounding position), so it too rounds once."""
    if isinstance(value, int) and not isinstance(value, bool):
        m = abs(value)
        shift = max(0, m.bit_length() - 53)
        if shift:
            m = (m >> shift) | (1 if m & ((1 << shift) - 1) else 0)
        v = math.ldexp(float(m), shift) if shift <= 971 else math.inf  # past every float: inf
        value = -v if value < 0 else v
    with np.errstate(over="ignore"):
        return float(np.array(float(value), np.float64).astype(dt.np))


def _int_to_f32(value: int) -> float:
    """A Python int rounded once, to nearest even, to a 24-bit significand."""
    sign, m = (-1 if value < 0 else 1), abs(value)
    shift = m.bit_length() - 24
    q, r = divmod(m, 1 << shift)
    half = 1 << (shift - 1)
    if r > half or (r == half and q & 1):
        q += 1
    return float(np.float32(sign * float(q) * 2.0 ** shift))


class VecType:
    """A vector (shape (n,)) or matrix (shape (n, m)) of one scalar dtype: a kernel value type,
    and an array element type (`tack.empty(100, tack.vec3)` holds 100 three-vectors)."""

    __slots__ = ("elem", "shape")

    def __init__(self, elem: DType, shape: tuple):
        self.elem, self.shape = elem, tuple(shape)

    @property
    def size(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n

    @property
    def is_matrix(self) -> bool:
        return len(self.shape) == 2

    @property
    def name(self) -> str:
        dims = "x".join(str(d) for d in self.shape)
        return f"{'mat' if self.is_matrix else 'vec'}{dims}<{self.elem.name}>"

    def __repr__(self) -> str:
        e = "" if self.elem is f32 else f", tack.{self.elem.name}"
        if self.is_matrix:
            return f"tack.matrix({self.shape[0]}, {self.shape[1]}{e})"
        return f"tack.vector({self.shape[0]}{e})"

    def __eq__(self, other) -> bool:
        return isinstance(other, VecType) and other.elem is self.elem and other.shape == self.shape

    def __hash__(self) -> int:
        return hash((self.elem.name, self.shape))

    @property
    def np(self):
        return self.elem.np

    @property
    def itemsize(self) -> int:
        return self.elem.itemsize * self.size

    # A VecType is never a scalar kind.
    is_int = is_signed = is_float = False
    kind = "v"


def vector(n: int, dtype: DType = f32) -> VecType:
    """The type of n-component vectors of `dtype` (2 <= n <= 4)."""
    if not isinstance(n, int) or not 1 <= n <= 4:
        raise TackValueError(f"vectors have 1 to 4 components, got {n!r}")
    return VecType(as_dtype(dtype), (n,))


def matrix(n: int, m: int, dtype: DType = f32) -> VecType:
    """The type of n×m matrices of `dtype` (up to 4×4), stored row-major."""
    if not all(isinstance(k, int) and 1 <= k <= 4 for k in (n, m)):
        raise TackValueError(f"matrices are at most 4×4, got {n!r}×{m!r}")
    return VecType(as_dtype(dtype), (n, m))


vec2, vec3, vec4 = vector(2), vector(3), vector(4)
mat2, mat3, mat4 = matrix(2, 2), matrix(3, 3), matrix(4, 4)


def host_value(value, t, what: str = "fill") -> np.ndarray:
    """`value` (a number or an array of them) as a NumPy array of the dtype of t's components,
    for a host-side store (`Array.fill`, `tack.full`; its shape is the caller's to broadcast):
    TackTypeError for anything but numbers, TackValueError for an integer dtype and a value it
    cannot hold (outside its range after truncation, NaN, inf). Floats narrow as a kernel's
    conversion does (f64 → f32 overflows to inf)."""
    msg = f"{what}: {value!r} is not a value of {t!r}"
    try:
        v = np.asarray(value)
    except (TypeError, ValueError, OverflowError) as exc:  # ragged lists and the like
        raise TackTypeError(f"{msg}: {exc}") from None
    if v.dtype == object and v.size and all(isinstance(e, int) for e in v.reshape(-1)):
        v = np.asarray(v, np.float64)  # integers past 64 bits: out of every range below
    if not numeric_numpy(v.dtype):
        raise TackTypeError(f"{msg}: a number or an array of numbers is needed")
    elem = getattr(t, "elem", t)
    if elem.is_int and v.size:
        whole = np.trunc(v) if v.dtype.kind == "f" else v
        if is_bfloat16(v.dtype):
            v = whole = v.astype(np.float32)  # exact; NumPy's checks below read float32
        if v.dtype.kind == "f" and not np.isfinite(v).all():
            raise TackValueError(f"{msg}: an integer dtype holds no NaN or infinity")
        lo, hi = whole.min().item(), whole.max().item()  # Python numbers: exact comparisons
        if lo < elem.min() or hi > elem.max():
            raise TackValueError(f"{msg}: integers of {elem!r} lie in [{elem.min()}, "
                                 f"{elem.max()}]")
    with np.errstate(over="ignore"):
        return np.asarray(v, elem.np)
