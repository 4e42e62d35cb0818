"""How many threads a CPU device may use: checked where a thread count comes in (the device
option `num_threads`, TACK_CPU_THREADS, CPUEngine), without importing the engine itself.

The limit is 1,024, or the machine's CPU count where that is larger (docs/language.md,
"Kernels and calls"). Far more threads than cores only adds cost: every parallel launch wakes
every worker, and 8,000 workers made a first parallel launch take 81 s on a 2-core machine.
"""
from __future__ import annotations

import os

from ...errors import TackValueError

MAX_THREADS = max(1024, os.cpu_count() or 1)
NEVER = 1 << 62  # the parallel threshold n_par meaning "always serial"


def check_num_threads(n: int, what: str = "num_threads") -> int:
    """`n` if it is at most MAX_THREADS, else ValueError naming the limit."""
    if n > MAX_THREADS:
        raise TackValueError(f"{what} must be at most {MAX_THREADS} (the most threads a CPU "
                             f"device may use here), got {n}")
    return n
