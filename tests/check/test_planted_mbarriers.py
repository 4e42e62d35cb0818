"""The planted transaction-barrier bugs through `tack.check` (tests/check/planted_mbarriers.py):
each is found with its kind, its problem and exactly its marked lines, for readers after, before
and far from the copying lane in the simulator's order; every fixed twin is clean and computes
what NumPy does."""
import numpy as np
import pytest
import tack

from tests.check.planted_mbarriers import CASES, NT, N

IDS = [c.name for c in CASES]
SHIFTS = (0, 1, 255, 128)  # the copier itself, the next lane, the previous one, far away


def _finding(report, case, shift):
    file, marked = case.lines()
    hits = [f for f in report.of_kind(case.kind)
            if {loc[1] for loc in f.locations} == marked
            and all(loc[0] == file for loc in f.locations)]
    assert hits, f"shift {shift}:\n{report.text()}"
    return hits[0]


@pytest.mark.parametrize("shift", SHIFTS)
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_the_bug_is_found_with_its_problem_and_lines(case, shift):
    f = _finding(tack.check(case.bug, *case.args(shift)), case, shift)
    assert f.severity == "error" and f.kernel == case.bug.name
    assert {w["problem"] for w in f.witnesses} == {case.problem}
    assert f.count >= 1 and f.lanes and f.to_dict()["kind"] == case.kind


@pytest.mark.parametrize("shift", SHIFTS)
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_the_fixed_twin_is_clean(case, shift):
    args = case.args(shift)
    report = tack.check(case.fixed, *args)
    assert report.verdict == "clean", report.text()
    out = report.outputs["c" if "c" in report.outputs else "out"]
    if "c" in report.outputs:
        want = args[0].numpy() @ args[1].numpy()
    else:
        x = args[0].numpy().ravel()  # a 2-D array for the tensor copies' boxes
        lane = (np.arange(256) + shift) % 256
        if len(x) == N:
            want = x.reshape(2, 256)[:, lane].ravel()
        else:
            want = np.repeat(x.reshape(2, NT, 256)[:, :, lane].sum(1), 1, axis=0).ravel()
    np.testing.assert_array_equal(out, want)


def _case(name):
    return next(c for c in CASES if c.name == name)


def test_a_deadlock_says_who_waits_and_what_is_missing():
    """Instead of hanging: the waiting lanes, the phase, the arrivals that never came."""
    case = _case("arrivals_not_expected")
    f = _finding(tack.check(case.bug, *case.args(1)), case, 1)
    assert "deadlock: 256 lane(s) of workgroup 0" in f.message
    assert "phase 0 (parity 0) of barrier 'bar[0]'" in f.message
    assert "1 of its 2 expected arrivals never came (1 arrived" in f.message
    assert f.witnesses[0]["pending"] == 1 and f.witnesses[0]["expected"] == 2


def test_a_plain_launch_stops_at_a_deadlock_with_the_same_message():
    case = _case("arrivals_not_expected")
    with tack.device("sim"), pytest.raises(tack.TackRuntimeError, match="deadlock: 256 lane"):
        case.bug(*case.args(0))


def test_the_stale_tile_shows_in_the_simulated_result():
    """Without the wait the copy has not landed when the lanes read: zeros, as a GPU may."""
    case = _case("missing_wait")
    out = tack.check(case.bug, *case.args(1)).outputs["out"]
    assert not out.any()


def test_the_kinds_can_be_turned_off():
    case = _case("missing_wait")
    report = tack.check(case.bug, *case.args(1), pipelines=False, uninitialized=False)
    assert report.verdict == "clean" and "pipeline" not in report.checked
    case = _case("arrivals_not_expected")
    report = tack.check(case.bug, *case.args(1), barriers=False, pipelines=False)
    assert report.verdict == "incomplete" and "deadlock" in report.incomplete[0]


@tack.kernel
def one_lane_waits_then_barrier(x, out, shift):
    for i in range(out.shape[0]):
        buf = tack.shared(tack.f32, 256)
        bar = tack.mbarriers(1)
        tid = tack.thread_id()
        if tid == 0:
            tack.mbarrier_init(bar[0], 1)
        tack.barrier()
        if tid == 0:
            tack.mbarrier_arrive_tx(bar[0], 1024)
            tack.async_bulk_copy(buf, 0, x, i, 256, bar[0])
            tack.mbarrier_wait(bar[0], 0)  # lane 0 alone observes the phase ...
        tack.barrier()  # ... and the workgroup barrier passes it on
        out[i] = buf[(tid + shift) % 256]


@pytest.mark.parametrize("shift", SHIFTS)
def test_a_wait_published_by_a_workgroup_barrier_orders_every_lane(shift):
    x = tack.array(np.arange(N, dtype=np.float32))
    report = tack.check(one_lane_waits_then_barrier, x, tack.zeros(N), shift)
    assert report.verdict == "clean", report.text()
    lane = (np.arange(256) + shift) % 256
    want = np.arange(N, dtype=np.float32).reshape(2, 256)[:, lane].ravel()
    np.testing.assert_array_equal(report.outputs["out"], want)
