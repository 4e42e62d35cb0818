"""Whether a CUDA GPU is usable here, decided once; GPU test modules skip cleanly without one.

    pytestmark = gpu.MARKS    # marker `cuda` + skip with the reason when no GPU / cuda-bindings
"""
from __future__ import annotations

import functools

import pytest


@functools.cache
def unavailable() -> str | None:
    """None when a CUDA engine starts on device 0, else why not."""
    try:
        import cuda.bindings  # noqa: F401
    except ImportError as exc:
        return f"cuda-bindings is not installed ({exc})"
    try:
        from tack.runtime.cuda import CUDAEngine

        CUDAEngine(0)
    except Exception as exc:  # noqa: BLE001 - any failure to start (no driver, no device): skip
        return f"no usable CUDA GPU: {exc}"
    return None


MARKS = [pytest.mark.cuda, pytest.mark.skipif(unavailable() is not None,
                                              reason=str(unavailable()))]


def optional(name: str):
    """Import a peer library (cupy, torch) or skip the test."""
    return pytest.importorskip(name)
