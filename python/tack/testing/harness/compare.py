"""Elementwise comparison of one output with the float64 (or int64) reference.

An element passes when `|actual - expected| <= atol + rtol * |expected|`, when both are NaN, or
when the actual value equals the reference rounded to the output dtype (an overflow to infinity
on both sides). A NaN on one side only always fails, so an output element a kernel never wrote
(the harness fills kernel outputs with NaN) cannot pass. Integers compare exactly after the
reference is wrapped to the output's width, the way the subject's arithmetic wraps.
"""
from __future__ import annotations

import numpy as np

from ...dtypes import is_bfloat16
from .records import Mismatch, json_number

EXAMPLES = 3  # failing elements quoted in a mismatch


def _bad_integers(actual: np.ndarray, expected: np.ndarray, dtype, atol: float,
                  rtol: float) -> np.ndarray:
    want = expected.astype(dtype)  # int64 arithmetic wrapped to the output's width
    if atol == 0 and rtol == 0:
        return ~(actual == want)
    a, e = actual.astype(np.float64), want.astype(np.float64)
    return ~(np.abs(a - e) <= atol + rtol * np.abs(e))


def _bad_floats(actual: np.ndarray, expected: np.ndarray, dtype, atol: float,
                rtol: float) -> np.ndarray:
    a, e = actual.astype(np.float64), expected.astype(np.float64)
    with np.errstate(all="ignore"):
        rounded = e.astype(dtype).astype(np.float64)  # what the output dtype can hold
        close = np.abs(a - e) <= atol + rtol * np.abs(e)
        return ~(close | (a == rounded) | (np.isnan(a) & np.isnan(e)))


def _unwritten(actual: np.ndarray, expected: np.ndarray, bad: np.ndarray, fill) -> int:
    if fill is None:
        return 0
    if isinstance(fill, float):  # NaN
        return int((bad & np.isnan(actual.astype(np.float64))).sum())
    return int((bad & (actual == fill)).sum())


def _describe(output: int, bad: np.ndarray, actual: np.ndarray, expected: np.ndarray,
              unwritten: int) -> tuple[list[dict], float | str | None, str]:
    where = np.argwhere(bad)
    examples = [{"index": [int(i) for i in idx], "actual": json_number(actual[tuple(idx)]),
                 "expected": json_number(expected[tuple(idx)])} for idx in where[:EXAMPLES]]
    with np.errstate(all="ignore"):
        err = np.abs(actual[bad].astype(np.float64) - expected[bad].astype(np.float64))
    finite = err[np.isfinite(err)]
    worst = json_number(finite.max()) if finite.size else None
    first = examples[0]
    msg = (f"output {output}: {int(bad.sum())} of {bad.size} elements differ; first at "
           f"{tuple(first['index'])}: got {first['actual']}, expected {first['expected']}")
    if worst is not None:
        msg += f"; max |error| {worst:.3g}"
    if unwritten:
        msg += f"; {unwritten} never written (still holding the fill value)"
    return examples, worst, msg


def compare(actual, expected: np.ndarray, dtype, atol: float, rtol: float, output: int,
            fill=None) -> Mismatch | None:
    """None when `actual` matches `expected`, else what is wrong with it.

    `fill` is the value outputs held before a kernel ran (None for callables)."""
    actual = np.asarray(actual)
    dtype = np.dtype(dtype)
    if actual.shape != expected.shape:
        return Mismatch(output, expected.size, expected.size, 0, None, [],
                        f"output {output} has shape {actual.shape}; the signature gives "
                        f"{expected.shape}")
    if actual.dtype.kind not in "biuf" and not is_bfloat16(actual.dtype):
        return Mismatch(output, expected.size, expected.size, 0, None, [],
                        f"output {output} holds {actual.dtype}, not numbers")
    if dtype.kind in "iu":
        bad = _bad_integers(actual, expected, dtype, atol, rtol)
        expected = expected.astype(dtype)  # quote the value the subject should have given
    else:
        bad = _bad_floats(actual, expected, dtype, atol, rtol)
    if not bad.any():
        return None
    unwritten = _unwritten(actual, expected, bad, fill)
    examples, worst, msg = _describe(output, bad, actual, expected, unwritten)
    return Mismatch(output, int(bad.sum()), int(bad.size), unwritten, worst, examples, msg)
