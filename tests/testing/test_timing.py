"""Timing: only after correctness passed, on CANONICAL, in blocks ended by tack.sync(), with a
stability tier that marks the speedup as no claim when the measurement cannot carry one."""
import re
import sys
import types

import pytest
import tack
import tack.testing
from tack.testing.harness import clocks, timing

from . import planted


@pytest.fixture(autouse=True)
def _quick(quick_timing):
    pass


def run(subject, **kw):
    return tack.testing.test(subject, reference=planted.add_ref, signature="(n),(n)->(n)",
                             records_dir=False, **kw)


def test_timing_is_skipped_when_correctness_fails(monkeypatch):
    called = []
    monkeypatch.setattr(timing, "measure", lambda *a, **k: called.append(1))
    rec = run(planted.add_first_1024)
    assert not rec.passed and rec.comparison is None and called == []
    assert rec.summary().startswith("FAIL")


def test_timing_after_a_pass_covers_canonical_for_every_dtype(device):
    rec = run(planted.add, dtypes=("float32", "float64"))
    c = rec.comparison
    assert rec.passed and c is not None and c.baseline == "reference on NumPy"
    assert [t.label for t in c.timings] == [
        f"{n}-contiguous-{d}" for d in ("float32", "float64") for n in (1024, 2048, 4096)]
    for t in c.timings:
        for m in (t.subject, t.baseline):
            assert m.median_s > 0 and len(m.blocks_s) == 4 and m.tier in "ABC"
        assert t.speedup == pytest.approx(t.baseline.median_s / t.subject.median_s)
    assert any(t.baseline.calls_per_block > 1 for t in c.timings)  # blocks are sized
    assert c.is_performance_valid == (c.tier != "C")
    if device.arch == "cuda":  # NVML reads the clocks around the timing when it is present
        assert isinstance(c.clocks["checked"], bool)
    else:
        assert c.clocks["checked"] is False and "not an NVIDIA GPU" in c.clocks["reason"]


def test_baseline_false_turns_timing_off_and_a_baseline_is_named():
    assert run(planted.add, baseline=False).comparison is None
    rec = run(planted.add, baseline=planted.add_wrapper, tier="canonical")
    assert rec.comparison.baseline == "add_wrapper"


def test_blocks_end_with_a_device_sync(monkeypatch):
    syncs, calls = [], []
    monkeypatch.setattr(tack, "sync", lambda *a: syncs.append(len(calls)))
    m = timing.measure(lambda: calls.append(1))
    # After the warm-up, after each calibration block and after each of the 4 timed blocks.
    assert len(syncs) >= 1 + 4 and syncs[-1] == len(calls)
    assert len(m.blocks_s) == 4 and m.calls_per_block <= timing.PLAN.max_calls


def test_stability_tiers():
    assert [timing.tier_of(s) for s in (0.0, 0.049, 0.05, 0.149, 0.15, 3.0)] == \
        ["A", "A", "B", "B", "C", "C"]
    assert timing.worst(["A", "C", "B"]) == "C" and timing.worst(["A", "B"]) == "B"
    assert timing.geometric_mean([2.0, 8.0]) == pytest.approx(4.0)


def fake_watch(readings):
    it = iter(readings)
    return lambda device: clocks.ClockWatch(lambda: next(it, readings[-1]), "fake NVML")


def test_moving_clocks_make_the_run_unstable(monkeypatch):
    monkeypatch.setattr(clocks, "watch", fake_watch([1980, 1980, 1500, 1980]))
    rec = run(planted.add, tier="canonical")
    c = rec.comparison
    assert c.tier == "C" and not c.is_performance_valid and c.clocks["moved"]
    assert c.clocks["checked"] and 1500 in c.clocks["samples_mhz"]
    # the measured ratio stays, with its tier beside it and no claim made
    assert re.search(r"\d+\.\d\dx vs .* \(UNSTABLE, tier C: not a claim\)", rec.summary())


def test_steady_clocks_leave_the_tier_to_the_spread(monkeypatch):
    monkeypatch.setattr(clocks, "watch", fake_watch([1980]))
    c = run(planted.add, tier="canonical").comparison
    assert not c.clocks["moved"] and len(c.clocks["samples_mhz"]) == 1 + 3 * 2 * 4
    tiers = [m.tier for t in c.timings for m in (t.subject, t.baseline)]
    assert c.tier == max(tiers)


class _Device:
    arch, options = "cuda", {}


def test_nvml_is_skipped_cleanly_when_absent(monkeypatch):
    monkeypatch.setitem(sys.modules, "pynvml", None)
    w = clocks.watch(_Device())
    w.sample()
    assert w.as_dict() == {"checked": False, "samples_mhz": [], "moved": False,
                           "reason": "not checked: NVML unavailable (pip install nvidia-ml-py)"}


def test_nvml_sm_clock_is_read_when_present(monkeypatch):
    class NVMLError(Exception):
        pass

    fake = types.SimpleNamespace(NVMLError=NVMLError, NVML_CLOCK_SM=1, nvmlInit=lambda: None,
                                 nvmlDeviceGetHandleByIndex=lambda i: ("gpu", i),
                                 nvmlDeviceGetClockInfo=lambda h, kind: 1755 + h[1] + kind)
    monkeypatch.setitem(sys.modules, "pynvml", fake)
    w = clocks.watch(_Device())
    w.sample()
    assert w.as_dict()["samples_mhz"] == [1756] and w.as_dict()["checked"]

    def broken():
        raise NVMLError("driver not loaded")

    monkeypatch.setattr(fake, "nvmlInit", broken)
    assert "NVML failed (driver not loaded)" in clocks.watch(_Device()).reason
