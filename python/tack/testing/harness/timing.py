"""Timing one callable: warm-up, repeated blocks ended by `tack.sync()`, median and spread.

Each block runs the callable `calls` times back to back and then waits for the device, so a GPU's
queued launches are inside the block they belong to. The number of calls per block is chosen from
a warm call so that a block lasts at least `min_block_s`. The spread is the interquartile range
of the blocks' per-call times over their median; the stability tier follows from it:
A under 5 %, B under 15 %, C otherwise. GPU clocks that moved during the measurement make the
comparison tier C whatever the spread (see `clocks`).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

import tack

from .records import Measurement

TIER_LIMITS = (("A", 0.05), ("B", 0.15))  # spread below the limit -> that tier; else C


@dataclass(frozen=True)
class Plan:
    warmup: int = 3  # calls before anything is timed (the first one may compile)
    blocks: int = 7
    min_block_s: float = 0.02
    max_calls: int = 10_000


PLAN = Plan()


def tier_of(spread: float) -> str:
    for name, limit in TIER_LIMITS:
        if spread < limit:
            return name
    return "C"


def worst(tiers) -> str:
    return max(tiers, default="A")  # "A" < "B" < "C"


def _block(fn, calls: int) -> float:
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    tack.sync()
    return (time.perf_counter() - t0) / calls


def _calls_per_block(fn, plan: Plan) -> int:
    """Double the calls until one block lasts `min_block_s` (timeit's autorange, in short)."""
    calls = 1
    while calls < plan.max_calls:
        per_call = _block(fn, calls)
        if per_call * calls >= plan.min_block_s:
            break
        want = math.ceil(plan.min_block_s / max(per_call, 1e-9))
        calls = min(plan.max_calls, max(2 * calls, want if calls >= 4 else 2 * calls))
    return calls


def measure(fn, plan: Plan | None = None, between=None) -> Measurement:
    """Time `fn()` under `plan` (default: `PLAN`, read at the call); `between()`, if given,
    runs after every block (the clock sampler)."""
    plan = plan or PLAN
    for _ in range(plan.warmup):
        fn()
    tack.sync()
    calls = _calls_per_block(fn, plan)
    blocks = []
    for _ in range(plan.blocks):
        blocks.append(_block(fn, calls))
        if between is not None:
            between()
    median = float(np.median(blocks))
    q1, q3 = np.percentile(blocks, [25, 75])
    spread = float((q3 - q1) / median) if median > 0 else 0.0
    return Measurement(median, spread, calls, [float(b) for b in blocks], tier_of(spread))


def geometric_mean(values) -> float | None:
    values = [v for v in values if v > 0 and math.isfinite(v)]
    if not values:
        return None
    return float(math.exp(sum(math.log(v) for v in values) / len(values)))
