"""tack.algorithms.tuning: the settings a `with` block gives the algorithms — checked before any
launch, nested and restored, private to the thread that enters them — and that each one reaches
the path it names (the results of each path are checked by test_warp_steps.py and
test_workgroup_paths.py)."""
import threading

import numpy as np
import pytest
import tack
from tack import algorithms as A
from tack.algorithms import scans
from tack.algorithms.settings import Tuning, current
from tack.lib.reductions import group_reduce
from tack.lib.warp_reductions import warp_group_reduce


def test_defaults_are_the_documented_ones():
    assert current() == Tuning(warps=None, scan=None, window=32, sub=2, tickets=True, lean=True,
                               patience=4096)


@pytest.mark.parametrize("kw,error", [
    ({"scan": "lookback"}, ValueError), ({"scan": 1}, ValueError),
    ({"window": 0}, ValueError), ({"window": 257}, ValueError), ({"window": 2.0}, TypeError),
    ({"window": True}, TypeError), ({"sub": 3}, ValueError), ({"sub": "2"}, TypeError),
    ({"patience": 0}, ValueError), ({"tickets": "yes"}, TypeError), ({"lean": 2}, TypeError),
    ({"warps": "shared"}, TypeError),
])
def test_wrong_settings_are_refused_when_the_block_is_made(kw, error):
    with pytest.raises(error, match="tack.algorithms.tuning"):
        A.tuning(**kw)
    assert current() == Tuning()


def test_blocks_nest_and_restore_what_they_found():
    with A.tuning(scan="two_pass", window=4) as outer:
        assert outer == Tuning(scan="two_pass", window=4)
        with A.tuning(window=8, lean=0) as inner:
            assert inner == Tuning(scan="two_pass", window=8, lean=False)
            assert current() is inner
        assert current() == outer
    assert current() == Tuning()


def test_a_block_is_restored_when_its_code_raises():
    with pytest.raises(RuntimeError), A.tuning(warps=False):
        raise RuntimeError("inside")
    assert current() == Tuning()


def test_a_block_holds_in_its_own_thread_only():
    seen = {}
    entered, done = threading.Event(), threading.Event()
    one = A.tuning(sub=4)  # one object entered by two threads at once

    def other():
        with one:
            entered.set()
            done.wait(5)
            seen["other"] = current().sub
        seen["other after"] = current().sub

    t = threading.Thread(target=other)
    t.start()
    entered.wait(5)
    seen["main before"] = current().sub
    with one:
        done.set()
        t.join(5)
        seen["main"] = current().sub
    assert seen == {"other": 4, "other after": 2, "main before": 2, "main": 4}
    assert current() == Tuning()


def test_each_setting_reaches_its_path():
    sim, cuda = tack.device("sim"), tack.device("cuda")
    with tack.device("sim"):
        a = tack.zeros(4)
    assert scans.steps(a)[0] is warp_group_reduce  # the simulator's warps exchange registers
    with A.tuning(warps=False):
        assert scans.steps(a)[0] is group_reduce
    assert not scans._look_back(sim, tack.f32)
    with A.tuning(scan="look_back"):
        assert scans._look_back(sim, tack.f32)
    assert scans._look_back(cuda, tack.f32)
    with A.tuning(scan="two_pass"):
        assert not scans._look_back(cuda, tack.f32)


def test_float_bits_do_not_depend_on_the_free_settings():
    """tickets, lean and patience change how the look-back runs, never its additions: the same
    bits; window changes the grouping (documented), yet integers stay exact."""
    n = 3 * 8192 * 4 + 11
    x = np.random.default_rng(5).standard_normal(n).astype(np.float32)
    got = []
    with tack.device("sim"), A.tuning(scan="look_back", window=2, patience=8):
        for kw in ({}, {"tickets": False, "lean": False, "patience": 1}):
            with A.tuning(**kw):
                d = tack.zeros(n, tack.f32)
                A.inclusive_scan(tack.array(x), d)
                got.append(d.numpy().view(np.uint32))
    np.testing.assert_array_equal(got[0], got[1])
