"""The planted-bug corpus through `tack.check` on the simulator: each bug is found with the
right kind and both source lines; every fixed twin is clean (no false positives)."""
import numpy as np
import pytest
import tack

from tests.check.planted import CASES

IDS = [c.name for c in CASES]


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_the_bug_is_found_with_its_kind_and_both_lines(case):
    report = tack.check(case.bug, *case.args())
    file, marked = case.lines()
    assert report.verdict == "error", report.text()
    hits = [f for f in report.of_kind(case.kind)
            if all(loc[0] == file for loc in f.locations[:len(marked)])
            and marked <= {loc[1] for loc in f.locations}]
    assert hits, report.text()
    f = hits[0]
    if case.kind in ("race", "barrier"):  # both accesses, or the barrier and the branch
        assert {loc[1] for loc in f.locations} == marked
    assert f.lanes and f.count >= 1 and f.kernel == case.bug.name
    assert f.to_dict()["kind"] == case.kind


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_the_fixed_twin_is_clean(case):
    report = tack.check(case.fixed, *(case.fixed_args or case.args)())
    assert report.verdict == "clean", report.text()
    report.require_clean()


def test_the_benign_race_is_found_although_the_result_is_right():
    case = next(c for c in CASES if c.name == "benign_race")
    bug = tack.check(case.bug, *case.args())
    fixed = tack.check(case.fixed, *case.args())
    np.testing.assert_array_equal(bug.outputs["out"], fixed.outputs["out"])
    assert bug.verdict == "error" and fixed.verdict == "clean"


def test_the_callers_arrays_are_unchanged_and_outputs_are_keyed_by_name():
    case = next(c for c in CASES if c.name == "missing_barrier_fixed" or c.name ==
                "missing_barrier")
    x, out, n = case.args()
    before = out.numpy()
    report = tack.check(case.fixed, x, out, n)
    np.testing.assert_array_equal(out.numpy(), before)
    np.testing.assert_array_equal(report.outputs["out"], x.numpy().reshape(2, 256)[:, ::-1]
                                  .reshape(-1))
    assert set(report.outputs) == {"x", "out"}


def test_a_kernel_the_contract_refuses_is_checked_not_raised():
    case = next(c for c in CASES if c.name == "barrier_in_branch")
    with pytest.raises(ValueError, match="uniform workgroup participation"):
        tack.inspect(case.bug, *case.args(), mode="ir", engine="sim")  # a normal launch's words
    report = tack.check(case.bug, *case.args())
    (f,) = report.of_kind("barrier")
    assert "lanes 128..255 did not arrive" in f.message
    assert f.workgroups == (0,) and f.count == 2


def test_options_turn_kinds_off():
    case = next(c for c in CASES if c.name == "missing_barrier")
    report = tack.check(case.bug, *case.args(), races=False)
    assert report.verdict == "clean" and "race" not in report.checked
    assert "not checked: race" in report.text()
    with pytest.raises(TypeError, match="unknown option"):
        tack.check(case.bug, *case.args(), race=False)


def test_the_uninitialized_mark_of_tack_empty():
    x = tack.array(np.ones(8, np.float32))
    out = tack.empty(8)
    assert out._unwritten
    case = next(c for c in CASES if c.name == "accumulate_into_empty")
    assert tack.check(case.bug, x, out, 8).verdict == "error"
    assert out._unwritten  # a check runs on copies: nothing was written
    assert tack.check(case.bug, x, out, 8, uninitialized=False).verdict == "clean"
    out.fill(0.0)
    assert tack.check(case.bug, x, out, 8).verdict == "clean"
    written = tack.empty(8)
    case.fixed(x, written, 8)  # a normal launch that takes it clears the mark
    assert not written._unwritten
    assert tack.check(case.bug, x, written, 8).verdict == "clean"
