"""The reliability corpus (tack.testing.reliability): the quick slice runs here, each case a
test; the whole corpus is `python -m tack.testing.reliability`."""
import pytest
from tack.testing import reliability

# The rows marked quick, and every 12th other row that runs in this process: a slice that
# changes with the corpus but stays a few seconds long.
_ALL = reliability.all_cases()
QUICK = [c for k, c in enumerate(_ALL) if c.quick or (k % 12 == 0 and not c.subprocess)]


@pytest.mark.parametrize("case", QUICK, ids=[c.name for c in QUICK])
def test_quick_slice(case):
    r = reliability.run_case(case)
    assert r.passed, f"{r.outcome}: {r.detail}"


def test_names_are_unique_and_rows_well_formed():
    cases = reliability.all_cases()  # raises on a duplicate name
    assert len(cases) >= 350
    for c in cases:
        assert c.expect is None or issubclass(reliability.runner.resolve(c.expect),
                                              BaseException), c.name
        assert "/" in c.name, c.name  # "theme/what": api/..., arrays/..., cache/...
        assert all(n.isidentifier() for n in c.unchanged), c.name


def test_runner_judges_outcomes():
    C = reliability.Case
    setup = "a = np.zeros(3)"
    assert reliability.run_here(C("t/ok", "a[0] = 0", None, setup)).outcome == "ok"
    assert reliability.run_here(C("t/none", "pass", "TypeError")).outcome == "no-error"
    assert reliability.run_here(C("t/class", "1/0", "TypeError")).outcome == "wrong-class"
    assert reliability.run_here(C("t/plain", "int('x')", "ValueError")).outcome == "not-tack-error"
    assert reliability.run_here(C("t/chg", "a[0] = 1", None, setup,
                                  unchanged=("a",))).outcome == "changed"
    assert reliability.run_here(C("t/setup", "pass", None, "1/0")).outcome == "setup-error"
    assert reliability.run_here(C("t/check", "pass", None, check="assert False, 'no'")
                                ).outcome == "check-failed"


def test_counts_and_summary():
    R = reliability.Result
    rs = [R("a", "ok"), R("b", "ok"), R("c", "crash", "signal 11")]
    assert reliability.counts(rs) == {"ok": 2, "crash": 1}
    assert reliability.summary(rs).splitlines()[0] == "3 cases: ok 2, crash 1"


def test_isolated_cases_report_crashes_and_timeouts():
    C = reliability.Case
    from tack.testing.reliability.table_api import _COPY
    ran = reliability.run_isolated(C("t/iso", "k(x, out)", None, _COPY, check="assert out[1] == 2"))
    assert ran.outcome == "ok", ran.detail
    crash = reliability.run_isolated(C("t/kill", "os.kill(os.getpid(), 9)", None))
    assert crash.outcome == "crash" and "signal 9" in crash.detail
    assert reliability.run_isolated(C("t/hang", "import time; time.sleep(30)", None,
                                      timeout=2)).outcome == "timeout"
    assert reliability.run_isolated(C("t/env", "assert os.environ['RELI_X'] == '1'", None,
                                      env=(("RELI_X", "1"),))).outcome == "ok"
