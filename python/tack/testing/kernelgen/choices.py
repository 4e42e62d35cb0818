"""The source of randomness: `RandomChoices(seed)` for fuzzing, `HypothesisChoices(data)` in tests.

Both offer `choose(seq)`, `integer(lo, hi)` and `flip(p)`; the generator draws only through them,
so the same seed gives the same kernel, and hypothesis shrinks a failing kernel toward the first
options (the simpler ones).
"""
from __future__ import annotations

import random


class RandomChoices:
    def __init__(self, seed: int):
        self.rng = random.Random(seed)

    def choose(self, seq):
        return seq[self.rng.randrange(len(seq))]

    def integer(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)

    def flip(self, p: float) -> bool:
        return self.rng.random() < p


class HypothesisChoices:
    """Draws through a hypothesis `data` object: shrinking moves toward the first options."""

    def __init__(self, data):
        from hypothesis import strategies as st  # here: hypothesis is only a test dependency

        self.data, self.st = data, st

    def choose(self, seq):
        return self.data.draw(self.st.sampled_from(seq))

    def integer(self, lo: int, hi: int) -> int:
        return self.data.draw(self.st.integers(lo, hi))

    def flip(self, p: float) -> bool:
        # integers shrink to 0 → False: the simpler kernel
        return self.data.draw(self.st.integers(0, 999)) >= 1000 - int(p * 1000)
