"""In debug mode, an out-of-bounds access inside a `@tack.func` names the
device function and its line (docs/debugging.md, "Debug mode")."""
import os

import numpy as np
import pytest
import tack


@tack.func
def get(a, j):
    return a[j]


@tack.kernel
def through_func(a, out):
    for i in range(out.shape[0]):
        out[i] = get(a, i + 5)


@tack.kernel
def direct(a, out):
    for i in range(out.shape[0]):
        out[i] = a[i + 5]


@pytest.fixture
def debug():
    tack.set_debug(True)  # the root conftest's `_restore_defaults` turns it off again


def _line(fn, text):
    import inspect

    lines, first = inspect.getsourcelines(fn.fn if hasattr(fn, "fn") else fn)
    return first + next(k for k, ln in enumerate(lines) if text in ln)


def test_debug_index_error_names_device_function(engine, debug):
    a, out = tack.zeros(4, tack.f32), tack.zeros(4, tack.f32)
    with pytest.raises(IndexError) as e:
        through_func(a, out)
    line = _line(get, "return a[j]")
    where = os.path.relpath(__file__)
    assert str(e.value).startswith(
        f"Kernel 'through_func': a[j] in device function 'get' at {where}:{line}, column 12: "
        "index 5 of dimension 0 is outside [0, 4). The access was skipped (a load gives 0).")


def test_debug_index_error_in_kernel_names_no_function(debug):
    a, out = tack.array(np.arange(4, dtype=np.float32)), tack.zeros(4, tack.f32)
    with pytest.raises(IndexError) as e:
        direct(a, out)
    assert str(e.value).startswith("Kernel 'direct': a[i + 5] at ")
    assert "device function" not in str(e.value)
