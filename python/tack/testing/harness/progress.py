"""A progress bar for harness runs: rich's when it is installed, plain lines otherwise.

`rich` is optional (the harness extra, `'.[harness]'`); without it each case prints one line,
`[ 3/16] 257-contiguous-float32 ok`, which also reads well in a CI log.
"""
from __future__ import annotations

import sys


def _rich_progress(stream):
    try:  # optional dependency: the plain-text bar below is the fallback
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
    except ImportError:
        return None
    console = Console(file=stream)
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TextColumn("{task.fields[label]}"), console=console, transient=False)


class Bar:
    """Phases ("correctness", "timing") of a known number of steps each."""

    def __init__(self, enabled, stream=None):
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else bool(enabled)
        self.rich = _rich_progress(self.stream) if self.enabled else None
        self.task, self.done, self.total, self.phase_name = None, 0, 0, ""
        if self.rich is not None:
            self.rich.start()

    def phase(self, name: str, total: int) -> None:
        self.phase_name, self.total, self.done = name, total, 0
        if self.rich is not None:
            self.task = self.rich.add_task(name, total=total, label="")

    def step(self, label: str, status: str) -> None:
        self.done += 1
        if self.rich is not None:
            self.rich.update(self.task, advance=1, label=f"{label} {status}")
        elif self.enabled:
            width = len(str(self.total))
            print(f"{self.phase_name} [{self.done:>{width}}/{self.total}] {label} {status}",
                  file=self.stream, flush=True)

    def close(self) -> None:
        if self.rich is not None:
            self.rich.stop()

    def say(self, text: str) -> None:
        """A line after the bar (the run's verdict), when the bar is shown."""
        if self.enabled:
            print(text, file=self.stream, flush=True)
