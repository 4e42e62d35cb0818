"""Argument checks and flat views shared by the algorithms: every function works on the leading
`n` flat elements of C-contiguous arrays, so a view of an array as one dimension of scalar
components (sharing its storage) is all the kernels need."""
from __future__ import annotations

import operator

from .. import dtypes as dt
from ..arrays import Array
from ..devices import default_device
from ..errors import TackTypeError, TackValueError

INTEGERS = (dt.i8, dt.u8, dt.i16, dt.u16, dt.i32, dt.u32, dt.i64, dt.u64)
SIGNED = (dt.i8, dt.i16, dt.i32, dt.i64)
FLOATS = (dt.f32, dt.f64)


def scalar_dtype(a: Array):
    """The component dtype of `a` (a vector or matrix array's element type)."""
    return getattr(a.dtype, "elem", a.dtype)


def components(a: Array) -> int:
    """How many scalars one element of `a` holds."""
    k = 1
    for d in getattr(a.dtype, "shape", ()):
        k *= d
    return k


def flat(a: Array) -> Array:
    """`a` as a 1-D array of its scalar components, sharing its storage."""
    elem = scalar_dtype(a)
    if a.ndim == 1 and elem is a.dtype:
        return a
    n = a.size * components(a)
    if a._host is not None:
        return Array(a._host.reshape(-1), a.device, dtype=elem)
    return Array(None, a.device, a._buf, (n,), elem)


def need_array(name: str, what: str, a) -> Array:
    if not isinstance(a, Array):
        raise TackTypeError(f"{name}: {what} must be a tack.Array, got {type(a).__name__}")
    return a


def count(name: str, n, *arrays: Array) -> int:
    """`n` (None: the first array's flat length) checked against every array's flat length."""
    sizes = [a.size * components(a) for a in arrays]
    if n is None:
        return sizes[0]
    if isinstance(n, bool):
        raise TackTypeError(f"{name}: n must be an integer, got {n!r}")
    try:
        n = operator.index(n)
    except TypeError:
        raise TackTypeError(f"{name}: n must be an integer, got {type(n).__name__}") from None
    if n < 0 or any(n > s for s in sizes):
        raise TackValueError(f"{name}: n = {n} is outside [0, {min(sizes)}] (the arrays hold "
                             f"{', '.join(map(str, sizes))} elements)")
    return n


def workgroups(a: Array) -> bool:
    """Whether the kernels run on an engine with workgroups (shared memory, barriers): the GPU
    paths are chosen from the device's capabilities, never from its name."""
    return a.device.capabilities.workgroups


def same_device(name: str, *arrays: Array) -> None:
    """Kernels launch on the default device: every array must live there."""
    dev = default_device()
    for a in arrays:
        if a.device is not dev:
            raise TackValueError(f"{name}: an array is on {a.device!r} but kernels run on the "
                                 f"default device {dev!r}")
