"""tack.check on warp collectives: a shuffle, vote or reduction that only part of a warp
executes (a lane-dependent branch, an early exit from a loop, a conditional expression) is a
barrier-kind finding naming the collective, the warp, the lanes and where they parted; a
partial workgroup is reported before the run; a clean warp kernel has no finding."""
import inspect

import numpy as np
import tack


@tack.kernel
def half_warp_shuffle(x, out, n):
    for i in range(n):
        v = x[i]
        if tack.lane_id() < 16:
            v = tack.shfl_down(x[i], 16)  # reads lanes 16..31, which are not here
        out[i] = v


@tack.kernel
def vote_after_break(x, out, n):
    for i in range(n):
        acc = 0
        for k in range(4):
            if x[i] > 40.0 and k == 1:
                break
            acc += tack.i32(tack.warp_any(x[i] > 2.0))
        out[i] = tack.f32(acc)


@tack.kernel
def clean(x, out, n):
    for i in range(n):
        out[i] = tack.warp_sum(x[i]) + tack.shfl_xor(x[i], 3)


def args(n=512):
    return tack.array(np.arange(n, dtype=np.float32)), tack.zeros(n), n


def _line(kernel, text):
    src, first = inspect.getsourcelines(kernel.fn)
    return next(first + k for k, line in enumerate(src) if text in line)


def test_a_shuffle_in_a_lane_dependent_branch():
    r = tack.check(half_warp_shuffle, *args())
    (f,) = r.of_kind("barrier")
    assert f.severity == "error"
    assert "warp collective tack.shfl_down" in f.message
    assert "16 of the 32 lanes of warp 0 of workgroup 0 (lanes 16..31 did not" in f.message
    assert f.count == 2  # every warp of both workgroups; reported once, for the first
    assert [loc[1] for loc in f.locations] == [_line(half_warp_shuffle, "shfl_down"),
                                                _line(half_warp_shuffle, "if tack.lane_id")]


def test_a_vote_after_some_lanes_left_the_loop():
    (f,) = tack.check(vote_after_break, *args()).of_kind("barrier")
    assert "warp collective tack.warp_any" in f.message
    assert "warp 1 of workgroup 0" in f.message  # lanes 41.. left: warp 1 is the first split
    assert f.diverged["how"] == "break"


def test_a_partial_workgroup_is_reported_before_the_run():
    r = tack.check(clean, *args(300))
    assert any("partial workgroup of 44 lanes" in f.message for f in r.of_kind("barrier"))


def test_a_clean_warp_kernel_has_no_finding():
    r = tack.check(clean, *args())
    r.require_clean()
    x = np.arange(512, dtype=np.float32)
    t = np.arange(512)
    partner = t - t % 32 + (t % 32 ^ 3)
    sums = np.repeat(x.reshape(-1, 32).sum(1), 32)  # small integers: exact in any order
    np.testing.assert_array_equal(r.outputs["out"], sums + x[partner])
