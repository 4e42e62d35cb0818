"""Storage for engines whose arrays are plain host memory (the CPU engine, the Julia engine's
CPU backend): the storage half of the engine contract over NumPy byte arrays; and the checks of
the NumPy arrays that engines running in them (the simulator, the Julia engine) take at launch.

`arrays` keeps a host device's arrays as NumPy arrays and never calls these; they make the
contract whole for code that talks to an engine directly (and for an engine's own tests).
"""
from __future__ import annotations

import ctypes

import numpy as np

from ..dtypes import is_bfloat16
from ..errors import TackTypeError, TackValueError


class HostBuffer:
    """Host memory: the bytes `data` (a uint8 NumPy array), their address `ptr`, `nbytes`."""

    __slots__ = ("data", "nbytes", "owner", "ptr")

    def __init__(self, data: np.ndarray, owner=None):
        self.data, self.nbytes, self.owner = data, data.nbytes, owner
        self.ptr = data.ctypes.data if data.nbytes else 0

    def __repr__(self) -> str:
        return f"HostBuffer(ptr=0x{self.ptr:x}, nbytes={self.nbytes})"


def _bytes(a: np.ndarray) -> np.ndarray:
    return a.reshape(-1).view(np.uint8)


class HostMemory:
    """`alloc`, `upload`, `download`, `memset0`, `copy` and `adopt` in host memory."""

    def alloc(self, nbytes: int) -> HostBuffer:
        return HostBuffer(np.zeros(max(0, int(nbytes)), np.uint8))

    def upload(self, buf: HostBuffer, host: np.ndarray) -> None:
        buf.data[:host.nbytes] = _bytes(host)

    def download(self, buf: HostBuffer, out: np.ndarray) -> None:
        _bytes(out)[:] = buf.data[:out.nbytes]

    def memset0(self, buf: HostBuffer) -> None:
        buf.data[:] = 0

    def copy(self, dst: HostBuffer, src: HostBuffer, nbytes: int) -> None:
        dst.data[:nbytes] = src.data[:nbytes]

    def adopt(self, ptr: int, nbytes: int, owner) -> HostBuffer:
        raw = (ctypes.c_uint8 * nbytes).from_address(ptr) if nbytes else (ctypes.c_uint8 * 0)()
        return HostBuffer(np.ctypeslib.as_array(raw), owner)


# ---- launch values in host memory ---------------------------------------------------------------
def check_count(name: str, params, values) -> None:
    """One launch value per IR parameter, or TypeError."""
    if len(values) != len(params):
        raise TackTypeError(f"Kernel '{name}' expects {len(params)} arguments, got {len(values)}")


def host_array(name: str, p, a) -> np.ndarray:
    """The NumPy array launched for array parameter `p` by an engine that runs in it (the
    simulator; the Julia engine's host arrays), checked the same way for both: an array of
    `p`'s dtype, C-contiguous, and writeable where the kernel may write it; TypeError or
    ValueError otherwise, naming kernel `name` and the parameter."""
    if not isinstance(a, np.ndarray):
        raise TackTypeError(f"Kernel '{name}': parameter '{p.name}' expects an array, got "
                            f"{type(a).__name__}")
    if a.dtype != p.dtype.np:
        raise TackTypeError(f"Kernel '{name}': parameter '{p.name}' has dtype {a.dtype}, but "
                            f"this specialization takes {p.dtype.np}")
    if not a.flags.c_contiguous:
        raise TackValueError(f"Kernel '{name}': parameter '{p.name}' must be C-contiguous "
                             "(use numpy.ascontiguousarray)")
    if p.written and not a.flags.writeable:
        raise TackValueError(f"Kernel '{name}': parameter '{p.name}' may be written, but its "
                             "array is read-only")
    return a


def host_scalar(name: str, p, v):
    """The NumPy scalar of scalar parameter `p`'s dtype (np.bool_ for bool) launched for `v`,
    which must be a number (a Python or NumPy one; a bfloat16 NumPy scalar for an f32
    parameter), checked the same way by both engines: TypeError otherwise, naming kernel `name`
    and the parameter (NumPy would take a string, None or a list and launch on what it made of
    them)."""
    if not isinstance(v, (int, float, np.number, np.bool_)) and not (
            isinstance(v, np.generic) and is_bfloat16(v.dtype)):
        raise TackTypeError(f"Kernel '{name}': parameter '{p.name}' expects a scalar, got "
                            f"{type(v).__name__}")
    return (p.dtype.np or np.dtype(np.bool_)).type(v)
