"""Fused multiply-add over NumPy values, rounded once, as the CPU's and the GPU's FMA
instructions round `MULADD` (passes/muladd.py): NumPy has no FMA, and computing a*b + c in a
wider type rounds twice, which differs from the fused result in the last bit now and then.

The exact sum is rounded to odd first and to nearest after (Boldo and Melquiond, "Emulation of
FMA and correctly rounded sums: proved algorithms using rounding to odd", IEEE Transactions on
Computers 57(4), 2008, https://hal.inria.fr/inria-00080427): rounding to odd in a format of at
least two more digits, then to nearest, is the correct rounding to nearest. float32: the float64
product of two float32 is exact, the float64 sum rounds to odd, the float32 conversion to
nearest. float64: the product is split exactly (Dekker's TwoProduct with Veltkamp's splitting),
added to c exactly (Knuth's TwoSum), the two low parts added with rounding to odd and the result
rounded once. Where the splitting could overflow or the parts underflow (|a|, |b| or |a b| near
the ends of float64's range) or an operand is not finite, a*b + c is computed directly.
"""
from __future__ import annotations

import numpy as np

_SPLIT = 134217729.0  # 2^27 + 1


def _two_sum(a, b):
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _two_product(a, b):
    p = a * b
    c = a * _SPLIT
    ah = c - (c - a)
    c = b * _SPLIT
    bh = c - (c - b)
    al, bl = a - ah, b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _add_odd(a, b):
    """a + b rounded to odd: exact if representable, else whichever neighbour is odd."""
    s, err = _two_sum(a, b)
    even = (s.view(np.int64) & 1) == 0
    step = np.nextafter(s, np.where(err > 0, np.inf, -np.inf))
    return np.where((err != 0) & even & np.isfinite(s), step, s)


def fma32(x, y, z):
    """float32 x * y + z rounded once (arrays or scalars of float32)."""
    with np.errstate(all="ignore"):
        p = np.asarray(x, np.float64) * np.asarray(y, np.float64)
        r = _add_odd(np.atleast_1d(p), np.atleast_1d(np.asarray(z, np.float64)))
        r = np.where(np.isfinite(p), r, p + np.asarray(z, np.float64)).astype(np.float32)
    return r.reshape(np.broadcast(x, y, z).shape)[()] if r.ndim else r


def fma64(x, y, z):
    """float64 x * y + z rounded once (arrays or scalars of float64)."""
    shape = np.broadcast(x, y, z).shape
    a, b, c = (np.broadcast_to(np.asarray(v, np.float64), shape).ravel() for v in (x, y, z))
    with np.errstate(all="ignore"):
        plain = a * b + c
        uh, ul = _two_product(a, b)
        th, tl = _two_sum(c, uh)
        fused = th + _add_odd(tl, ul)
        mag = np.abs(uh)
        safe = ((np.abs(a) < 2.0**995) & (np.abs(b) < 2.0**995) & ((mag > 2.0**-960) | (mag == 0))
                & np.isfinite(plain) & np.isfinite(fused) & (np.abs(c) < 2.0**1020))
        out = np.where(safe, fused, plain)
    return out.reshape(shape)[()] if shape == () else out.reshape(shape)
