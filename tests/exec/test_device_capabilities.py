"""A public capability query. `tack.device(name)` and `tack.default_device()`
answer `.name`, `.supports_workgroups`, `.supports_f64` and `.supported_atomic_dtypes` from the
engine registry's capabilities (docs/design/007-engine-contract.md), without starting an engine."""
import numpy as np
import pytest
import tack
from tack import capabilities
from tack.compiler import specialize
from tack.runtime import registry
from tack.runtime.base import Capabilities

ALL = (tack.i8, tack.u8, tack.i16, tack.u16, tack.i32, tack.u32, tack.i64, tack.u64, tack.f32,
       tack.f64)



def test_default_device_capabilities():
    tack.set_default_device("cpu")
    dev = tack.default_device()
    assert dev is tack.device("cpu")
    assert (dev.name, dev.supports_workgroups, dev.supports_f64) == ("cpu", False, True)
    assert dev.supported_atomic_dtypes == ALL


def test_gpu_capabilities_without_a_gpu():
    gpu = tack.device("cuda:1")
    assert (gpu.name, gpu.supports_workgroups, gpu.supports_f64) == ("cuda:1", True, True)
    assert gpu.supported_atomic_dtypes == ALL
    assert gpu._engine is None  # nothing started
    metal = tack.device("metal", engine="julia")
    assert metal.supports_workgroups and not metal.supports_f64
    assert metal.supported_atomic_dtypes == (tack.i32, tack.u32, tack.f32)
    assert tack.device("cuda", engine="julia").supported_atomic_dtypes == (
        tack.i32, tack.u32, tack.i64, tack.u64, tack.f32, tack.f64)
    assert tack.device("cpu", engine="julia").supports_workgroups


def test_capabilities_come_from_the_registry(monkeypatch):
    """An engine kind registered under any name is answered by its capabilities, not its name."""
    kind = registry.EngineKind("fake", "tack.runtime.cpu.engine", "CPUEngine",
                               {"cpu": Capabilities(workgroups=True, takes_pointers=True,
                                                    host_memory=True, f64=False,
                                                    atomic_bits=32)}, ("ir",))
    monkeypatch.setitem(registry._KINDS, ("fake", "cpu"), kind)
    monkeypatch.setitem(registry._NAMES, "fake", kind)
    dev = tack.device("cpu", engine="fake")
    assert dev.supports_workgroups and not dev.supports_f64
    assert tack.i64 not in dev.supported_atomic_dtypes and tack.f32 in dev.supported_atomic_dtypes


@tack.kernel
def group_sums(x, out):
    for i in range(x.shape[0]):
        s = tack.block_sum(x[i])
        if tack.thread_id() == 0:
            out[i // 256] = s


@tack.kernel
def atomic_sums(x, out):
    for i in range(x.shape[0]):
        tack.atomic_add(out, i // 256, x[i])


def test_portable_code_branches_on_capabilities():
    x = tack.array(np.ones(512, np.float32))
    out = tack.zeros(2, tack.f32)
    dev = tack.default_device()
    if dev.supports_workgroups:
        group_sums(x, out)
    else:
        assert tack.f32 in dev.supported_atomic_dtypes
        atomic_sums(x, out)
    assert out.numpy().tolist() == [256.0, 256.0]


def test_device_rejects_unknown_names():
    with pytest.raises(ValueError, match="Unknown architecture: 'vulkan'"):
        tack.device("vulkan")
    with pytest.raises(RuntimeError, match="native engine does not target it"):
        tack.device("metal")


@tack.kernel
def count_into(hist, keys):
    for i in range(keys.shape[0]):
        tack.atomic_add(hist, keys[i], 1)


@pytest.mark.parametrize("arch", ["metal", "cuda", "cpu", "hip"])
def test_supported_atomic_dtypes_are_what_the_compile_check_accepts(arch):
    """The answer a user reads (and docs/engines.md's table) agrees with the refusal before
    launch: every storage dtype is tried through tack.inspect (renders, launches nothing)."""
    dev = tack.device(arch, engine="julia")
    accepted = []
    for d in tack.dtypes.STORAGE:
        if d.bits == 64 and not dev.supports_f64 and d.kind == "f":
            continue
        hist = np.zeros(4, d.np)
        keys = np.zeros(3, np.int32)
        if d.is_half:  # the type checker refuses half atomics on every engine (test_half.py)
            with pytest.raises(tack.TackTypeError, match="atomic update of a"):
                specialize(count_into, (tack.array(hist), tack.array(keys)), tack.device("cpu"))
            continue
        kir = specialize(count_into, (tack.array(hist), tack.array(keys)), tack.device("cpu"))
        try:
            capabilities.check(kir, dev)  # what runs before rendering for `dev`
        except tack.UnsupportedSyntaxError as exc:
            assert "atomics" in str(exc)
            continue
        accepted.append(d)
    expected = [d for d in dev.supported_atomic_dtypes
                if not (d.bits == 64 and d.kind == "f" and not dev.supports_f64)]
    assert accepted == expected
