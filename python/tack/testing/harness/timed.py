"""The timing phase: the subject beside its baseline on every CANONICAL shape, on one device.

It runs only after every correctness case passed: a wrong kernel's time means nothing, and
someone would quote it. The default baseline is the reference itself on NumPy arrays of the case
dtype (not float64), which is what a kernel usually has to beat on the CPU.
"""
from __future__ import annotations

from ...devices import default_device
from . import clocks, inputs, subjects, tiers, timing
from .records import Comparison, Timing


def _baseline(run):
    if run.baseline is None:
        return run.reference, "reference on NumPy"
    return run.baseline, subjects.name_of(run.baseline)


def compare_timing(run, bar) -> Comparison:
    """Measure subject and baseline on each canonical case of each dtype."""
    device = default_device()
    watch = clocks.watch(device)
    watch.sample()
    base, described = _baseline(run)
    cases = tiers.cases(run.sig, tiers.Tier.CANONICAL)
    bar.phase("timing", len(cases) * len(run.dtypes))
    timings = []
    for dtype in run.dtypes:
        for case in cases:
            data = inputs.make(run.sig, case, dtype, run.seed)
            _, out_shapes = run.sig.shapes(case.dims)
            mine = timing.measure(subjects.prepared(run.subject, data, out_shapes, dtype),
                                  between=watch.sample)
            theirs = timing.measure(subjects.prepared(base, data, out_shapes, dtype),
                                    between=watch.sample)
            speedup = theirs.median_s / max(mine.median_s, 1e-12)
            label = f"{case.label}-{dtype}"
            timings.append(Timing(label, mine, theirs, speedup))
            bar.step(label, f"{speedup:.2f}x")
    tier = "C" if watch.moved() else timing.worst(
        [t.subject.tier for t in timings] + [t.baseline.tier for t in timings])
    return Comparison(tier, tier != "C", timing.geometric_mean(t.speedup for t in timings),
                      described, timings, watch.as_dict())
