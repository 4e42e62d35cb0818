"""Device-only functions of the kernel language. Inside a kernel the parser recognises them by
identity; called from Python they raise, naming themselves."""
from __future__ import annotations

from .errors import TackRuntimeError, TackTypeError, TackValueError


def _device_only(name: str, doc: str):
    def fn(*args, **kwargs):
        raise TackRuntimeError(f"{name}() can only be used inside a @tack.kernel")

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    fn.__tack_intrinsic__ = name
    return fn


local_array = _device_only(
    "local_array", "local_array(dtype, size): scratch private to one iteration; compile-time size.")
local_array_like = _device_only(
    "local_array_like", "local_array_like(array, size): local_array with the array's dtype.")
shared = _device_only(
    "shared", "shared(dtype, size): workgroup memory (GPU engines only); compile-time size.")
shared_like = _device_only("shared_like", "shared_like(array, size): shared with the array's dtype.")
barrier = _device_only("barrier", "barrier(): synchronize the lanes of a workgroup (GPU only).")
thread_id = _device_only("thread_id", "thread_id(): lane index in [0, 256), the workgroup size (GPU only).")
atomic_add = _device_only(
    "atomic_add", "atomic_add(array, index, value): add atomically; returns the old value.")
atomic_min = _device_only(
    "atomic_min", "atomic_min(array, index, value): minimum atomically; returns the old value.")
atomic_max = _device_only(
    "atomic_max", "atomic_max(array, index, value): maximum atomically; returns the old value.")

ndrange = _device_only(
    "ndrange", "for i, j in ndrange(a, b): the parallel loop over a domain of any rank (one "
               "name per argument); each argument a size or a (start, end) pair; the last "
               "index varies fastest.")


def unroll(r, factor=None):
    """for j in unroll(range(...), factor): a sequential loop inside a kernel, unrolled `factor`
    times (1: not unrolled), or fully (no factor) when its trip count is a compile-time constant.
    A pure performance hint: results are those of the plain loop.

    Unlike the functions above it also works from Python, returning `r` unchanged, so that a
    kernel body run as plain Python (tack.testing, a user's own check) still runs."""
    if not isinstance(r, range):
        raise TackTypeError(f"unroll() takes a range, got {type(r).__name__}")
    if factor is not None and (type(factor) is bool or not isinstance(factor, int) or factor < 1):
        raise TackValueError(f"unroll() factor must be an int >= 1, got {factor!r}")
    return r


unroll.__tack_intrinsic__ = "unroll"  # the parser recognises it by this, like the others

select = _device_only(
    "select", "select(mask, a, b): per component, a where mask is true, else b.")
Vector = _device_only("Vector", "Vector([a, b, c]): a vector value (a list works too).")
Matrix = _device_only("Matrix", "Matrix([[a, b], [c, d]]) or Matrix([u, v]): a matrix by rows.")
Matrix.identity = _device_only("identity", "Matrix.identity(n): the n×n identity matrix.")

bitcast = _device_only(
    "bitcast", "bitcast(x, dtype): x's bits read as dtype (a number of the same width: f32 and "
               "u32/i32, f64 and u64/i64, ...); nothing converted.")

expect_dtype = _device_only(
    "expect_dtype", "expect_dtype(x, dtype, what): x, or a TypeError naming `what` when x's dtype "
                    "differs (library code checks its inputs with it).")

ALL = (bitcast, expect_dtype, ndrange, unroll, select, Vector, Matrix, local_array,
       local_array_like, shared, shared_like, barrier, thread_id, atomic_add, atomic_min,
       atomic_max)
