"""Where a run happened: engine, device, versions and, when known, the commits involved."""
from __future__ import annotations

import functools
import os
import platform
import subprocess
from importlib import metadata
from pathlib import Path

import numpy as np

import tack


def _version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


@functools.lru_cache(maxsize=16)
def commit(folder: str | None) -> str | None:
    """The HEAD commit of the git checkout holding `folder`, or None outside one."""
    if folder is None:
        return None
    here = Path(folder).resolve()
    if not any((p / ".git").exists() for p in (here, *here.parents)):
        return None  # not a checkout: do not start git at all
    try:
        out = subprocess.run(["git", "-C", str(here), "rev-parse", "HEAD"], capture_output=True,
                             text=True, timeout=10, check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def environment(device, subject_file: str | None = None) -> dict:
    """A JSON-safe description of the machine and software a run used."""
    engine = device.engine
    return {
        "engine": device.engine_name,
        "device": repr(device),
        "arch": device.arch,
        "target": getattr(engine, "arch", None),  # e.g. sm_90 on CUDA
        "threads": getattr(engine, "num_threads", None),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "tack": tack.__version__,
        "llvmlite": _version("llvmlite"),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
        "tack_commit": commit(str(Path(tack.__file__).parent)),
        "subject_commit": commit(str(Path(subject_file).parent)) if subject_file else None,
    }
