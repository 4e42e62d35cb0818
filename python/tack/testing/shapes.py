"""Awkward sizes, non-contiguous NumPy inputs and edge-heavy random values for kernel tests.

Sizes that catch chunking and tail bugs: empty, one element, small primes, and primes just past
powers of two (a CPU thread pool or a GPU block size rarely divides them).
"""
from __future__ import annotations

import numpy as np

AWKWARD_SIZES = (0, 1, 7, 31, 257, 1025, 4099)
SMALL_SIZES = (0, 1, 7, 31)

INT_DTYPES = (np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64)
FLOAT_DTYPES = (np.float32, np.float64)
DTYPES = INT_DTYPES + FLOAT_DTYPES

NONCONTIGUOUS_KINDS = ("strided", "reversed", "fortran", "unaligned")


def awkward_sizes(max_size: int | None = None) -> tuple[int, ...]:
    """AWKWARD_SIZES, optionally only those <= max_size."""
    return tuple(n for n in AWKWARD_SIZES if max_size is None or n <= max_size)


def awkward_shapes_2d(max_size: int = 257) -> list[tuple[int, int]]:
    """Pairs of awkward extents (rows, columns), including empty and single rows/columns."""
    sizes = awkward_sizes(max_size)
    return [(r, c) for r in sizes for c in sizes if r * c <= max_size * 8]


def noncontiguous(a: np.ndarray, kind: str = "strided") -> np.ndarray:
    """A non-C-contiguous array equal to `a` (same shape, dtype and values).

    kind: 'strided' (every other element of a larger buffer), 'reversed' (negative strides),
    'fortran' (column-major; C-contiguous only when at most one extent exceeds 1), 'unaligned'
    (data starting one byte past an aligned address).
    """
    a = np.asarray(a)
    if kind == "strided":
        big = np.zeros(a.shape[:-1] + (a.shape[-1] * 2,) if a.ndim else (2,), a.dtype)
        view = big[..., ::2] if a.ndim else big[::2][0:1].reshape(())
        view[...] = a
        return view
    if kind == "reversed":
        if a.ndim == 0:
            return a.copy()
        buf = np.flip(a).copy()
        return np.flip(buf)
    if kind == "fortran":
        return np.asfortranarray(a)
    if kind == "unaligned":
        raw = np.zeros(a.nbytes + a.itemsize + 1, np.uint8)
        view = raw[1:1 + a.nbytes].view(a.dtype).reshape(a.shape)
        view[...] = a
        return view
    raise ValueError(f"unknown non-contiguous kind {kind!r}; use one of {NONCONTIGUOUS_KINDS}")


def noncontiguous_variants(a: np.ndarray) -> list[tuple[str, np.ndarray]]:
    """(kind, view) for every kind; each view equals `a`."""
    return [(k, noncontiguous(a, k)) for k in NONCONTIGUOUS_KINDS]


def _edges(dtype) -> np.ndarray:
    if np.dtype(dtype).kind in "iu":
        info = np.iinfo(dtype)
        vals = {0, 1, 2, 3, 7, info.max, info.max - 1, info.max // 2 + 1}
        if info.min < 0:
            vals |= {-1, -2, -7, info.min, info.min + 1}
        return np.array(sorted(vals), dtype=dtype)
    info = np.finfo(dtype)
    return np.array([0.0, -0.0, 1.0, -1.0, 0.5, 3.0, -2.5, 1e-3, 1e6, -1e6, float(info.max),
                     float(info.tiny), np.inf, -np.inf, np.nan], dtype=dtype)


def random_values(rng: np.random.Generator, shape, dtype, edge_fraction: float = 0.1,
                  special_fraction: float = 0.02) -> np.ndarray:
    """Values mixing typical magnitudes with the dtype's edge values.

    Integers: half small (|v| < 100), half over the whole range, then `edge_fraction` replaced by
    edge values (0, ±1, MIN, MAX, ...). Floats: normal(0, 10) and small integers (exact), then
    `special_fraction` replaced by ±0, ±inf, NaN, huge and tiny values.
    """
    dtype = np.dtype(dtype)
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    n = int(np.prod(shape, dtype=np.int64))
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        wide = rng.integers(info.min, info.max, size=n, dtype=dtype, endpoint=True)
        small = rng.integers(max(info.min, -100), min(info.max, 100), size=n, endpoint=True)
        out = np.where(rng.random(n) < 0.5, small.astype(dtype), wide)
        frac = edge_fraction
    else:
        normal = rng.normal(0.0, 10.0, n)
        ints = rng.integers(-20, 20, n).astype(np.float64)
        out = np.where(rng.random(n) < 0.7, normal, ints).astype(dtype)
        frac = special_fraction
    pick = rng.random(n) < frac
    edges = _edges(dtype)
    if pick.any():
        out[pick] = edges[rng.integers(0, len(edges), int(pick.sum()))]
    return out.reshape(shape)
