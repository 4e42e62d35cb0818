"""The memory of `tack.Array`s on the Julia engine's GPU devices: kept on the device between launches.

An array's storage is one Julia byte vector, `KA.allocate(backend, UInt8, (nbytes,))` (TackRuntime's
`tk_alloc`), held through juliacall by a `JuliaBuffer`; a launch passes `reinterpret(T, bytes)` of
it (made once per element type and cached), so kernels run on device memory with no copy. Host
data crosses only in `upload` (`tk_upload!`) and `download` (`tk_download!`, which waits for the
backend first). Launches are queued: `sync` waits, and an error of a queued kernel names the
kernels launched since the last wait. The layout is NumPy's (C order, flat); docs/julia.md,
"tack.Arrays on Julia GPU devices", gives the mapping to Julia's column-major arrays.
"""
from __future__ import annotations

import itertools

import numpy as np

from ...dtypes import DType
from ...errors import TackRuntimeError, TackTypeError, TackValueError
from ...render.julia.ka import JL_TYPES

# The functions of julia/src/TackRuntime.jl this module calls (looked up once per session).
FUNCTIONS = ("tk_alloc", "tk_typed", "tk_upload!", "tk_download!", "tk_fill0!", "tk_copy!",
             "launch_resident!", "tk_synchronize")
# Buffers are told apart by `ptr` (tack.Array's `_ptr`, e.g. tack.check's memory key); a Julia
# array's device address is not portable across backends (Metal's is a buffer and an offset), so
# each buffer gets a number of its own, spaced so that offsets into one never reach the next.
_IDS = itertools.count(1)
_SPACING = 1 << 48


class JuliaBuffer:
    """`nbytes` bytes of a Julia device array (`arr`, a juliacall handle) from byte `offset`,
    allocated by the Julia `session` for the engine's `device` ("cuda", "metal", ...)."""

    __slots__ = ("__weakref__", "_typed", "arr", "device", "nbytes", "offset", "ptr", "session")
    ptr_is_address = False  # tack.Array reads elements through `sub` and exports nothing

    def __init__(self, arr, nbytes: int, session, device: str, offset: int = 0, ptr=None):
        self.arr, self.nbytes, self.session, self.device = arr, int(nbytes), session, device
        self.offset = offset
        self.ptr = next(_IDS) * _SPACING if ptr is None else ptr
        self._typed: dict = {}  # element DType -> the Julia vector `reinterpret(T, arr)`

    def sub(self, offset: int, nbytes: int) -> JuliaBuffer:
        """The `nbytes` bytes from byte `offset` of this buffer (tack.Array's element reads)."""
        return JuliaBuffer(self.arr, nbytes, self.session, self.device, self.offset + offset,
                           self.ptr + offset)

    def __repr__(self) -> str:
        return f"JuliaBuffer({self.device}, nbytes={self.nbytes}, offset={self.offset})"


class JuliaStorage:
    """The storage half of one Julia GPU engine, on one session and backend."""

    def __init__(self, session, backend, device: str):
        self.session, self.backend, self.device = session, backend, device
        self.fn = {name: session.jl.seval(f"TackRuntime.{name}") for name in FUNCTIONS}
        self._types: dict = {}  # DType -> the Julia type object
        self.pending: set[str] = set()  # kernels launched since the last wait

    # ---- the engine contract's storage (runtime/base.py) ----------------------------------
    def alloc(self, nbytes: int) -> JuliaBuffer:
        nbytes = int(nbytes)
        arr = self._call(f"allocating {nbytes} bytes", "tk_alloc", self.backend, nbytes)
        return JuliaBuffer(arr, nbytes, self.session, self.device)

    def upload(self, buf: JuliaBuffer, host: np.ndarray) -> None:
        self.check(buf, "upload")
        if host.nbytes:
            self._fits(buf, host.nbytes, "upload")
            self._call("upload", "tk_upload!", buf.arr, buf.offset, _bytes(host))

    def download(self, buf: JuliaBuffer, out: np.ndarray) -> None:
        self.check(buf, "download")
        if not out.nbytes:
            self.sync()
            return
        self._fits(buf, out.nbytes, "download")
        self._waiting("download", "tk_download!", _bytes(out), buf.arr, buf.offset, self.backend)

    def memset0(self, buf: JuliaBuffer) -> None:
        self.check(buf, "memset0")
        if buf.nbytes:
            self._whole(buf, "memset0")
            self._call("memset0", "tk_fill0!", buf.arr)

    def copy(self, dst: JuliaBuffer, src: JuliaBuffer, nbytes: int) -> None:
        for b in (dst, src):
            self.check(b, "copy")
            self._whole(b, "copy")
            self._fits(b, nbytes, "copy")
        if nbytes:
            self._call("copy", "tk_copy!", dst.arr, src.arr, int(nbytes))

    def sync(self) -> None:
        self._waiting("the next wait", "tk_synchronize", self.backend)

    # ---- launches ---------------------------------------------------------------------------
    def launch_value(self, kernel: str, param: str, buf: JuliaBuffer, dtype: DType):
        """The kernel argument for `buf` as an array of `dtype`: `reinterpret(T, bytes)`."""
        self.check(buf, f"kernel '{kernel}'")
        if buf.offset or buf.nbytes % dtype.itemsize:
            raise TackValueError(f"Kernel '{kernel}': parameter '{param}' takes a whole "
                                 f"{dtype.name} array; this buffer is {buf.nbytes} bytes from "
                                 f"byte {buf.offset}")
        typed = buf._typed.get(dtype)
        if typed is None:
            typed = buf._typed[dtype] = self._call("a launch", "tk_typed", buf.arr,
                                                   self.julia_type(dtype))
        return typed

    def launch(self, kernel: str, fn, n, values) -> None:
        self.pending.add(kernel)
        try:
            self.fn["launch_resident!"](fn, self.backend, n, *values)
        except self.session.error_type as exc:  # a Julia exception: wrapped once, with its cause
            raise TackRuntimeError(f"Kernel '{kernel}' failed on julia:{self.device}: "
                                   f"{exc}") from exc

    def julia_type(self, dtype: DType):
        t = self._types.get(dtype)
        if t is None:
            t = self._types[dtype] = self.session.jl.seval(JL_TYPES[dtype])
        return t

    # ---- checks -----------------------------------------------------------------------------
    def check(self, buf, what: str) -> None:
        """Before anything runs: `buf` is a live buffer of this device."""
        if not isinstance(buf, JuliaBuffer):
            raise TackTypeError(f"{what} on julia:{self.device}: expected a buffer of the Julia "
                                f"engine, got {type(buf).__name__}")
        if buf.session is not self.session:
            raise TackRuntimeError(
                f"{what} on julia:{self.device}: the array's memory was freed (the Julia session "
                "that allocated it has ended); re-create the array")
        if buf.device != self.device:
            raise TackValueError(f"{what} on julia:{self.device}: the array belongs to "
                                 f"julia:{buf.device}; move it with a.to(device)")

    @staticmethod
    def _fits(buf: JuliaBuffer, nbytes: int, what: str) -> None:
        if nbytes > buf.nbytes:
            raise TackValueError(f"{what}: {nbytes} bytes do not fit a buffer of {buf.nbytes}")

    @staticmethod
    def _whole(buf: JuliaBuffer, what: str) -> None:
        if buf.offset:
            raise TackValueError(f"{what} takes a whole buffer, not one from byte {buf.offset}")

    # ---- calls into Julia -------------------------------------------------------------------
    def _call(self, what: str, name: str, *args):
        try:
            return self.fn[name](*args)
        except self.session.error_type as exc:  # a Julia exception: wrapped once, with its cause
            raise TackRuntimeError(f"julia:{self.device}: {what} failed: {exc}") from exc

    def _waiting(self, what: str, name: str, *args) -> None:
        """A call that waits for queued work: a failure names the kernels queued before it."""
        pending, self.pending = self.pending, set()
        try:
            self.fn[name](*args)
        except self.session.error_type as exc:  # a Julia exception: wrapped once, with its cause
            names = ", ".join(sorted(pending))
            during = f" (kernels launched since the last wait: {names})" if pending else ""
            raise TackRuntimeError(f"julia:{self.device}: {what} failed{during}: "
                                   f"{exc}") from exc


def _bytes(a: np.ndarray) -> np.ndarray:
    """A C-contiguous array's memory as a flat `uint8` array (a view, no copy)."""
    return a.reshape(-1).view(np.uint8)
