"""The tolerance table: how far a subject's result may be from the float64 reference.

An element passes when `|actual - expected| <= atol + rtol * |expected|`. The base row comes from
the output dtype; an op class that compounds rounding (reductions, transcendentals, chains of
operations) doubles both, and so does every op named in `fused_ops`, because error grows through
each stage of a fused kernel. Integers are exact whatever the class. `tolerance_override`
replaces the whole computation.
"""
from __future__ import annotations

import numpy as np

from ...errors import TackValueError

# dtype -> (atol, rtol)
TABLE: dict[str, tuple[float, float]] = {
    "float16": (1e-2, 1e-2),
    "bfloat16": (1e-2, 1e-2),  # 8 significant bits; its inputs are exact, its sums f32
    "tfloat32": (1e-3, 1e-3),  # float32 data multiplied on tensor cores (10-bit products)
    "float32": (1e-3, 1e-3),
    "float64": (1e-9, 1e-9),
}
RELAXED = ("reduction", "transcendental", "chained")  # op classes with twice the budget
OP_CLASSES = (None, "elementwise") + RELAXED


def tolerance(dtype, op_class=None, fused_ops=(), override=None) -> tuple[float, float]:
    """(atol, rtol) for an output of `dtype`."""
    if op_class not in OP_CLASSES:
        raise TackValueError(f"Unknown op_class {op_class!r}: use one of "
                             f"{', '.join(c for c in OP_CLASSES if c)} (or None)")
    if override is not None:
        try:
            atol, rtol = (float(v) for v in override)
        except (TypeError, ValueError):
            raise TackValueError("tolerance_override is a pair (atol, rtol) of numbers, got "
                                 f"{override!r}") from None
        return atol, rtol
    if dtype == "tfloat32":  # a computation precision, not a NumPy dtype
        name = dtype
    else:
        dtype = np.dtype(dtype)
        if dtype.kind in "iub":
            return 0.0, 0.0
        name = dtype.name
    if name not in TABLE:
        raise TackValueError(f"No tolerance for dtype {name}; pass tolerance_override="
                             "(atol, rtol)")
    atol, rtol = TABLE[name]
    factor = (2.0 if op_class in RELAXED else 1.0) * 2.0 ** len(tuple(fused_ops))
    return atol * factor, rtol * factor
