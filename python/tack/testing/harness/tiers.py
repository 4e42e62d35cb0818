"""Shape tiers: the extents and memory layouts a subject is checked (or timed) on.

Every tier is generated from the signature's dimension names, so one rule serves elementwise
ops, reductions and matrix products alike. FAST covers the five classes of shape bugs —

- tile boundaries: 255/256/257 and 1023/1024/1025, where masking and tail code lives;
- size-1 dimensions, one at a time, where strides and broadcasts go wrong;
- primes, which no block or thread count divides;
- extreme aspect ratios (2 x 4099, 1 x 1025), where a swapped or assumed-square index shows;
- non-contiguous inputs: strided, transposed and reversed views;

and combinations where two dimensions are awkward at once. EXHAUSTIVE sweeps each dimension
through many more sizes; CANONICAL is three aligned, well-sized shapes, for timing only. Cases
are deterministic: the same signature and tier always give the same list.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass

from ...errors import TackValueError
from .gufunc import Signature

LAYOUTS = ("contiguous", "strided", "transposed", "reversed")

BASE = 64  # the extent of a dimension a case does not vary: aligned, so it is never the culprit
TILE = (255, 256, 257, 1023, 1024)  # with 1025 below, the two tile boundaries
SWEEP = (1, 2, 3, 5, 7, 11, 13, 17, 31, 33, 63, 64, 65, 100, 127, 128, 129, 255, 256, 257, 509,
         511, 512, 513, 1000, 1023, 1024, 1025, 2047, 2048, 2049, 4095, 4096, 4097, 4099, 8191,
         16385, 65535, 65536, 65537, 1048575, 1048577)
SWEEP_ND = (1, 2, 3, 7, 31, 63, 64, 65, 255, 256, 257, 1023, 1024, 1025, 4099)
SWEEP_WIDE = (1, 2, 7, 31, 255, 256, 257, 1023, 1024, 1025, 4099)  # three names or more
PRIMES_ND = (7, 31, 127, 13, 5, 3)
BUDGET = {"fast": 1 << 22, "exhaustive": 1 << 24, "canonical": 1 << 22}  # elements per case
CANONICAL_LOG2 = (16, 20, 22)  # total elements of the three canonical shapes, as powers of two


class Tier(str, enum.Enum):
    FAST = "fast"
    EXHAUSTIVE = "exhaustive"
    CANONICAL = "canonical"


@dataclass(frozen=True, order=True)
class Case:
    """One shape: a value for every dimension name, and the layout of the inputs."""

    dims: tuple[int, ...]
    layout: str = "contiguous"

    @property
    def shape_label(self) -> str:
        return "x".join(map(str, self.dims)) if self.dims else "scalar"

    @property
    def label(self) -> str:
        return f"{self.shape_label}-{self.layout}"

    def size(self) -> int:
        n = 1
        for d in self.dims:
            n *= d
        return n

    def sort_key(self) -> tuple:
        """Smallest first: fewest elements, then contiguous before the views, then the label."""
        return (self.size(), LAYOUTS.index(self.layout), self.dims)


def as_tier(tier) -> Tier:
    try:
        return Tier(tier.value if isinstance(tier, Tier) else str(tier).lower())
    except ValueError:
        raise TackValueError(f"Unknown tier {tier!r}: use 'fast', 'exhaustive' or 'canonical'") \
            from None


def _with(k: int, values: dict[int, int]) -> tuple[int, ...]:
    """Dimensions at BASE except those in `values` (position -> extent)."""
    return tuple(values.get(i, BASE) for i in range(k))


def _fit(dims: tuple[int, ...], fixed: set[int], budget: int) -> tuple[int, ...]:
    """Halve the largest dimension not in `fixed` until the case fits the element budget."""
    dims = list(dims)
    while _product(dims) > budget:
        free = [i for i in range(len(dims)) if i not in fixed and dims[i] > 2]
        if not free:
            break
        i = max(free, key=lambda j: dims[j])
        dims[i] //= 2
    return tuple(dims)


def _product(dims) -> int:
    n = 1
    for d in dims:
        n *= d
    return n


def _pairs(k: int) -> list[tuple[int, int]]:
    """Pairs of dimension positions, each adjacent pair once (wrapping around for k > 2)."""
    return [(0, 1)] if k == 2 else [(i, (i + 1) % k) for i in range(k)]


def _fast_1d() -> list[tuple[dict, str]]:
    sizes = (1, 1025) + TILE + (7, 31, 4099, 65537)
    views = ((1025, "strided"), (257, "reversed"), (31, "strided"), (4099, "reversed"))
    return [({0: n}, "contiguous") for n in sizes] + [({0: n}, lay) for n, lay in views]


def _fast_nd(k: int, transposable: bool) -> list[tuple[dict, str]]:
    out = []
    for i in range(k):  # size 1 and one past the 1024 tile, one dimension at a time
        out += [({i: 1}, "contiguous"), ({i: 1025}, "contiguous")]
    out += [({j % k: n}, "contiguous") for j, n in enumerate(TILE)]
    out.append(({i: PRIMES_ND[i % len(PRIMES_ND)] for i in range(k)}, "contiguous"))
    a, b = _pairs(k)[0]
    out += [({a: 1, b: 1025}, "contiguous"), ({a: 257, b: 1023}, "contiguous"),
            ({a: 2, b: 4099}, "contiguous"), ({a: 4099, b: 2}, "contiguous")]
    out += [({a: 257, b: 31}, "strided"), ({a: 31, b: 1025}, "reversed")]
    if transposable:
        out.append(({a: 31, b: 257}, "transposed"))
    return out


PAIRS = ((1, 1025), (1025, 1), (1, 1), (257, 255), (2, 4099), (4099, 2), (1, 7), (7, 1), (3, 5),
         (255, 257), (1023, 1025), (255, 1025), (1025, 255), (1023, 1023), (31, 37))
PAIRS_ND = 6  # with three or more names, every adjacent pair gets only the first PAIRS


def _exhaustive(k: int, transposable: bool) -> list[tuple[dict, str]]:
    if k == 1:
        out = [({0: n}, "contiguous") for n in SWEEP]
        return out + [({0: n}, lay) for lay in ("strided", "reversed")
                      for n in (1, 7, 31, 256, 257, 1023, 1025, 4099, 65537)]
    sweep = SWEEP_ND if k == 2 else SWEEP_WIDE
    out = [({i: n}, "contiguous") for i in range(k) for n in sweep]
    for a, b in _pairs(k):
        out += [({a: x, b: y}, "contiguous") for x, y in (PAIRS if k == 2 else PAIRS[:PAIRS_ND])]
    a, b = _pairs(k)[0]
    out += [({a: x, b: y}, lay) for lay in ("strided", "reversed")
            for x, y in ((1, 257), (257, 1), (31, 1025))]
    if transposable:  # a (1, n) transpose is the same memory: give it two real extents
        out += [({a: x, b: y}, "transposed") for x, y in ((2, 257), (257, 3), (31, 1025))]
    return out


def _canonical(k: int) -> list[Case]:
    out = []
    for total in CANONICAL_LOG2:
        each, extra = divmod(total, k)
        out.append(Case(tuple(1 << (each + (1 if i >= k - extra else 0)) for i in range(k))))
    return out


def cases(sig: Signature, tier) -> list[Case]:
    """The tier's cases for `sig`, without duplicates, in a fixed order."""
    tier = as_tier(tier)
    k = len(sig.names)
    if k == 0:
        return [Case(())]
    if tier is Tier.CANONICAL:
        return _canonical(k)
    transposable = sig.max_input_rank() >= 2
    if tier is Tier.FAST:
        specs, out = _fast_1d() if k == 1 else _fast_nd(k, transposable), {}
    else:  # every FAST case (as FAST sizes it), then the sweep
        specs, out = _exhaustive(k, transposable), dict.fromkeys(cases(sig, Tier.FAST))
    for values, layout in specs:
        dims = _fit(_with(k, values), set(values), BUDGET[tier.value])
        out.setdefault(Case(dims, layout))
    return list(out)


def parse_label(label: str, sig: Signature) -> tuple[Case, str | None]:
    """`'257x1023-transposed'` or `'257x1023-transposed-float32'` -> (case, dtype or None)."""
    parts = str(label).split("-")
    if len(parts) not in (2, 3) or parts[1] not in LAYOUTS:
        raise TackValueError(f"Bad shape {label!r}: write extents-layout[-dtype], e.g. "
                             f"'1025-contiguous' or '257x31-strided-float32'; layouts: "
                             f"{', '.join(LAYOUTS)}")
    k = len(sig.names)
    if parts[0] == "scalar" and k == 0:
        dims: tuple[int, ...] = ()
    else:
        try:
            dims = tuple(int(p) for p in parts[0].split("x"))
        except ValueError:
            raise TackValueError(f"Bad extents {parts[0]!r} in shape {label!r}: write them as "
                                 "integers joined by 'x', e.g. 257x1023") from None
    if len(dims) != k or any(d < 0 for d in dims):
        names = ", ".join(sig.names) or "none"
        raise TackValueError(f"Shape {label!r} gives {len(dims)} extents; signature "
                             f"{sig.text!r} has {k} dimension names ({names})")
    return Case(dims, parts[1]), (parts[2] if len(parts) == 3 else None)
