"""Words for records: the one-line verdict and the tables the command line prints.

A speedup is always shown with its stability tier beside it; a tier-C one (the machine was noisy
or the GPU clocks moved) is marked UNSTABLE and "not a claim", so it is read, not quoted.
"""
from __future__ import annotations

import sys


def timing_text(comparison) -> str:
    if comparison is None:
        return "not timed"
    if comparison.speedup is None:
        return f"tier {comparison.tier}, no speedup"
    ratio = f"{comparison.speedup:.2f}x vs {comparison.baseline}"
    if not comparison.is_performance_valid:
        return f"{ratio} (UNSTABLE, tier {comparison.tier}: not a claim)"
    return f"{ratio} (tier {comparison.tier})"


def line(record) -> str:
    """`FAIL add: 11/16 shapes passed; minimal failing case: 1025-contiguous-float32 seed=0;
    ...`: the count the table's "shapes passed" column shows."""
    passed = record.shapes_total - record.shapes_failed
    if not record.passed:
        m = record.minimal_case
        return (f"FAIL {record.name}: {passed}/{record.shapes_total} shapes passed; "
                f"minimal failing case: {m.label} seed={m.seed}; reproduce with "
                f"shape={m.label} seed={m.seed}")
    return (f"PASS {record.name}: {passed}/{record.shapes_total} shapes passed; "
            f"{timing_text(record.comparison)}")


def row(record) -> list[str]:
    """Subject, result, shapes, minimal failing case, timing."""
    m = record.minimal_case
    return [record.name, "PASS" if record.passed else "FAIL",
            f"{record.shapes_total - record.shapes_failed}/{record.shapes_total}",
            f"{m.label} seed={m.seed}" if m else "-", timing_text(record.comparison)]


HEADERS = ["subject", "result", "shapes passed", "minimal failing case", "timing"]


def table(headers: list[str], rows: list[list[str]], stream=None, title: str | None = None):
    """Print a table: rich's when it is installed, aligned plain text otherwise."""
    stream = stream or sys.stdout
    try:  # optional dependency: plain columns below are the fallback
        from rich.console import Console
        from rich.table import Table
    except ImportError:
        Console = None
    if Console is not None:
        from rich.text import Text

        t = Table(*headers, title=title)
        verdicts = {"PASS": "bold green", "FAIL": "bold red"}
        for r in rows:
            t.add_row(*(Text(str(x), style=verdicts[x]) if x in verdicts else
                        Text(str(x), style="yellow") if "UNSTABLE" in str(x) else str(x)
                        for x in r))
        wide = None if stream.isatty() else 160  # a log or a pipe: do not wrap at 80
        Console(file=stream, width=wide).print(t)
        return
    widths = [max(len(str(x)) for x in col) for col in zip(headers, *rows)]
    if title:
        print(title, file=stream)
    for r in [headers, ["-" * w for w in widths], *rows]:
        print("  ".join(str(x).ljust(w) for x, w in zip(r, widths)).rstrip(), file=stream)
