"""`copy`, `fill_value`, `copy_with_offset`: element-wise moves as Tack kernels. Stores convert
with the kernel conversion rules (docs/language.md, "Integer and float rules"): 2.5 into i32 is
2, 300 into u8 is 44."""
from __future__ import annotations

import operator

import numpy as np

from ..arrays import Array
from ..kernel import kernel
from . import _views as V
from ._scratch import unfilled

__all__ = ["copy", "copy_with_offset", "fill_value"]


@kernel
def copy_kernel(src, dst, offset, n):
    for i in range(n):
        dst[offset + i] = src[i]


@kernel
def fill_kernel(dst, box, n):
    for i in range(n):
        dst[i] = box[0]


def copy_elements(src: Array, dst: Array, n: int, offset: int = 0) -> None:
    """dst[offset + i] = src[i] for i < n, checked by the callers (vector elements too)."""
    if n:
        copy_kernel(src, dst, offset, n)


def detached(src: Array, n: int, dst: Array, at: int = 0) -> Array:
    """`src` (flat), or a new copy of its first n elements when they overlap dst's elements
    at .. at + n - 1 other than element for element: then a kernel writing dst while it reads
    src computes what it would from a copy, as NumPy does on overlap
    (https://numpy.org/doc/stable/reference/ufuncs.html, "Overlap of inputs and outputs")."""
    if V.overlap(V.span(src, 0, n), V.span(dst, at, n)) != "partial":
        return src
    tmp = unfilled(src.device, src.dtype, n)
    copy_elements(src, tmp, n)
    return tmp


def _pair(name: str, src, dst):
    V.need_array(name, "src", src)
    V.need_writable(name, "dst", V.need_array(name, "dst", dst))
    s, d = V.flat(src), V.flat(dst)
    V.same_device(name, s, d)
    return s, d


def copy(src: Array, dst: Array, n=None) -> None:
    """dst[i] = src[i] for the first n flat elements (default: all of src, which dst must
    hold), converted to dst's dtype on store; overlapping arrays copy as if src were read
    first."""
    s, d = _pair("copy", src, dst)
    n = V.count("copy", n, src=s, dst=d)
    copy_elements(detached(s, n, d), d, n)


def copy_with_offset(src: Array, dst: Array, dst_offset, n=None) -> None:
    """dst[dst_offset + i] = src[i] for i < n (default: all of src); the whole span must lie
    inside dst. Overlapping arrays copy as if src were read first."""
    s, d = _pair("copy_with_offset", src, dst)
    off = _offset(dst_offset, d)
    n = V.count("copy_with_offset", n, src=s)
    if off + n > d.shape[0]:
        raise V.TackValueError(f"copy_with_offset: {n} elements at offset {off} pass the end "
                               f"of dst ({d.shape[0]} elements)")
    copy_elements(detached(s, n, d, off), d, n, off)


def _offset(value, d: Array) -> int:
    if isinstance(value, bool):
        raise V.TackTypeError(f"copy_with_offset: dst_offset must be an integer, got {value!r}")
    try:
        off = operator.index(value)
    except TypeError:
        raise V.TackTypeError(f"copy_with_offset: dst_offset must be an integer, got "
                              f"{type(value).__name__}") from None
    if not 0 <= off <= d.shape[0]:
        raise V.TackValueError(f"copy_with_offset: dst_offset = {off} is outside [0, "
                               f"{d.shape[0]}] (dst's length)")
    return off


def fill_value(dst: Array, value, n=None) -> None:
    """dst[i] = value for the first n flat elements, converted as a kernel store converts it."""
    V.need_writable("fill_value", "dst", V.need_array("fill_value", "dst", dst))
    if isinstance(value, (bool, np.bool_)) or not isinstance(
            value, (int, float, np.integer, np.floating)):
        raise V.TackTypeError(f"fill_value: value must be an int or a float, got "
                              f"{type(value).__name__}")
    if isinstance(value, int) and not -2 ** 63 <= value < 2 ** 64:
        raise V.TackValueError(f"fill_value: {value} is not a 64-bit integer (the widest "
                               "value a kernel holds)")
    d = V.flat(dst)
    V.same_device("fill_value", d)
    n = V.count("fill_value", n, dst=d)
    if n:
        box = _box(value, d)
        fill_kernel(d, box, n)


def _box(value, like: Array) -> Array:
    """A one-element array holding `value` in its own type (f64 for a float, i64/u64 for an
    int), so that the kernel's store does the conversion."""
    v = np.asarray(value)
    if v.dtype.kind == "f":
        v = v.astype(np.float64)
    elif v.dtype.kind in "iu" or isinstance(value, int):
        v = np.asarray(value, np.uint64 if int(value) >= 2 ** 63 else np.int64)
    return Array._from_host(np.ascontiguousarray(v.reshape(1)), like.device)
