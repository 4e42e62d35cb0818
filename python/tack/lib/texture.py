"""`tack.texture3d`: a snapshot of an f32 volume with trilinear sampling, written in Tack's kernel
language (a device class whose `sample` method every engine renders like user code).

Layout: texel (i, j, k) — i along W (u), j along H (v), k along D (w) — is element
`(k * H + j) * W + i` of the data, i.e. a NumPy volume of shape (D, H, W) raveled in C order.
Coordinates are normalized: 0 and 1 are the centres of the first and last texels, and sampling
clamps to the edge.
"""
from __future__ import annotations

import numpy as np

from ..arrays import Array, array
from ..dtypes import f32
from ..errors import TackTypeError, TackValueError
from ..frontend.inline import func
from ..frontend.objects import device_class


@device_class
class Texture3D:
    """A snapshot of an f32 volume that kernels sample trilinearly: `t.sample(u, v, w)` with
    normalized coordinates (made by `tack.texture3d(array, shape)`; `update()` takes a new
    snapshot of the source array)."""

    # Extents are compile-time constants: each instance's values shadow these.
    W = 1
    H = 1
    D = 1

    def __init__(self, source: Array, shape):
        self._source = source
        self.W, self.H, self.D = shape
        self.data = array(source.numpy().reshape(-1), device=source.device)

    def update(self) -> None:
        """Take a new snapshot of the source array (writes after creation are invisible until
        then)."""
        from ..arrays import copyto

        copyto(self.data, self._source.numpy().reshape(-1))

    def __repr__(self) -> str:
        return f"tack.Texture3D(shape=({self.W}, {self.H}, {self.D}))"

    @func
    def sample(self, u, v, w):
        x = min(max(float(u), 0.0), 1.0) * (self.W - 1)
        y = min(max(float(v), 0.0), 1.0) * (self.H - 1)
        z = min(max(float(w), 0.0), 1.0) * (self.D - 1)
        i0 = int(x)
        j0 = int(y)
        k0 = int(z)
        i1 = min(i0 + 1, self.W - 1)
        j1 = min(j0 + 1, self.H - 1)
        k1 = min(k0 + 1, self.D - 1)
        fx = x - i0
        fy = y - j0
        fz = z - k0
        r00 = (k0 * self.H + j0) * self.W
        r01 = (k0 * self.H + j1) * self.W
        r10 = (k1 * self.H + j0) * self.W
        r11 = (k1 * self.H + j1) * self.W
        c00 = self.data[r00 + i0] + (self.data[r00 + i1] - self.data[r00 + i0]) * fx
        c01 = self.data[r01 + i0] + (self.data[r01 + i1] - self.data[r01 + i0]) * fx
        c10 = self.data[r10 + i0] + (self.data[r10 + i1] - self.data[r10 + i0]) * fx
        c11 = self.data[r11 + i0] + (self.data[r11 + i1] - self.data[r11 + i0]) * fx
        c0 = c00 + (c01 - c00) * fy
        c1 = c10 + (c11 - c10) * fy
        return c0 + (c1 - c0) * fz


def texture3d(source: Array, shape=None, interp: str = "linear") -> Texture3D:
    """A texture holding a copy of `source` (f32, W*H*D elements); see the module docstring."""
    if interp != "linear":
        raise TackValueError(f"texture3d supports interp='linear' only, got {interp!r}")
    if not isinstance(source, Array):
        raise TackTypeError(f"texture3d takes a tack.Array, got {type(source).__name__}")
    if source.dtype is not f32:
        raise TackTypeError(f"texture3d requires an f32 array, got {source.dtype!r}; convert it "
                            "first (e.g. tack.array(a.numpy().astype(np.float32)))")
    if shape is None:
        if source.ndim != 3:
            raise TackValueError("texture3d requires a 3D shape: pass shape=(W, H, D) or a "
                                 "3-D array of shape (D, H, W)")
        d, h, w = source.shape
        shape = (w, h, d)
    shape = tuple(int(s) for s in shape)
    if len(shape) != 3 or min(shape) < 1:
        raise TackValueError(f"texture3d requires a 3D shape of positive extents, got {shape}")
    if int(np.prod(shape)) != source.size:
        raise TackValueError(f"texture3d shape {shape} holds {int(np.prod(shape))} texels but "
                             f"the array has {source.size} elements")
    return Texture3D(source, shape)
