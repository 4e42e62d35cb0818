"""`tack.Array`: typed, C-contiguous storage that kernels read and write.

On a device with host memory (the CPU) an array owns a NumPy buffer that kernels use in place
(no copy on launch). Elsewhere it owns a buffer from the device's engine (`alloc`, `upload`,
`download`, `memset0` of the engine contract, runtime/base.py); `from_dlpack` wraps foreign
memory the engine `adopt`s. `numpy()` always returns a new array.
"""
from __future__ import annotations

import operator

import numpy as np

from . import dtypes as dt
from .devices import Device, check_allocation, default_device
from .devices import device as _device
from .errors import TackBufferError, TackIndexError, TackTypeError, TackValueError

READ_ONLY = "read-only"  # the third part of a read-only array's specialization key


def _check_writable(a: Array, what: str) -> None:
    if a.readonly:
        raise TackValueError(f"{what}: the array is read-only (imported from read-only memory); "
                             "copy it first with a.copy()")


def _shape(shape, negative_ok: bool = False) -> tuple[int, ...]:
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        shape = (shape,)
    try:
        out = tuple(map(operator.index, shape))
        if bool in map(type, shape):  # True is an index, but never a dimension
            raise TypeError
    except TypeError:
        raise TackTypeError(f"A shape is an int or a tuple of ints, got {shape!r}") from None
    if any(s < 0 for s in out) and not negative_ok:
        raise TackValueError(f"Negative dimension in shape {out}")
    return out


class Array:
    """An n-dimensional array on one device."""

    __slots__ = ("__weakref__", "_buf", "_device", "_host", "_ptr", "_sig", "_unwritten", "dtype",
                 "readonly", "shape")

    def __init__(self, host: np.ndarray | None, device: Device, buf=None, shape=None, dtype=None,
                 readonly: bool = False):
        self._host = host  # host devices: C-contiguous, native byte order, owned
        # The engine's buffer (on a host device: the NumPy array): the launch value of an
        # engine that does not take pointers (signature.launch_values).
        self._buf = buf if host is None else host
        self._device = device
        self.dtype = dtype if dtype is not None else dt.from_numpy(host.dtype)
        phys = host.shape if host is not None else tuple(shape)  # storage shape
        k = len(self.dtype.shape) if isinstance(self.dtype, dt.VecType) else 0
        self.shape = phys[:len(phys) - k]  # vector/matrix components are not dimensions
        # Memory imported read-only (`from_dlpack` of a read-only tensor) stays read-only: a
        # kernel that may store into it, copyto and fill refuse it before anything is written.
        self.readonly = bool(readonly) or (host is not None and not host.flags.writeable)
        # What kernels specialize on (+ baked extents); a read-only array keys apart, so the
        # check that refuses a store into it runs once per specialization, not per call.
        self._sig = (self.dtype, len(self.shape)) + ((READ_ONLY,) if self.readonly else ())
        self._ptr = host.ctypes.data if host is not None else buf.ptr
        # Made by `tack.empty` and not written since (by fill, copyto or a kernel launch that
        # takes it): `tack.check` reports the kernel's reads of it before writes.
        self._unwritten = False

    @classmethod
    def _from_host(cls, host: np.ndarray, device: Device, dtype=None) -> Array:
        """Own `host` on a host device, or upload a copy of it to a GPU device."""
        if device.is_host:
            return cls(host, device, dtype=dtype)
        eng = device.engine
        buf = eng.alloc(host.nbytes)
        if host.size:
            eng.upload(buf, host)
        return cls(None, device, buf, host.shape, dtype or dt.from_numpy(host.dtype))

    @property
    def _phys(self) -> tuple:
        """The storage shape: the array's shape, then a vector/matrix element's shape."""
        t = self.dtype
        return self.shape + t.shape if isinstance(t, dt.VecType) else self.shape

    @property
    def size(self) -> int:
        """Number of elements (a vector counts once)."""
        n = 1
        for d in self.shape:
            n *= d
        return n

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def device(self) -> Device:
        return self._device

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize

    def __len__(self) -> int:
        return self.shape[0] if self.shape else 0

    def __repr__(self) -> str:
        return f"tack.Array(shape={self.shape}, dtype={self.dtype!r}, device={self._device!r})"

    def numpy(self) -> np.ndarray:
        """A new NumPy array with this array's shape, dtype and contents."""
        if self._host is not None:
            return self._host.copy()
        out = np.empty(self._phys, self.dtype.np)
        if out.size:
            self._device.engine.download(self._buf, out)
        return out

    def __array__(self, dtype=None, copy=None):
        if copy is False and self._host is not None:
            out = self._host
            if dtype is not None and np.dtype(dtype) != out.dtype:
                raise ValueError("a dtype conversion needs a copy")
            return out
        out = self.numpy()
        return out if dtype is None else out.astype(dtype, copy=False)

    def __iter__(self):
        raise TackTypeError("tack.Array is not iterable on the host; use .numpy() (a copy)")

    # ---- host access to one element (docs/language.md, "Arrays on the host") -----------------
    def _flat_index(self, key) -> int:
        """The row-major element number of `a[i]`, `a[i, j]`, ... (negative indices count from
        the end, as in NumPy); slices and other keys raise TypeError, a bad index IndexError."""
        key = key if isinstance(key, tuple) else (key,)
        if any(isinstance(k, slice) or k is Ellipsis or k is None for k in key):
            raise TackTypeError(f"tack.Array host access reads one element: {_key_text(key)} "
                                "is not one; use a.numpy()[...] (a copy) to read several, and "
                                "tack.copyto or a kernel to write")
        try:
            idx = tuple(operator.index(k) for k in key)
        except TypeError:
            raise TackTypeError(f"tack.Array indices are integers, got {_key_text(key)}") \
                from None
        if len(idx) != self.ndim:
            raise TackIndexError(f"{len(idx)} indices for a {self.ndim}-dimensional tack.Array "
                                 f"of shape {self.shape}")
        flat = 0
        for d, (i, n) in enumerate(zip(idx, self.shape)):
            if not -n <= i < n:
                raise TackIndexError(f"index {i} is out of bounds for dimension {d} with size "
                                     f"{n}")
            flat = flat * n + (i + n if i < 0 else i)
        return flat

    def __getitem__(self, key):
        """One element, read on the host: a Python number, or a NumPy array for a vector or
        matrix element. Nothing else is indexable on the host."""
        flat = self._flat_index(key)
        t = self.dtype
        k = int(np.prod(t.shape)) if isinstance(t, dt.VecType) else 1
        if self._host is not None:
            comps = self._host.reshape(-1)[flat * k:(flat + 1) * k].copy()
        else:
            elem = self._scalar()
            comps = np.empty(k, elem.np)
            eng = self._device.engine
            at, size = flat * k * elem.itemsize, k * elem.itemsize
            # A buffer whose `ptr` is no address (the Julia engine's) makes its own sub-buffer.
            view = eng.adopt(self._ptr + at, size, self) if _addressed(self._buf) else \
                self._buf.sub(at, size)
            eng.download(view, comps)
        if isinstance(t, dt.VecType):
            return comps.reshape(t.shape)
        return comps[0].item()

    def __setitem__(self, key, value):
        raise TackTypeError("tack.Array is not writable element by element on the host: use "
                            "tack.copyto(a, values) (the whole array) or a kernel; read with "
                            "a[i] or .numpy()")

    def reshape(self, *shape) -> Array:
        """A view of the same buffer with another shape of as many elements (writes through
        either are seen by both); one dimension may be -1."""
        if len(shape) == 1 and not isinstance(shape[0], (int, np.integer)):
            shape = shape[0]
        shape = _shape(shape, negative_ok=True)
        if shape.count(-1) > 1:
            raise TackValueError("reshape: only one dimension may be -1")
        if -1 in shape:
            rest = int(np.prod([s for s in shape if s != -1], dtype=np.int64))
            if rest == 0 or self.size % rest:
                raise TackValueError(f"cannot reshape an array of {self.size} elements into "
                                     f"{shape}")
            shape = tuple(self.size // rest if s == -1 else s for s in shape)
        new = _shape(shape)
        if int(np.prod(new, dtype=np.int64)) != self.size:
            raise TackValueError(f"cannot reshape an array of shape {self.shape} ({self.size} "
                                 f"elements) into {new}")
        t = self.dtype
        phys = new + t.shape if isinstance(t, dt.VecType) else new
        if self._host is not None:
            return Array(self._host.reshape(phys), self._device, dtype=t)
        return Array(None, self._device, self._buf, phys, t, self.readonly)

    def copy(self) -> Array:
        """A new array on the same device with the same shape, dtype and contents."""
        out = zeros(self.shape, self.dtype, self._device)
        if self._host is not None:
            out._host[...] = self._host
        elif self.nbytes:
            self._device.engine.copy(out._buf, self._buf, self.nbytes)
        return out

    def to(self, device) -> Array:
        """This array on `device` (a `Device` or a name such as "cuda:1"): itself when it is
        there already, else a copy; GPU to GPU peer-to-peer when the driver allows it, else
        through the host."""
        dev = device if isinstance(device, Device) else _device(device)
        if dev is self._device:
            return self
        if self._host is not None:
            if dev.is_host:
                return Array(self._host.copy(), dev, dtype=self.dtype)
            return Array._from_host(self._host, dev, self.dtype)
        if dev.is_host:
            return Array(self.numpy(), dev, dtype=self.dtype)
        src, eng = self._device.engine, dev.engine
        peer = getattr(eng, "copy_peer", None)  # optional in the engine contract
        if peer is None or type(src) is not type(eng):
            return Array._from_host(self.numpy(), dev, self.dtype)
        buf = eng.alloc(self.nbytes)
        if self.nbytes:
            peer(buf, src, self._buf, self.nbytes)
        return Array(None, dev, buf, self._phys, self.dtype)

    def astype(self, dtype) -> Array:
        """A new array of `dtype` (for a vector or matrix array: its component dtype), each
        value converted by the kernel language's rules (docs/language.md, "Conversions")."""
        t = dt.as_dtype(dtype)
        src = self.numpy()
        if t.is_int and (src.dtype.kind == "f" or dt.is_bfloat16(src.dtype)):
            # float → int saturates, as in kernels (a bfloat16 through its exact float32)
            host = dt.saturate_int(src.astype(np.float32) if src.dtype.kind == "V" else src, t)
        else:
            with np.errstate(over="ignore"):  # f64 → f32 overflows to inf, as in kernels
                host = src.astype(t.np)
        vt = self.dtype
        out_t = dt.VecType(t, vt.shape) if isinstance(vt, dt.VecType) else None
        return array(host, out_t, self._device)

    # ---- reductions over every element (docs/algorithms.md, "Reductions on arrays") ---------
    # They are Tack kernels, in tack.algorithms (layer 8); arrays is layer 6 and may not import
    # upward, even inside a function, so tack.algorithms registers its entry point here when the
    # package loads (register_reductions) and these methods call it.
    def sum(self) -> float:
        """The sum of every element (accumulated in f32, f64, i64 or u64; 0.0 when empty)."""
        return _reductions["run"]("sum", self)

    def min(self) -> float:
        """The smallest element; NaN if any is NaN; ValueError when empty."""
        return _reductions["run"]("min", self)

    def max(self) -> float:
        """The largest element; NaN if any is NaN; ValueError when empty."""
        return _reductions["run"]("max", self)

    def mean(self) -> float:
        """sum() / size (NaN when empty)."""
        return _reductions["run"]("mean", self)

    def fill(self, value) -> None:
        """Set every element; a vector/matrix array takes one element's value or a scalar
        (one the dtype cannot hold raises before anything is written: dtypes.host_value)."""
        _check_writable(self, "fill")
        v = dt.host_value(value, self.dtype)
        try:
            v = np.broadcast_to(v, self._phys)
        except ValueError as exc:  # NumPy's refusal: the wrong shape for one element
            raise TackValueError(f"fill: {value!r} does not fit elements of {self.dtype!r}: "
                                 f"{exc}") from None
        self._unwritten = False
        if self._host is not None:
            self._host[...] = v
        else:
            self._device.engine.upload(self._buf, np.ascontiguousarray(v))

    # ---- zero-copy exchange (runtime/cuda/dlpack.py) -------------------------------------------
    def _scalar(self):
        """A vector/matrix array exchanges its components as trailing dimensions."""
        return getattr(self.dtype, "elem", self.dtype)

    def _shares_memory(self) -> bool:
        """Whether DLPack and the CUDA array interface can export this array: host memory, or
        an engine's device addresses (not the Julia engine's arrays: docs/julia.md)."""
        return self._host is not None or _addressed(self._buf)

    @property
    def __cuda_array_interface__(self) -> dict:
        """Version 3, GPU arrays only: the device pointer and Tack's stream (consumers sync)."""
        if self._host is not None:
            raise AttributeError("a CPU tack.Array has no __cuda_array_interface__ "
                                 "(use numpy() or __dlpack__)")
        if not self._shares_memory():
            raise AttributeError(_NO_EXPORT.format(self._device))
        return _dlpack().cuda_array_interface(self._device.engine, self._ptr, self._phys,
                                              self._scalar())

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """A DLPack capsule sharing this array's memory (kDLCUDA on a GPU, kDLCPU on the host);
        copy=True raises BufferError on every device (docs/language.md, "Arrays on the host")."""
        if copy:
            raise TackBufferError("tack.Array.__dlpack__ shares memory; copy=True is not "
                                  "supported: copy first with a.copy() or tack.array(a)")
        if self._host is not None:
            return _dlpack().export_host(self._host, stream, max_version, dl_device, copy)
        if not self._shares_memory():
            raise TackBufferError(_NO_EXPORT.format(self._device))
        return _dlpack().export(self._device.engine, self._ptr, self._phys, self._scalar(),
                                self, stream, max_version, dl_device, copy, self.readonly)

    def __dlpack_device__(self) -> tuple[int, int]:
        if self._host is not None:
            return (_dlpack().kDLCPU, 0)
        if not self._shares_memory():
            raise TackBufferError(_NO_EXPORT.format(self._device))
        return (_dlpack().kDLCUDA, self._device.engine.index)


def _addressed(buf) -> bool:
    """Whether an engine buffer's `ptr` is a device address (False: a Julia array's number)."""
    return getattr(buf, "ptr_is_address", True)


_NO_EXPORT = ("a tack.Array on {0!r} is a Julia array: it shares no memory through DLPack or "
              "__cuda_array_interface__; copy it with a.numpy() or a.to(device)")


def _key_text(key: tuple) -> str:
    def one(k):
        if isinstance(k, slice):
            return ":".join("" if v is None else str(v) for v in (k.start, k.stop)) + (
                f":{k.step}" if k.step is not None else "")
        return "..." if k is Ellipsis else repr(k)
    return f"a[{', '.join(one(k) for k in key)}]"


_reductions: dict = {}  # "run": tack.algorithms.reduce.array_reduction, set at package load


def register_reductions(run) -> None:
    """Called once by tack.algorithms: `run(op, array)` computes Array.sum/min/max/mean."""
    _reductions["run"] = run


def _dlpack():
    """runtime.cuda.dlpack, imported on first use: `import tack` does not load it."""
    from .runtime.cuda import dlpack as cuda_dlpack

    return cuda_dlpack


def _on(device) -> Device:
    """The device an allocation goes to: `device` (a Device or a name), else the current one."""
    if device is None:
        return default_device()
    return device if isinstance(device, Device) else _device(device)


def _check_host_source(src) -> np.ndarray:
    if isinstance(src, Array):
        return src.numpy()
    try:
        a = np.asarray(src)
    except (TypeError, ValueError) as exc:  # ragged nested lists and the like
        raise TackValueError(f"Cannot make an array of {type(src).__name__}: {exc}") from None
    if a.dtype == object or not dt.numeric_numpy(a.dtype):
        raise TackTypeError(f"Unsupported numpy dtype: {a.dtype}; Tack arrays hold numbers")
    return a


def array(obj, dtype=None, device: Device | None = None) -> Array:
    """A new array with `obj`'s shape and dtype (or `dtype`), its data copied in."""
    src = _check_host_source(obj)
    if isinstance(dtype, dt.VecType):
        k = len(dtype.shape)
        if src.shape[src.ndim - k:] != dtype.shape:
            raise TackValueError(f"an array of {dtype!r} needs data of shape (..., "
                                 f"{', '.join(map(str, dtype.shape))}), got {src.shape}")
        host = np.array(src, dtype=dtype.elem.np, order="C", copy=True)
        return Array._from_host(host, _on(device), dtype)
    target = dt.from_numpy(src.dtype) if dtype is None else dt.as_dtype(dtype)
    host = np.array(src, dtype=target.np, order="C", copy=True)
    return Array._from_host(host, _on(device))


def empty(shape, dtype=dt.f32, device: Device | None = None) -> Array:
    """A new array of `shape` (zero-filled: Tack never hands out uninitialized memory).

    It is marked "not yet written" until `fill`, `copyto` or a kernel launch that takes it:
    `tack.check` then reports a kernel's reads of it before writes (docs/checking.md)."""
    a = zeros(shape, dtype, device)
    a._unwritten = True
    return a


def zeros(shape, dtype=dt.f32, device: Device | None = None) -> Array:
    """A zero-filled array; `dtype` may be a vector or matrix type (`tack.vec3`)."""
    t = dtype if isinstance(dtype, dt.VecType) else dt.as_dtype(dtype)
    shape = _shape(shape)
    phys = shape + t.shape if isinstance(t, dt.VecType) else shape
    device = _on(device)
    nbytes = check_allocation(device, phys, getattr(t, "elem", t))
    if device.is_host:
        return Array(np.zeros(phys, dtype=t.np), device, dtype=t)
    eng = device.engine
    buf = eng.alloc(nbytes)
    eng.memset0(buf)
    return Array(None, device, buf, phys, t)


def full(shape, value, dtype=dt.f32, device: Device | None = None) -> Array:
    """An array of `value` (checked as Array.fill checks it, before the allocation)."""
    dt.host_value(value, dtype if isinstance(dtype, dt.VecType) else dt.as_dtype(dtype))
    a = zeros(shape, dtype, device)
    a.fill(value)
    return a


def ones(shape, dtype=dt.f32, device: Device | None = None) -> Array:
    """An array of ones (every component of a vector or matrix element)."""
    return full(shape, 1, dtype, device)


def arange(start, stop=None, step=1, dtype=None, device: Device | None = None) -> Array:
    """`numpy.arange`'s values: `arange(stop)`, `arange(start, stop[, step])`. Without a dtype:
    i32 when every argument is an integer and the values fit, i64 when they do not, f32 when
    one is a float (Tack's default widths, as for scalar arguments)."""
    if stop is None:
        start, stop = 0, start
    for v in (start, stop, step):
        if not isinstance(v, (int, float, np.integer, np.floating)):
            raise TackTypeError(f"tack.arange takes numbers, got {v!r}")
    if step == 0:
        raise TackValueError("tack.arange: step must not be zero")
    try:
        values = np.arange(start, stop, step)
    except (ValueError, MemoryError) as exc:  # more values than any memory holds
        raise TackValueError(f"tack.arange({start}, {stop}, {step}): {exc}") from None
    if dtype is None:
        if values.dtype.kind == "f":
            dtype = dt.f32
        else:
            lo, hi = (int(values.min()), int(values.max())) if values.size else (0, 0)
            dtype = dt.i32 if dt.i32.min() <= lo and hi <= dt.i32.max() else dt.i64
    return array(values, dtype, device)


def concat(arrays, axis: int = 0, device: Device | None = None) -> Array:
    """`numpy.concatenate` of tack Arrays (or NumPy arrays) of one dtype, along `axis`, on the
    first Tack array's device (or `device`)."""
    arrays = list(arrays)
    if not arrays:
        raise TackValueError("tack.concat needs at least one array")
    tacks = [a for a in arrays if isinstance(a, Array)]
    types = {a.dtype for a in tacks} | {dt.from_numpy(np.asarray(a).dtype) for a in arrays
                                        if not isinstance(a, Array)}
    if len(types) != 1:
        raise TackTypeError(f"tack.concat of arrays of different dtypes {sorted(map(repr, types))}"
                            "; convert them first with a.astype(dtype)")
    t = types.pop()
    ndim = arrays[0].ndim if isinstance(arrays[0], Array) else np.asarray(arrays[0]).ndim
    if not -ndim <= axis < ndim:
        raise TackValueError(f"tack.concat: axis {axis} is out of range for {ndim} dimensions")
    host = np.concatenate([_check_host_source(a) for a in arrays], axis=axis % ndim)
    dev = device or (tacks[0].device if tacks else None)
    return array(host, t if isinstance(t, dt.VecType) else None, dev)


def copyto(dst: Array, src) -> None:
    """Copy `src` (a NumPy array or a Tack array) into `dst`; shapes must match exactly. The
    source holds one of Tack's dtypes (what `tack.array(src)` takes), converted to dst's."""
    if not isinstance(dst, Array):
        raise TackTypeError(f"copyto's destination must be a tack.Array, got {type(dst).__name__}")
    a = _check_host_source(src)
    if not isinstance(src, Array):
        dt.from_numpy(a.dtype)  # float16, longdouble, bool: refused, as by tack.array
    if a.shape != dst._phys:
        raise TackValueError(f"Shape mismatch: array is {dst._phys}, got {a.shape}")
    _check_writable(dst, "copyto")
    dst._unwritten = False
    if dst._host is not None:
        np.copyto(dst._host, a, casting="unsafe")
    else:
        host = np.ascontiguousarray(a, dtype=dst.dtype.np)
        if host.size:
            dst._device.engine.upload(dst._buf, host)
