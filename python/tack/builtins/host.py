"""What builtins are on the host: the math functions as host functions, so kernels may name them
by import (`from tack import sqrt`, `tack.math.exp`) and linters see defined names, and the `math`
constants a kernel may read. Called from Python a host function computes with its entry's NumPy
function, element by element; inside a kernel it is its builtin (registry.py makes it one of the
entry's aliases, resolved by identity).
"""
from __future__ import annotations

import math

from .entry import Builtin

MATH_CONSTANTS = {"pi": math.pi, "e": math.e, "tau": math.tau, "inf": math.inf, "nan": math.nan}


def host_function(b: Builtin):
    """`tack.<name>` for the math function `b`: its NumPy function, checking the arity."""
    lo, hi = b.arity
    compute = b.numpy

    def fn(*args):
        if not lo <= len(args) <= hi:
            raise TypeError(f"{b.name}() takes {lo} argument{'s' if lo > 1 else ''}, "
                            f"got {len(args)}")
        return compute(*args)

    fn.__name__ = fn.__qualname__ = b.name
    fn.__module__ = "tack"
    fn.__doc__ = (f"{b.call}: {b.doc}. A kernel builtin (see docs/builtins.md); called from "
                  "Python it computes with NumPy.")
    return fn
