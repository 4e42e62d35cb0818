"""The planted pipeline bugs through `tack.check` (tests/check/planted_async.py): each is found
as a `pipeline` finding naming its problem and exactly its marked lines, for readers after,
before and far from the copying lane in the simulator's order (the verdict comes from barrier
epochs and each lane's own order, never from that order); every fixed twin is clean."""
import numpy as np
import pytest
import tack

from tests.check.planted_async import CASES, NT, N

IDS = [c.name for c in CASES]
SHIFTS = (0, 1, 255, 128)  # the copier itself, the next lane, the previous one, far away

_PHRASE = {"unwaited": "may not have landed", "wrong-wait": "left pending",
           "overwrite": "refills element"}


def _pipeline(report, case, shift):
    file, marked = case.lines()
    hits = [f for f in report.of_kind("pipeline")
            if {loc[1] for loc in f.locations} == marked
            and all(loc[0] == file for loc in f.locations)]
    assert hits, f"shift {shift}:\n{report.text()}"
    return hits[0]


# shift 0 without `own`: each lane reads only its own copy, after its own wait (no bug)
BUGS = [(c, s) for c in CASES for s in SHIFTS if s or c.own]


@pytest.mark.parametrize("case, shift", BUGS, ids=[f"{c.name}-{s}" for c, s in BUGS])
def test_the_bug_is_found_with_its_problem_and_lines(case, shift):
    f = _pipeline(tack.check(case.bug, *case.args(shift)), case, shift)
    assert f.severity == "error" and f.kernel == case.bug.name
    assert _PHRASE[case.problem] in f.message
    assert {w["problem"] for w in f.witnesses} == {case.problem}
    assert f.count >= 1 and f.lanes and f.to_dict()["kind"] == "pipeline"


@pytest.mark.parametrize("shift", SHIFTS)
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_the_fixed_twin_is_clean(case, shift):
    report = tack.check(case.fixed, *case.args(shift))
    assert report.verdict == "clean", report.text()


def test_a_wrong_wait_names_the_count_that_covers_the_copy():
    case = next(c for c in CASES if c.name == "wrong_wait_count")
    f = _pipeline(tack.check(case.bug, *case.args(1)), case, 1)
    assert "tack.async_wait(2)" in f.message and "tack.async_wait(1) is the wait" in f.message


def test_the_finding_matches_what_the_run_computed():
    """The bug is real in the simulation too: stale tiles change the sums, the fix does not."""
    case = next(c for c in CASES if c.name == "wrong_wait_count")
    bug = tack.check(case.bug, *case.args(1)).outputs["out"]
    fixed = tack.check(case.fixed, *case.args(1)).outputs["out"]
    x = np.arange(N * NT, dtype=np.float32) + 1.0
    tiles = x.reshape(2, NT, 256)
    want = tiles[:, :, (np.arange(256) + 1) % 256].sum(1).ravel()
    np.testing.assert_array_equal(fixed, want)
    assert not np.array_equal(bug, want)


def test_the_kind_can_be_turned_off():
    case = CASES[0]
    report = tack.check(case.bug, *case.args(1), pipelines=False, uninitialized=False)
    assert report.verdict == "clean" and "pipeline" not in report.checked
