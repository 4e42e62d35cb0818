"""The reliability corpus (tests/reliability/corpus/): every row is a test of its own, so that a
row whose expectation went stale fails here (pytest-xdist spreads them over its workers); the
same rows from a shell, in the repository's root: `python -m tests.reliability.corpus`."""
import os
import sys

import pytest
from tack.devices import _global as _settings

from tests.reliability import corpus

_ALL = corpus.all_cases()


def _param(case):
    # A row declaring a longer timeout than the default is one its author knew to be long: the
    # cache rows (a fresh consumer process each, ~0.5 s of CPU) and the deep sums (sum-10000:
    # ~40 s). `-m "not slow"` leaves them out of a quick local run; CI runs them.
    slow = [pytest.mark.slow] if case.timeout > corpus.Case.timeout else []
    return pytest.param(case, id=case.name, marks=slow)


@pytest.fixture
def process_state():
    """What an in-process row must leave as it found it: the environment, the working folder,
    the import path and Tack's process-wide settings (run_here restores the settings; a row
    must not rely on that for the rest)."""
    def state():
        env = {k: v for k, v in os.environ.items() if k != "PYTEST_CURRENT_TEST"}  # pytest's
        return env, os.getcwd(), list(sys.path), dict(_settings)

    before = state()
    yield
    after = state()
    assert after[0] == before[0], "the row changed os.environ"
    assert after[1] == before[1], "the row changed the working folder"
    assert after[2] == before[2], "the row changed sys.path"
    assert after[3] == before[3], "Tack's process-wide settings were not restored"


@pytest.mark.parametrize("case", [_param(c) for c in _ALL])
def test_row(case, process_state):
    r = corpus.run_case(case)
    assert r.passed, f"{r.outcome}: {r.detail}"


def test_the_quick_slice_is_a_slice():
    """`--quick` (rows marked quick) names rows of the corpus, from every table."""
    quick = corpus.select(quick=True)
    assert quick and {c.name for c in quick} <= {c.name for c in _ALL}
    assert {c.name.split("/")[0] for c in quick} == {c.name.split("/")[0] for c in _ALL}


def test_names_are_unique_and_rows_well_formed():
    cases = corpus.all_cases()  # raises on a duplicate name
    assert len(cases) >= 350
    for c in cases:
        assert c.expect is None or issubclass(corpus.runner.resolve(c.expect),
                                         BaseException), c.name
        assert "/" in c.name, c.name  # "theme/what": api/..., arrays/..., cache/...
        assert all(n.isidentifier() for n in c.unchanged), c.name


def test_runner_judges_outcomes():
    C = corpus.Case
    setup = "a = np.zeros(3)"
    assert corpus.run_here(C("t/ok", "a[0] = 0", None, setup)).outcome == "ok"
    assert corpus.run_here(C("t/none", "pass", "TypeError")).outcome == "no-error"
    assert corpus.run_here(C("t/class", "1/0", "TypeError")).outcome == "wrong-class"
    assert corpus.run_here(C("t/plain", "int('x')", "ValueError")).outcome == "not-tack-error"
    assert corpus.run_here(C("t/chg", "a[0] = 1", None, setup,
                             unchanged=("a",))).outcome == "changed"
    assert corpus.run_here(C("t/setup", "pass", None, "1/0")).outcome == "setup-error"
    assert corpus.run_here(C("t/check", "pass", None, check="assert False, 'no'")
                           ).outcome == "check-failed"


def test_counts_and_summary():
    R = corpus.Result
    rs = [R("a", "ok"), R("b", "ok"), R("c", "crash", "signal 11")]
    assert corpus.counts(rs) == {"ok": 2, "crash": 1}
    assert corpus.summary(rs).splitlines()[0] == "3 cases: ok 2, crash 1"


def test_isolated_cases_report_crashes_and_timeouts():
    C = corpus.Case
    from tests.reliability.corpus.table_api import _COPY
    ran = corpus.run_isolated(C("t/iso", "k(x, out)", None, _COPY, check="assert out[1] == 2"))
    assert ran.outcome == "ok", ran.detail
    crash = corpus.run_isolated(C("t/kill", "os.kill(os.getpid(), 9)", None))
    assert crash.outcome == "crash" and "signal 9" in crash.detail
    assert corpus.run_isolated(C("t/hang", "import time; time.sleep(30)", None,
                                 timeout=2)).outcome == "timeout"
    assert corpus.run_isolated(C("t/env", "assert os.environ['RELI_X'] == '1'", None,
                                 env=(("RELI_X", "1"),))).outcome == "ok"
