"""Storage for engines whose arrays are plain host memory (the CPU engine, the Julia engine's
CPU backend): the storage half of the engine contract over NumPy byte arrays.

`arrays` keeps a host device's arrays as NumPy arrays and never calls these; they make the
contract whole for code that talks to an engine directly (and for an engine's own tests).
"""
from __future__ import annotations

import ctypes

import numpy as np


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
