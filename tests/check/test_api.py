"""`tack.check`'s face: the exported names, device-class and bound-kernel arguments, return
values, a partial workgroup, and the "incomplete" verdict."""
import numpy as np
import pytest
import tack
from tack.check import run as R

from tests.check.planted import CASES, missing_barrier_fixed
from tests.exec.test_funcs_classes import Field, Mover, sample
from tests.exec.test_return_values import mean


def test_the_package_face():
    assert callable(tack.check) and tack.check.__module__ == "tack.check.run"
    for name in ("check", "CheckReport", "CheckError"):
        assert name in tack.__all__
    assert issubclass(tack.CheckError, tack.TackError)
    assert issubclass(tack.CheckError, AssertionError)


def test_device_class_and_bound_kernel_arguments():
    h = np.arange(6, dtype=np.float32)
    r = tack.check(sample, Field(tack.array(h), 1.0), tack.zeros(6)).require_clean()
    np.testing.assert_array_equal(r.outputs["out"], h * 3 + 1)
    m = Mover(tack.zeros(4), tack.array(np.arange(4, dtype=np.float32)))
    r = tack.check(m.step, 0.5, 4).require_clean()
    np.testing.assert_array_equal(r.outputs["self.pos"], np.arange(4) * 0.5)
    np.testing.assert_array_equal(m.pos.numpy(), 0)  # checked on a copy


def test_a_return_value_is_reported():
    r = tack.check(mean, tack.array(np.arange(10, dtype=np.float32)), tack.zeros(1))
    assert r.verdict == "clean" and r.returned == pytest.approx(4.5)


def test_a_partial_workgroup_with_barriers_is_a_barrier_error():
    r = tack.check(missing_barrier_fixed, tack.array(np.ones(300, np.float32)), tack.zeros(300),
                   300)
    (f,) = [f for f in r.of_kind("barrier")]
    assert "partial workgroup of 44 lanes" in f.message and r.verdict == "error"


def test_what_the_simulator_cannot_model_makes_the_verdict_incomplete(monkeypatch):
    class Refusing:
        def run(self, *a, **k):
            raise NotImplementedError("textures are not simulated")

    monkeypatch.setattr(R, "sim_engine", lambda: Refusing())
    case = next(c for c in CASES if c.name == "missing_barrier")
    r = tack.check(case.fixed, *case.args())
    assert r.verdict == "incomplete" and "textures" in r.incomplete[0]
    assert r.to_dict()["incomplete"] == r.incomplete


def test_not_a_kernel_and_bad_options():
    with pytest.raises(TypeError, match="takes a @tack.kernel"):
        tack.check(lambda x: x, 1)
    case = next(c for c in CASES if c.name == "missing_barrier")
    with pytest.raises(ValueError, match="witnesses"):
        tack.check(case.bug, *case.args(), witnesses=0)
    r = tack.check(case.bug, *case.args(), witnesses=1)
    assert len(r.findings[0].witnesses) == 1 and len(r.findings[0].lanes) == 2
