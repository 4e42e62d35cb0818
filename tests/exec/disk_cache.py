"""The disk-cache tests' helpers (tests/exec/test_disk_cache.py, test_cache_faults.py; their `cdir`
fixture is tests/exec/conftest.py's): the entries of a cache directory, and a fresh kernel run
whose engine.compile goes to the cache."""
from __future__ import annotations

import os

import numpy as np
import tack

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PYPATH = os.path.join(ROOT, "python")


def entries(d, kind="cpu"):
    sub = os.path.join(d, kind)
    return sorted(os.path.join(sub, f) for f in os.listdir(sub) if f.endswith(".bin")) \
        if os.path.isdir(sub) else []


def _fresh_transform():
    @tack.kernel
    def transform(x, out):
        for i in range(x.shape[0]):
            out[i] = sqrt(abs(x[i]))  # noqa: F821 (a kernel builtin)

    return transform


def run_transform():
    host = np.linspace(-3, 3, 32).astype(np.float32)
    x, out = tack.array(host), tack.empty((32,))
    _fresh_transform()(x, out)  # a new Kernel object: its engine.compile runs again
    np.testing.assert_allclose(out.numpy(), np.sqrt(np.abs(host)), rtol=2e-6)
