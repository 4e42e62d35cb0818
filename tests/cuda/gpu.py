"""Whether a CUDA GPU is usable here, decided once; GPU test modules skip cleanly without one.

    pytestmark = gpu.MARKS    # marker `cuda` + skip with the reason when no GPU / cuda-bindings
    v = gpu.loaded_variant(kernel, *args)    # the CUDAKernel a call with these arguments loads
"""
from __future__ import annotations

import pytest

from tests.engines import cuda_marks, cuda_unavailable

unavailable = cuda_unavailable
MARKS = cuda_marks()


def optional(name: str):
    """Import a peer library (cupy, torch) or skip the test."""
    return pytest.importorskip(name)


def loaded_variant(kernel, *args):
    """The compiled variant (a CUDAKernel on the GPU) that a call of `kernel` with `args` loads
    on the current device, from a fresh copy of the kernel. The kernel's own table of
    specializations holds whatever earlier tests in this process called it with (other argument
    types, another device, a library kernel's other callers), so reading it would depend on
    which tests ran before; the copy holds this call's alone."""
    import tack

    fresh = tack.kernel(**kernel.options)(kernel.fn)
    fresh(*args)
    tack.sync()
    (plan,) = fresh._plans.values()
    (variant,) = plan.variants.values()
    return variant.launchable
