"""`print` on the simulator: the CPU engine's printf text, per lane, emitted in launch order.

The line format (docs/language.md, "print"; render/llvm/printf.py writes the same as a C format): the
pieces joined by one space, a newline; integers in decimal, f32 with 7 and f64 with 16
significant digits (%g), bools as 0 / 1. glibc's printf writes a NaN with its sign bit as -nan.
"""
from __future__ import annotations

import math
import sys

import numpy as np


def _value_format(dtype):
    if dtype.is_float:
        spec = "%.7g" if dtype.bits == 32 else "%.16g"

        def fmt(x):
            x = float(x)
            if math.isnan(x):
                return "-nan" if math.copysign(1.0, x) < 0 else "nan"
            return spec % x
        return fmt
    return lambda x: str(int(x))


def format_lines(pieces, exprs, values) -> list[str]:
    """One line per active lane: `pieces` (str, or None for the next value) and per-lane values."""
    fmts = [_value_format(e.dtype) for e in exprs]
    count = len(values[0]) if values else None
    if count is None:
        line = " ".join(pieces) + "\n"
        return [line]
    columns = [[f(x) for x in v] for f, v in zip(fmts, values)]
    lines = []
    for k in range(count):
        it = iter(col[k] for col in columns)
        lines.append(" ".join(p if p is not None else next(it) for p in pieces) + "\n")
    return lines


def emit(prints: list) -> None:
    """Write the lines of one chunk, each lane's lines in the order it printed them."""
    if not prints:
        return
    lanes, lines = [], []
    for t, text in prints:
        if len(text) == 1 and len(t) > 1:
            text = text * len(t)
        lanes.append(np.broadcast_to(t, (len(text),)))
        lines.extend(text)
    order = np.argsort(np.concatenate(lanes), kind="stable")
    sys.stdout.write("".join(lines[k] for k in order))
    sys.stdout.flush()
