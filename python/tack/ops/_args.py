"""Argument checks and array plumbing shared by every op: inputs become Tack arrays on the
current device, checked for dtype and shape before any kernel is launched."""
from __future__ import annotations

import numpy as np

from .. import dtypes as dt
from ..algorithms._scratch import kept
from ..algorithms.copy_fill import copy_elements
from ..arrays import Array, array, zeros
from ..devices import Device, default_device, deterministic
from ..errors import TackTypeError, TackValueError

FLOATS = (dt.f16, dt.bf16, dt.f32, dt.f64)
NAMES = "float16, bfloat16, float32 or float64"


def device() -> Device:
    """Where the op runs and its results live: the current default device."""
    return default_device()


def mode(flag):
    """The block an op runs in for its `deterministic` keyword: True or False runs its kernels
    in that mode (`tack.deterministic`), None in the mode of the caller; anything else is a
    TypeError before any launch."""
    return deterministic(flag)


def workgroups(dev: Device) -> bool:
    """Whether the device's engine runs workgroups (docs/design/007-engine-contract.md): the
    GPU-style kernels with shared memory and block reductions, else the portable ones."""
    return dev.capabilities.workgroups


def on(a: Array, dev: Device) -> bool:
    """Whether kernels on `dev` can use `a` (host arrays serve every host device, as in
    signature.launch_values)."""
    return a.device is dev or (a.device.is_host and dev.is_host)


def as_array(op: str, name: str, x, dev: Device) -> Array:
    """`x` (a NumPy array, a Tack array or a nested sequence) as a float Tack array (f16, bf16,
    f32 or f64) on `dev`; TypeError naming the op and the argument for any other dtype."""
    if isinstance(x, Array):
        if x.dtype not in FLOATS:
            raise TackTypeError(f"tack.ops.{op}: argument '{name}' must be {NAMES}, "
                                f"got {x.dtype!r}")
        if not on(x, dev):
            raise TackValueError(f"tack.ops.{op}: argument '{name}' lives on {x.device!r}, "
                             f"not on the current device {dev!r}")
        return x
    try:
        a = np.asarray(x)
    except (TypeError, ValueError) as exc:
        raise TackTypeError(f"tack.ops.{op}: argument '{name}' is not an array ({exc})") from None
    try:
        t = dt.from_numpy(a.dtype)
    except TypeError:
        t = None
    if t not in FLOATS:
        raise TackTypeError(f"tack.ops.{op}: argument '{name}' must be {NAMES}, got {a.dtype}")
    return array(a, device=dev)


def same_dtype(op: str, ref: Array, **others: Array) -> None:
    for name, a in others.items():
        if a.dtype != ref.dtype:
            raise TackTypeError(f"tack.ops.{op}: argument '{name}' is {a.dtype!r} but the input is "
                            f"{ref.dtype!r}; pass both in one precision")


PRECISIONS = ("ieee", "tf32")  # the `precision` of matmul, batched_matmul and attention


def precision(op: str, value, ref: Array) -> str:
    """`value` checked as the product precision of `op` on inputs of `ref`'s dtype (docs/ops.md,
    "Precision"): "ieee" (float products, exact in f32) or "tf32" (each f32 operand of a
    product rounded to TF32 first). Nothing chooses TF32 unless asked; float64 refuses it,
    whose products TF32 would round to 11 of their 53 bits."""
    if not isinstance(value, str) or value not in PRECISIONS:
        raise TackValueError(f"tack.ops.{op}: argument 'precision' must be 'ieee' or 'tf32', "
                             f"got {value!r}")
    if value == "tf32" and ref.dtype == dt.f64:
        raise TackValueError(f"tack.ops.{op}: precision='tf32' rounds float32 operands to "
                             "TF32; float64 inputs take precision='ieee' (or convert them to "
                             "float32 first)")
    return value


def need_rank(op: str, name: str, a: Array, ranks) -> None:
    if a.ndim not in ranks:
        want = " or ".join(str(r) for r in ranks)
        raise TackValueError(f"tack.ops.{op}: argument '{name}' must have {want} dimensions, "
                         f"got shape {a.shape}")


def need_shape(op: str, name: str, a: Array, shape) -> None:
    if tuple(a.shape) != tuple(shape):
        raise TackValueError(f"tack.ops.{op}: argument '{name}' must have shape {tuple(shape)}, "
                         f"got {a.shape}")


def norm_axis(op: str, axis, ndim: int) -> int:
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise TackTypeError(f"tack.ops.{op}: argument 'axis' must be an int, got {axis!r}")
    if not -ndim <= axis < ndim:
        raise TackValueError(f"tack.ops.{op}: argument 'axis' is {axis}, out of range for "
                         f"{ndim} dimensions")
    return int(axis) % ndim


def number(op: str, name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TackTypeError(f"tack.ops.{op}: argument '{name}' must be a number, got {value!r}")
    return float(value)


def view(a: Array, shape) -> Array:
    """The same storage seen with another C-order shape of as many elements (Tack arrays are
    C-contiguous, so this is always possible and copies nothing)."""
    shape = tuple(int(s) for s in shape)
    if a._host is not None:
        return Array(a._host.reshape(shape), a.device)
    return Array(None, a.device, a._buf, shape, a.dtype)


def like(a: Array, shape=None) -> Array:
    """A new zero-filled array of `a`'s dtype (and shape) on `a`'s device."""
    return zeros(a.shape if shape is None else shape, a.dtype, a.device)


def filled(a: Array, n: int, value: float) -> Array:
    """A length-`n` vector of `value` in `a`'s dtype on `a`'s device (a missing weight/bias;
    kept for later calls, as no kernel writes it)."""
    return kept(a.device, a.dtype, ("filled", value), n,
                lambda: array(np.full(n, value, a.dtype.np), device=a.device))


def discarded(a: Array, n: int, what: str) -> Array:
    """A length-`n` output the caller does not return (layer_norm's statistics
    without `return_stats`): one array per device, dtype and `what`, overwritten by every call
    and never read (algorithms._scratch: no allocation, no free, which waits for a GPU)."""
    return kept(a.device, a.dtype, ("discarded", what), n)


def half(a: Array) -> bool:
    """Whether `a` holds f16 or bf16: the ops that reduce or call library math then compute on
    an f32 copy (`widened`) and round each result once (`narrowed`), so that every statistic
    and accumulation (softmax's max and sum, the norms' mean and variance, the dot products of
    matmul and attention) is f32, as in PyTorch's half kernels."""
    return a.dtype.is_half


def widened(a: Array) -> Array:
    """A half array's values in a new f32 array of its shape on its device (exact)."""
    w = zeros(a.shape, dt.f32, a.device)
    copy_elements(view(a, (a.size,)), view(w, (w.size,)), a.size)
    return w


def narrowed(w: Array, out: Array) -> Array:
    """`out` (a half array of `w`'s shape), holding f32 `w` rounded once to its dtype."""
    copy_elements(view(w, (w.size,)), view(out, (out.size,)), out.size)
    return out


def prod(shape) -> int:
    n = 1
    for s in shape:
        n *= int(s)
    return n


def sizes(total: int, *values: int):
    """Integer kernel arguments: plain ints (i32 index arithmetic, cheapest on GPUs) while every
    flat index of the op fits in 32 bits, else NumPy int64s (64-bit index arithmetic)."""
    if total < 2**31 - 1:
        return tuple(int(v) for v in values)
    return tuple(np.int64(v) for v in values)


def output(op: str, out, ref: Array, shape=None, name: str = "out") -> Array:
    """The array an op writes: `out` when given (a Tack array of `ref`'s dtype and device and the
    result's shape, which saves the allocation and its zero-fill), else a new one."""
    shape = tuple(ref.shape if shape is None else shape)
    if out is None:
        return zeros(shape, ref.dtype, ref.device)
    if not isinstance(out, Array):
        raise TackTypeError(f"tack.ops.{op}: argument '{name}' must be a tack.Array, got "
                            f"{type(out).__name__}")
    if out.dtype != ref.dtype or not on(out, ref.device):
        raise TackTypeError(f"tack.ops.{op}: argument '{name}' must be {ref.dtype!r} on "
                            f"{ref.device!r}, got {out.dtype!r} on {out.device!r}")
    need_shape(op, name, out, shape)
    if out.readonly:
        raise TackValueError(f"tack.ops.{op}: argument '{name}' is read-only (imported from "
                             "read-only memory)")
    return out


def apart(out: Array, reads: dict, in_place=()) -> Array:
    """The array an op's kernels write: `out`, or a new array of its shape when `out` shares
    memory with an input in a way the kernels cannot take (any overlap, except an input named
    in `in_place` that `out` is element for element: the element-wise and row-wise ops read an
    element before writing it, and only in the iteration that writes it). `deliver` then
    copies the result into `out`, so an op computes what it would from copies of its inputs,
    as NumPy does (https://numpy.org/doc/stable/reference/ufuncs.html, "Output arguments")."""
    lo, hi = _span(out)  # every array of an op has out's dtype
    for name, a in reads.items():
        start, end = _span(a)
        if start < hi and lo < end and (name not in in_place or (start, end) != (lo, hi)):
            return like(out)
    return out


def _span(a: Array) -> tuple[int, int]:
    """The bytes [lo, hi) of `a`'s storage (a host array's from NumPy: this runs every call)."""
    h = a._host
    return a._ptr, a._ptr + (h.nbytes if h is not None else a.nbytes)


def deliver(written: Array, out: Array) -> Array:
    """`out`, holding what the kernels wrote into `written` (from `apart`)."""
    if written is not out:
        copy_elements(view(written, (written.size,)), view(out, (out.size,)), out.size)
    return out
