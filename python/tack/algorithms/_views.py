"""Argument checks and flat views shared by the algorithms: every function works on the leading
`n` flat elements of C-contiguous arrays, so a view of an array as one dimension of scalar
components (sharing its storage) is all the kernels need."""
from __future__ import annotations

import operator

from .. import dtypes as dt
from ..arrays import Array
from ..devices import default_device, deterministic_mode
from ..errors import TackTypeError, TackValueError
from .settings import current as tuned

INTEGERS = (dt.i8, dt.u8, dt.i16, dt.u16, dt.i32, dt.u32, dt.i64, dt.u64)
SIGNED = (dt.i8, dt.i16, dt.i32, dt.i64)
FLOATS = (dt.f16, dt.bf16, dt.f32, dt.f64)
HALVES = (dt.f16, dt.bf16)


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


def need_writable(name: str, what: str, a: Array) -> Array:
    """`a`, refused before any launch if it is read-only (imported from read-only memory)."""
    if a.readonly:
        raise TackValueError(f"{name}: {what} is read-only (imported from read-only memory); "
                             "copy it first with a.copy()")
    return a


def count(name: str, n, **arrays: Array) -> int:
    """`n` checked against the flat length of every named array (keyword order: the first is
    the default when n is None, and is checked against the others like an explicit n), so
    that no kernel reads or writes past an array's end."""
    sizes = {k: a.size * components(a) for k, a in arrays.items()}
    first = next(iter(sizes))
    if n is None:
        n = sizes[first]
        for k, s in sizes.items():
            if n > s:
                raise TackValueError(f"{name}: n defaults to the length of {first} ({n} "
                                     f"elements), more than {k} holds ({s} elements); pass n")
        return n
    if isinstance(n, bool):
        raise TackTypeError(f"{name}: n must be an integer, got {n!r}")
    try:
        n = operator.index(n)
    except TypeError:
        raise TackTypeError(f"{name}: n must be an integer, got {type(n).__name__}") from None
    if n < 0:
        raise TackValueError(f"{name}: n must be at least 0, got {n}")
    for k, s in sizes.items():
        if n > s:
            raise TackValueError(f"{name}: n = {n} is more than {k} holds ({s} elements)")
    return n


def span(a: Array, first: int, n: int) -> tuple[int, int, int]:
    """(lo, hi, element size): the bytes [lo, hi) of flat elements first .. first + n - 1 of
    `a` (from its buffer's address, or the Julia engine's buffer number: distinct buffers never
    share a range)."""
    size = scalar_dtype(a).itemsize
    lo = a._ptr + first * size
    return lo, lo + n * size, size


def overlap(read: tuple, write: tuple) -> str | None:
    """How a kernel's read span and write span (from `span`, on one device) meet: None (apart,
    or one is empty), "same" (element i of one is element i of the other: an element-wise
    kernel may run in place) or "partial" (any other overlap: a write may land on an element
    that is read later)."""
    (a, b, _), (c, d, _) = read, write
    if a >= b or c >= d or b <= c or d <= a:
        return None
    return "same" if read == write else "partial"


def workgroups(a: Array) -> bool:
    """Whether the kernels run on an engine with workgroups (shared memory, barriers): the GPU
    paths are chosen from the device's capabilities, never from its name."""
    return a.device.capabilities.workgroups


def warp_paths(a: Array) -> bool:
    """Whether a workgroup kernel on a's device combines its lanes by warp shuffles: where warps
    exchange registers (`Capabilities.register_warps`: CUDA and the simulator), not where they
    are emulated through shared memory (Julia), which would be slower than the shared-memory
    steps themselves (docs/algorithms.md, "Paths per engine"); in deterministic mode on every
    engine, so that its sums and scans have CUDA's and the simulator's bits (docs/numerics.md,
    "Deterministic mode")."""
    forced = tuned().warps  # tack.algorithms.tuning(warps=...)
    if forced is not None:
        return forced
    return a.device.capabilities.register_warps or deterministic_mode()


def emulated_groups(a: Array) -> bool:
    """Whether a float sum or scan on a's device (an engine without workgroups) runs the
    workgroup kernels' additions one workgroup per iteration (reduce.reduce_group_lanes,
    scan_order.py): in deterministic mode."""
    return not workgroups(a) and deterministic_mode()


def same_device(name: str, *arrays: Array) -> None:
    """Kernels launch on the default device: every array must live there."""
    dev = default_device()
    for a in arrays:
        if a.device is not dev:
            raise TackValueError(f"{name}: an array is on {a.device!r} but kernels run on the "
                                 f"default device {dev!r}")
