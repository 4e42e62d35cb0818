"""The differences from NumPy that docs/language.md ("Array access") and docs/guide/arrays.md
warn about hold as written: a single index into a 2-D array is flat, a float stored into an
integer array truncates and saturates, and an index past an array's end is reported by debug
mode (per dimension) and by the simulator (the flat position only)."""
from __future__ import annotations

import numpy as np
import pytest
import tack
from tack.errors import TackIndexError


@tack.kernel
def _flat(a, out):
    for i in range(out.shape[0]):
        out[i] = a[i]


@tack.kernel
def _store(x, out):
    for i in range(x.shape[0]):
        out[i] = x[i]


@tack.kernel
def _right(a, out):
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            out[i, j] = a[i, j + 1]


@pytest.fixture
def device():
    def use(name, debug=False):
        tack.set_default_device(name)
        tack.set_debug(debug)
    return use


def test_one_index_into_a_2d_array_is_flat(engine):
    a = np.arange(15, dtype=np.float32).reshape(3, 5)
    out = tack.zeros(7)
    _flat(tack.array(a), out)
    np.testing.assert_array_equal(out.numpy(), a.reshape(-1)[:7])  # a[5] is a[1, 0]


def test_a_float_stored_into_an_integer_array_truncates_and_saturates(engine):
    x = tack.array(np.array([3.7, -3.7, 300.0, -1.0, np.nan, 3e9], np.float32))
    u8, i32 = tack.zeros(6, dtype=tack.u8), tack.zeros(6, dtype=tack.i32)
    _store(x, u8)
    _store(x, i32)
    assert u8.numpy().tolist() == [3, 0, 255, 0, 0, 255]
    assert i32.numpy().tolist() == [3, -3, 300, -1, 0, 2**31 - 1]


def test_debug_mode_reports_an_array_shorter_than_the_loop(engine):
    tack.set_debug(True)
    out = tack.zeros(7)
    with pytest.raises(TackIndexError, match="outside"):
        _store(tack.array(np.arange(11, dtype=np.float32)), out)
    assert out.numpy().tolist() == list(range(7))  # the in-bounds stores were done


def test_the_simulator_reports_it_without_debug_mode(device):
    device("sim")
    out = tack.zeros(7)
    with pytest.raises(TackIndexError, match="outside"):
        _store(tack.array(np.arange(11, dtype=np.float32)), out)
    assert out.numpy().tolist() == list(range(7))


def test_the_simulator_checks_the_flat_position_only(device):
    # A row overrun inside the array reads the next row's first element, unreported; only the
    # last row's overrun leaves the array. Debug mode reports the first overrun per dimension.
    a = tack.array(np.arange(12, dtype=np.float32).reshape(3, 4))
    device("sim")
    with pytest.raises(TackIndexError, match="index 12 is outside"):
        _right(a, tack.zeros((3, 4)))
    device("sim", debug=True)
    with pytest.raises(TackIndexError, match="index 4 of dimension 1"):
        _right(a, tack.zeros((3, 4)))
