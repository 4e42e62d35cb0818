"""Deterministic inputs for one case, laid out as the case asks, and the fill of unwritten outputs.

Values are chosen so that a comparison against a float64 reference means something: mostly
positive numbers of moderate size (a sum of them does not cancel, so its relative error stays at
the rounding of its terms), with negatives, zeros and large magnitudes mixed in. Integers stay
inside the range where the reference's int64 arithmetic wraps exactly like the subject's.
"""
from __future__ import annotations

import zlib

import numpy as np

from ..shapes import noncontiguous
from .gufunc import Signature
from .tiers import Case

# Shares of the float mixture (the rest is uniform in [0.5, 2)).
NEGATIVE, ZERO, LARGE = 0.10, 0.05, 0.02


def _rng(seed: int, operand: int, case: Case, dtype: np.dtype) -> np.random.Generator:
    # The layout is left out on purpose: a strided case gets the values of its contiguous twin,
    # so the layout is the only difference between them.
    tag = zlib.crc32(dtype.name.encode())
    return np.random.default_rng([int(seed) & 0xFFFFFFFF, operand, tag, *case.dims])


def _floats(rng: np.random.Generator, n: int, dtype: np.dtype) -> np.ndarray:
    u = rng.random(n)
    out = rng.uniform(0.5, 2.0, n)
    out[u < NEGATIVE] *= -1.0
    out[(u >= NEGATIVE) & (u < NEGATIVE + ZERO)] = 0.0
    big = u >= 1.0 - LARGE
    top = 3.0 if dtype.itemsize <= 2 else 6.0  # float16 stops at 65504; bfloat16 has 8 bits
    out[big] = 10.0 ** rng.uniform(top - 2.0, top, int(big.sum()))
    return out.astype(dtype)


def _integers(rng: np.random.Generator, n: int, dtype: np.dtype) -> np.ndarray:
    info = np.iinfo(dtype)
    hi = min(int(info.max), (1 << 62) - 1)  # uint64 above 2**63 would not survive int64
    u = rng.random(n)
    out = rng.integers(0, min(100, hi) + 1, n)
    if info.min < 0:
        neg = u < 0.15
        out[neg] = -rng.integers(1, 101, int(neg.sum()))
    out[(u >= 0.15) & (u < 0.25)] = 0
    big = u >= 0.95
    out[big] = rng.integers(hi // 2, hi + 1, int(big.sum()))
    if info.min < 0:
        out[big & (rng.random(n) < 0.5)] *= -1
    return out.astype(dtype)


def values(rng: np.random.Generator, shape: tuple, dtype) -> np.ndarray:
    """A C-contiguous array of `shape` drawn from the mixture for `dtype`."""
    dtype = np.dtype(dtype)
    n = int(np.prod(shape, dtype=np.int64))
    flat = _integers(rng, n, dtype) if dtype.kind in "iu" else _floats(rng, n, dtype)
    return flat.reshape(shape)


def layout(a: np.ndarray, kind: str) -> np.ndarray:
    """`a` as the case's layout: a strided, transposed or reversed view equal to `a`."""
    if kind == "contiguous" or a.ndim == 0:
        return a
    if kind == "transposed":
        return noncontiguous(a, "fortran") if a.ndim >= 2 else a  # the transpose of a C array
    return noncontiguous(a, kind)


def make(sig: Signature, case: Case, dtype, seed: int) -> list[np.ndarray]:
    """Every input of `case`, in signature order, in the case's layout."""
    dtype = np.dtype(dtype)
    shapes, _ = sig.shapes(case.dims)
    return [layout(values(_rng(seed, k, case, dtype), s, dtype), case.layout)
            for k, s in enumerate(shapes)]


def fill_value(dtype):
    """What a kernel's outputs hold before it runs: NaN, or an integer sentinel (the most
    negative value, or the largest unsigned one) that the inputs never produce by themselves."""
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return int(info.min) if info.min < 0 else int(info.max)
    return float("nan")
