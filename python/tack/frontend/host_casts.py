"""`tack.f32(x)` and friends called from host code: the kernel language's conversion rules."""
from __future__ import annotations

import numpy as np

from ..ir.consts import convert


def host_cast(dtype, value):
    if isinstance(value, np.ndarray):
        raise TypeError(f"{dtype!r}() converts one number; use array.astype({dtype.np.name})")
    if not isinstance(value, (int, float, np.integer, np.floating, bool)):
        raise TypeError(f"{dtype!r}() takes a number, got {type(value).__name__}")
    v = value.item() if isinstance(value, np.generic) else value
    return dtype.np.type(convert(v, dtype))
