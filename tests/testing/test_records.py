"""Records: plain JSON that round-trips, written where the settings say, and listed back."""
import json
import os

import tack
import tack.testing
from tack.testing.harness import Record, load_all, records

from . import planted


def failing(**kw):
    return tack.testing.test(planted.add_first_1024, reference=planted.add_ref,
                             signature="(n),(n)->(n)", baseline=False, **kw)


def passing(**kw):
    return tack.testing.test(planted.add, reference=planted.add_ref, signature="(n),(n)->(n)",
                             tier="canonical", **kw)


def roundtrip(rec: Record) -> Record:
    text = json.dumps(rec.to_dict(), allow_nan=False)  # standard JSON: no NaN literals
    return Record.from_dict(json.loads(text))


def test_failing_record_round_trips_through_json():
    rec = failing(records_dir=False)
    assert rec.failures and rec.failures[0].mismatches
    back = roundtrip(rec)
    assert back == rec
    assert back.minimal_case.repro == rec.minimal_case.repro
    assert back.failures[0].mismatches[0].examples[0]["actual"] == "nan"


def test_passing_record_with_timing_round_trips(quick_timing):
    rec = passing(records_dir=False)
    assert rec.comparison is not None and len(rec.comparison.timings) == 3
    back = roundtrip(rec)
    assert back == rec and back.comparison.timings[2].subject == rec.comparison.timings[2].subject


def test_record_fields_and_environment():
    rec = failing(records_dir=False, seed=5, name="dropper")
    assert rec.name == "dropper" and rec.seed == 5 and rec.minimal_case.seed == 5
    assert rec.signature == "(n),(n)->(n)" and rec.tier == "fast" and rec.dtypes == ["float32"]
    assert rec.tolerances == {"float32": [1e-3, 1e-3]} and rec.kind == "kernel"
    env = rec.environment
    assert env["engine"] == "native" and env["arch"] == "cpu" and env["tack"] == tack.__version__
    assert {"python", "numpy", "platform", "tack_commit", "subject_commit"} <= set(env)
    assert len(rec.cases) == rec.shapes_total and sum(not c.passed for c in rec.cases) == 5


def test_records_dir_false_writes_nothing(tmp_path):
    rec = failing(records_dir=False)
    assert rec.path is None
    assert not (tmp_path / "runs").exists()


def test_records_go_to_tack_runs_dir_or_records_dir(tmp_path):
    rec = failing()
    assert os.path.dirname(rec.path) == str(tmp_path / "runs")  # TACK_RUNS_DIR (conftest)
    assert Record.load(rec.path) == rec
    other = failing(records_dir=tmp_path / "elsewhere")
    assert os.path.dirname(other.path) == str(tmp_path / "elsewhere")
    with open(other.path) as f:
        assert json.load(f)["minimal_case"]["label"] == "1025-contiguous-float32"


def test_default_folder_is_under_home(tmp_path, monkeypatch):
    monkeypatch.delenv("TACK_RUNS_DIR")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert records.runs_dir() == tmp_path / "home" / ".tack" / "runs"
    rec = failing()
    assert rec.path.startswith(str(tmp_path / "home" / ".tack" / "runs"))


def test_load_all_lists_oldest_first_and_skips_other_files(tmp_path):
    first, second = failing(name="one"), failing(name="two")
    (tmp_path / "runs" / "notes.json").write_text('{"hello": 1}')
    (tmp_path / "runs" / "broken.json").write_text("{")
    recs, skipped = load_all()
    assert [r.name for r in recs] == ["one", "two"] and recs[0].path == first.path
    assert len(skipped) == 2 and all("not a harness record" in s for s in skipped)
    assert second.path in {r.path for r in recs}


def test_commit_is_read_from_a_checkout_and_absent_outside(tmp_path):
    from tack.testing.harness.environment import commit

    here = commit(os.path.dirname(os.path.abspath(__file__)))
    if os.path.exists(os.path.join(os.path.dirname(__file__), "..", "..", ".git")):
        assert here is not None and len(here) == 40 and int(here, 16) >= 0
    assert commit(str(tmp_path)) is None and commit(None) is None
