"""`tack.check`'s face: the exported names, device-class and bound-kernel arguments, return
values, a partial workgroup, and the "incomplete" verdict."""
import numpy as np
import pytest
import tack
from tack.check import run as R

from tests.check.kernels import huge_shared, read_only, store_both
from tests.check.planted import CASES, missing_barrier_fixed
from tests.kernels.language import Field, Mover, mean, sample


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


@pytest.mark.parametrize("value", ["no", "False", 0, 1, None, "off"])
def test_an_option_that_is_not_a_bool_is_refused(value):
    """`races="no"` read as true checked races the caller meant to leave out."""
    case = next(c for c in CASES if c.name == "missing_barrier")
    with pytest.raises(tack.TackValueError, match=r"races=.*True .* or False"):
        tack.check(case.bug, *case.args(), races=value)
    assert tack.check(case.bug, *case.args(), races=np.False_).verdict == "clean"


def test_a_read_only_array_is_refused_as_a_normal_call_refuses_it():
    """Checked, the store into read-only memory was simulated on a copy and reported clean."""
    ro = read_only(np.arange(8, dtype=np.float32))
    with pytest.raises(tack.TackValueError) as normal:
        store_both(tack.zeros(8), ro, 8)
    with pytest.raises(tack.TackValueError) as checked:
        tack.check(store_both, tack.zeros(8), ro, 8)
    assert str(checked.value) == str(normal.value) and "'x'" in str(checked.value)
    assert tack.check(store_both, tack.zeros(8), ro.copy(), 8).verdict == "clean"


@tack.kernel
def sized_shared(out, n, size):
    for i in range(n):
        s = tack.shared(tack.f32, size.shape[0])  # an extent: a compile-time size
        tid = tack.thread_id()
        s[tid] = 1.0
        tack.barrier()
        out[i] = s[255 - tid]


@tack.kernel
def sized_local(out, n, size):
    for i in range(n):
        a = tack.local_array(tack.f64, size.shape[0])
        a[0] = 1.0
        out[i] = a[0]


def shared_f32(elements: int) -> tuple:
    return tack.zeros(256), 256, tack.zeros(elements, tack.u8)


def test_shared_memory_no_gpu_allows_is_refused_before_running():
    """An 8 GiB shared array was simulated (lazily zeroed memory) and reported clean."""
    with pytest.raises(tack.TackValueError, match=r"8 GiB per workgroup .* above the 227 KiB "
                       r"\(232448 bytes\) of shared memory per thread block") as e:
        tack.check(huge_shared, tack.zeros(256), 256)
    assert e.value.loc.line == huge_shared.fn.__code__.co_firstlineno + 3
    assert "docs.nvidia.com/cuda" in str(e.value)
    at_limit = (227 * 1024) // 4
    assert tack.check(sized_shared, *shared_f32(at_limit)).verdict == "clean"
    with pytest.raises(tack.TackValueError, match="shared memory per thread block"):
        tack.check(sized_shared, *shared_f32(at_limit + 1))


def test_local_memory_no_gpu_allows_is_refused_before_running():
    at_limit = (512 * 1024) // 8
    size = tack.zeros(at_limit, tack.u8)
    assert tack.check(sized_local, tack.zeros(1), 1, size).verdict == "clean"
    # refused as a normal call on the simulator refuses it (every engine's local_bytes)
    with pytest.raises(tack.TackRuntimeError, match=r"failed on sim: .*local arrays hold .*"
                                                    r"more than the native:sim engine allows"):
        tack.check(sized_local, tack.zeros(1), 1, tack.zeros(at_limit + 1, tack.u8))
    tack.set_default_device("sim")
    with pytest.raises(tack.TackRuntimeError, match=r"failed on sim: .*local arrays hold"):
        sized_local(tack.zeros(1), 1, tack.zeros(at_limit + 1, tack.u8))
