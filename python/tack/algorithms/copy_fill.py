"""`copy`, `fill_value`, `copy_with_offset`: element-wise moves as Tack kernels. Stores convert
with the kernel conversion rules (docs/language.md, "Integer and float rules"): 2.5 into i32 is
2, 300 into u8 is 44."""
from __future__ import annotations

import numpy as np

from ..arrays import Array
from ..kernel import kernel
from . import _views as V

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


def _pair(name: str, src, dst):
    V.need_array(name, "src", src)
    V.need_array(name, "dst", dst)
    s, d = V.flat(src), V.flat(dst)
    V.same_device(name, s, d)
    return s, d


def copy(src: Array, dst: Array, n=None) -> None:
    """dst[i] = src[i] for the first n flat elements, converted to dst's dtype on store."""
    s, d = _pair("copy", src, dst)
    copy_elements(s, d, V.count("copy", n, s, d))


def copy_with_offset(src: Array, dst: Array, dst_offset, n=None) -> None:
    """dst[dst_offset + i] = src[i] for i < n (default: all of src); the whole span must lie
    inside dst."""
    s, d = _pair("copy_with_offset", src, dst)
    off = V.count("copy_with_offset", dst_offset, d)  # an integer in [0, len(dst)]
    n = V.count("copy_with_offset", n, s)
    if off + n > d.shape[0]:
        raise V.TackValueError(f"copy_with_offset: {n} elements at offset {off} pass the end "
                               f"of dst ({d.shape[0]} elements)")
    copy_elements(s, d, n, off)


def fill_value(dst: Array, value, n=None) -> None:
    """dst[i] = value for the first n flat elements, converted as a kernel store converts it."""
    V.need_array("fill_value", "dst", dst)
    if isinstance(value, bool) or not isinstance(value, (int, float)) and not hasattr(
            value, "dtype"):
        raise V.TackTypeError(f"fill_value: value must be a number, got {type(value).__name__}")
    d = V.flat(dst)
    V.same_device("fill_value", d)
    n = V.count("fill_value", n, d)
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
