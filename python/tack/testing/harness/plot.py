"""Timing history per subject, drawn with matplotlib (the optional `plot` extra).

One panel per subject; one line per canonical case, the subject's median time per call over the
runs that were timed. A run whose measurement was unstable (tier C) is drawn as a hollow marker,
so a jump there is not read as a regression.
"""
from __future__ import annotations

from datetime import datetime

from ...errors import TackRuntimeError, TackValueError


def _series(recs) -> dict[str, dict[str, list]]:
    """subject -> canonical case -> [(when, seconds per call, stable)]."""
    out: dict[str, dict[str, list]] = {}
    for r in recs:
        if r.comparison is None:
            continue
        stable = r.comparison.is_performance_valid
        when = datetime.fromisoformat(r.created)
        for t in r.comparison.timings:
            out.setdefault(r.name, {}).setdefault(t.label, []).append(
                (when, t.subject.median_s, stable))
    return out


def history(recs, path) -> None:
    """Write a PNG (or any format matplotlib infers from `path`) of the timing history."""
    try:  # optional dependency, imported only when a plot is asked for
        from matplotlib.figure import Figure
    except ImportError:
        raise TackRuntimeError("--plot needs matplotlib: pip install '.[plot]' in a clone of "
                               "Tack") \
            from None
    series = _series(recs)
    if not series:
        raise TackValueError("No timed records to plot: only runs that passed are timed")
    fig = Figure(figsize=(8, 3 * len(series)), layout="constrained")
    axes = fig.subplots(len(series), 1, squeeze=False)[:, 0]
    for ax, (name, cases) in zip(axes, sorted(series.items())):
        for label, points in sorted(cases.items()):
            points.sort()
            xs, ys = [p[0] for p in points], [p[1] * 1e3 for p in points]
            (drawn,) = ax.plot(xs, ys, "-", label=label)
            for x, y, (_, _, stable) in zip(xs, ys, points):
                ax.plot([x], [y], "o", color=drawn.get_color(),
                        fillstyle="full" if stable else "none")
        ax.set_title(name)
        ax.set_ylabel("ms per call")
        ax.set_yscale("log")
        ax.legend(fontsize="small")
    axes[-1].set_xlabel("run (hollow: unstable, tier C)")
    try:
        fig.savefig(path)
    except (OSError, ValueError) as exc:  # no such folder, no permission, an unknown format
        raise TackValueError(f"Cannot write the plot to {path}: {exc}") from None
