"""The checker's recorder and report on hand-made traces (no simulator): what the simulator
would tell it, turned into findings, verdicts, JSON and text."""
import json

import numpy as np
import pytest
import tack
from tack.check.recorder import CheckRecorder
from tack.check.report import CheckReport
from tack.runtime.sim.trace import BufferInfo, Site, Split

KINDS = ("race", "barrier", "bounds", "uninitialized")
W = 256
FILE = __file__
S1, S2, S3 = Site(FILE, 10, 9), Site(FILE, 11, 18), Site(FILE, 12, 5)
DECL = Site(FILE, 8, 15)


def recorder(kinds=KINDS, **kw):
    rec = CheckRecorder("k", kinds, decls={"buf": DECL}, **kw)
    rec.launch("k", 2 * W, 2, {0: BufferInfo("x", "global", 2 * W, False),
                               1: BufferInfo("buf", "shared", W, True),
                               2: BufferInfo("buf", "shared", W, True)})
    return rec


def lanes(g=0):
    return np.arange(W, dtype=np.int64) + g * W


def missing_barrier(rec):
    for g in (0, 1):
        t = lanes(g)
        rec.access("write", 1 + g, "shared", t, t % W, np.zeros(W, np.int64), S1)
        rec.access("read", 1 + g, "shared", t, W - 1 - t % W, np.zeros(W, np.int64), S2)
    rec.finish()
    return rec.findings


def test_a_race_in_every_workgroup_is_one_finding_with_both_locations():
    (f,) = missing_barrier(recorder())
    assert f.kind == "race" and f.severity == "error" and f.array == "buf"
    assert f.locations == ((FILE, 10, 9), (FILE, 11, 18))
    assert f.count == 2 * W  # every element, in both workgroups' copies
    assert len(f.lanes) <= 6 and f.workgroups[0] == 0
    assert f.index is not None and 0 <= f.index < W
    assert "no barrier between them" in f.message


def test_turning_races_off():
    assert missing_barrier(recorder(kinds=("bounds",))) == []


def test_bounds_like_debug_mode():
    rec = recorder()
    t = lanes(0)[-2:]
    rec.bounds(1, "shared", t, np.array([256, 257]), W, S1)
    rec.bounds(0, "global", np.array([3]), np.array([-4]), 2 * W, S2)
    rec.finish()
    shared, glob = sorted(rec.findings, key=lambda f: f.locations)
    assert shared.kind == "bounds" and shared.index == 256 and shared.extent == W
    assert shared.locations == ((FILE, 10, 9), (FILE, 8, 15))  # the access, the declaration
    assert shared.count == 2 and shared.lanes == (254, 255)
    assert glob.index == -4 and glob.locations == ((FILE, 11, 18),)


def test_uninitialized_reads_count_elements():
    rec = recorder()
    t = lanes(0)
    rec.uninitialized(1, "shared", t[:128], W - 1 - t[:128], S2)
    rec.uninitialized(1, "shared", t[:128], W - 1 - t[:128], S2)  # again, a loop
    rec.finish()
    (f,) = rec.findings
    assert f.kind == "uninitialized" and f.count == 128 and f.index == 255
    assert f.locations == ((FILE, 11, 18), (FILE, 8, 15))


def test_barrier_divergence_names_barrier_branch_and_lanes():
    rec = recorder()
    for g in (0, 1):
        rec.barrier(S3, g, np.arange(128), np.arange(W), Split(S1))
    rec.finish()
    (f,) = rec.findings
    assert f.kind == "barrier" and f.locations == ((FILE, 12, 5), (FILE, 10, 9))
    assert f.count == 2 and f.lanes[0] == 128
    assert "lanes 128..255 did not arrive" in f.message
    assert f.diverged == {"how": "branch", "branch": (FILE, 10, 9), "statement": None,
                          "loop": None}


def report_of(findings, **kw):
    return CheckReport("k", findings, {"out": np.zeros(3)}, KINDS, **kw)


def test_verdicts_and_require_clean():
    clean = report_of([])
    assert clean.verdict == "clean" and clean and clean.require_clean() is clean
    bad = report_of(missing_barrier(recorder()))
    assert bad.verdict == "error" and not bad
    with pytest.raises(tack.CheckError) as e:
        bad.require_clean()
    assert isinstance(e.value, AssertionError) and isinstance(e.value, tack.TackError)
    assert e.value.report is bad and "race" in str(e.value)
    assert report_of([], incomplete=["textures"]).verdict == "incomplete"


def test_review_for_advisory_findings_only():
    from tack.check.findings import Finding

    adv = Finding("barrier", "refused", ((FILE, 1, 1),), severity="advisory")
    assert report_of([adv]).verdict == "review"
    with pytest.raises(tack.CheckError):
        report_of([adv]).require_clean()


def test_to_dict_is_json_and_text_shows_source_lines():
    r = report_of(missing_barrier(recorder()))
    d = json.loads(json.dumps(r.to_dict()))
    assert d["verdict"] == "error" and d["findings"][0]["kind"] == "race"
    assert d["findings"][0]["locations"] == [[FILE, 10, 9], [FILE, 11, 18]]
    text = r.text()
    assert f"{FILE}:10:9" in text
    import linecache

    assert linecache.getline(FILE, 10).strip() in text


def test_print_prints_only_when_asked(capsys):
    r = report_of(missing_barrier(recorder()))
    assert capsys.readouterr().out == ""
    r.print()
    assert "tack.check k" in capsys.readouterr().out
