"""Testing helpers: an independent reference (`oracle`), awkward shapes (`shapes`) and a random
kernel generator (`kernelgen`) for differential tests of every engine.

`run_kernel(kernel, *args)` runs a kernel with NumPy arrays turned into tack arrays and returns the
final contents of every array argument, so a test can compare them with `oracle.run_reference`.
"""
from __future__ import annotations

import numpy as np

import tack

from .harness import Tier, test  # noqa: F401 - tack.testing.test: the testing harness

__all__ = ["run_kernel"]


def run_kernel(kernel, *args) -> list:
    """Call `kernel` (NumPy arrays become tack arrays); return every array argument's contents."""
    targs = [tack.array(a) if isinstance(a, np.ndarray) else a for a in args]
    kernel(*targs)
    return [a.numpy() for a in targs if isinstance(a, tack.Array)]
