"""Where `ptxas` is, for the tests that assemble the PTX Tack emits without a GPU: the
cuda-pathfinder's NVIDIA binary utilities, else the PATH; None when neither has it."""
from __future__ import annotations

import shutil


def find_ptxas() -> str | None:
    try:
        from cuda import pathfinder

        found = pathfinder.find_nvidia_binary_utility("ptxas")
        if found:
            return found
    except (ImportError, AttributeError):  # no cuda-pathfinder, or one without this finder
        pass
    return shutil.which("ptxas")


PTXAS = find_ptxas()
