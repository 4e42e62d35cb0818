"""The active lanes of one vectorized step: which lanes of a chunk execute the current statement.

A chunk is a run of whole workgroups launched together; every local is an array over the chunk's
lanes. `Lanes` names the subset that is active (inside a branch, a loop iteration, after some
lanes broke out): `sel` indexes the locals (a slice when every lane is active, so reads are
views), `pos` the positions in the chunk, `t` the launch indices. Sub-selections keep launch
order, so the k-th value of every expression belongs to the k-th active lane.
"""
from __future__ import annotations

import numpy as np

from ...ir.ops import WORKGROUP


class Lanes:
    __slots__ = ("base", "count", "full", "pos", "sel")

    def __init__(self, pos: np.ndarray, base: int, full: bool):
        self.pos, self.base, self.full = pos, base, full
        self.count = len(pos)
        self.sel = slice(None) if full else pos

    @classmethod
    def all(cls, base: int, count: int) -> Lanes:
        return cls(np.arange(count, dtype=np.int64), base, True)

    @property
    def t(self) -> np.ndarray:
        """The launch indices of the active lanes (int64)."""
        return self.pos + self.base

    @property
    def group_pos(self) -> np.ndarray:
        """Each active lane's workgroup, counted from the chunk's first."""
        return self.pos // WORKGROUP

    def where(self, mask) -> Lanes:
        """The active lanes for which `mask` (a bool per active lane, or one bool) holds."""
        if np.ndim(mask) == 0:
            return self if mask else self.none()
        if mask.all():
            return self
        return Lanes(self.pos[mask], self.base, False)

    def none(self) -> Lanes:
        return Lanes(self.pos[:0], self.base, False)

    def without(self, flags: np.ndarray) -> Lanes:
        """These lanes less those whose chunk-wide flag is set."""
        return self.where(~flags[self.pos])


def npdtype(t) -> np.dtype:
    """The NumPy dtype holding values of Tack dtype `t` (bool has none of its own)."""
    return t.np if t.np is not None else np.dtype(np.bool_)


def spread(value, count: int, dtype) -> np.ndarray:
    """`value` (an array over the active lanes or one scalar) as an array over them."""
    if np.ndim(value) == 0:
        return np.full(count, value, dtype)
    return value
