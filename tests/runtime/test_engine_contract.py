"""The engine contract (tack.runtime.base), in the spirit of KernelAbstractions' backend tests: a
bare engine fails loudly, naming itself and each method it lacks; every real engine implements
the whole contract. The CPU engine runs here; the CUDA and Julia engines cannot, so their
classes are checked statically (every contract member defined by the class itself)."""
import ast
import importlib.util
from pathlib import Path

import numpy as np
import pytest
import tack
from tack import dtypes as D
from tack.devices import Device, make_device
from tack.ir.ops import Op
from tack.runtime import registry
from tack.runtime.base import Capabilities, Engine, Launchable

from tests.runtime.irbuild import C, E, T, arr, kir, st
from tests.stand_in_engines import stand_in

RUNTIME = Path(tack.__file__).parent / "runtime"


def iota_kir():
    return kir("iota", [arr("o", D.i64, True)], [st("o", E(Op.MUL, D.i64, T, C(3)))])


class Bare(Engine):
    pass


class BareKernel(Launchable):
    pass


def _call(engine, name):
    args = {"create": ("cpu", {}), "alloc": (8,), "upload": (None, None),
            "download": (None, None), "memset0": (None,), "copy": (None, None, 0),
            "adopt": (0, 0, None), "compile": (None,), "sync": (), "stage": (None, "ir")}
    member = getattr(type(engine), name)
    if isinstance(member, property):
        return getattr(engine, name)
    return getattr(engine, name)(*args[name])


@pytest.mark.parametrize("name", Engine.CONTRACT)
def test_a_bare_engine_names_each_missing_method(name):
    with pytest.raises(NotImplementedError, match=f"Bare does not implement '{name}'.*Engine"):
        _call(Bare(), name)


def test_a_bare_launchable_must_launch_and_may_not_inline():
    with pytest.raises(NotImplementedError, match="BareKernel does not implement 'launch'"):
        BareKernel().launch([], 1)
    assert BareKernel().inline_launch(["a0"], {}) is None  # the generic launch is called


def _defined(cls_name: str, module: str) -> set[str]:
    """Names the class body of `cls_name` in runtime/`module` defines (methods, properties,
    class attributes), read from the source: the module may not import here."""
    tree = ast.parse((RUNTIME / module).read_text())
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls_name)
    names = set()
    for node in cls.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return names


STORAGE = {"alloc", "upload", "download", "memset0", "copy", "adopt"}
# (engine class, its module, kernel class, storage inherited); KERNEL_MODULES: kernels kept apart
ENGINES = [("CPUEngine", "cpu/engine.py", "CPUKernel", STORAGE),  # storage from runtime/host.py
           ("CUDAEngine", "cuda/engine.py", "CUDAKernel", set()),
           ("JuliaEngine", "julia/engine.py", "JuliaKernel", set()),
           ("SimEngine", "sim/engine.py", "SimKernel", STORAGE)]
KERNEL_MODULES = {"CUDAKernel": "cuda/kernel.py"}


@pytest.mark.parametrize("engine, module, kernel, inherited", ENGINES)
def test_every_engine_defines_the_whole_contract(engine, module, kernel, inherited):
    missing = set(Engine.CONTRACT) - _defined(engine, module) - inherited
    assert not missing, f"{engine} lacks {sorted(missing)}"
    assert "launch" in _defined(kernel, KERNEL_MODULES.get(kernel, module))


def test_every_registered_kind_names_a_real_engine_class():
    for kind in set(registry._KINDS.values()):
        path = RUNTIME.joinpath(*kind.module.split(".")[2:]).with_suffix(".py")
        assert kind.cls in {e for e, *_ in ENGINES} and path.is_file()
        assert set(kind.stages) >= {"ir", "source"}
        assert all(isinstance(c, Capabilities) for c in kind.capabilities.values())


def test_the_cpu_engine_satisfies_the_contract():
    from tack.runtime.cpu.engine import CPUEngine

    eng = CPUEngine.create("cpu", {"num_threads": 1})
    for name in Engine.CONTRACT:
        assert getattr(CPUEngine, name) is not getattr(Engine, name), name
    assert eng.capabilities == make_device("cpu").capabilities
    assert eng.capabilities.takes_pointers and eng.capabilities.host_memory
    assert not eng.capabilities.workgroups
    buf = eng.alloc(24)
    eng.upload(buf, np.arange(3, dtype=np.int64))
    other = eng.alloc(24)
    eng.copy(other, buf, 24)
    out = np.zeros(3, np.int64)
    eng.download(other, out)
    assert out.tolist() == [0, 1, 2]
    eng.memset0(other)
    eng.download(other, out)
    assert out.tolist() == [0, 0, 0]
    shared = eng.adopt(buf.ptr, 24, owner=buf)
    assert shared.ptr == buf.ptr and shared.owner is buf
    k = eng.compile(iota_kir())
    assert isinstance(k, Launchable)
    o = np.full(4, -1, np.int64)
    k.launch([o.ctypes.data], 3)
    eng.sync()
    assert o.tolist() == [0, 3, 6, -1]
    env = {"MISS": object()}
    lines = k.inline_launch(["a0"], env)  # the native caller (runtime/cpu/call.py) where built
    if lines is not None:
        src = "def f(a0, n):\n" + "".join(f"    {line}\n" for line in lines)
        exec(compile(src, "<inline>", "exec"), env)  # noqa: S102 - the generated call path
        o[:] = -1
        assert env["f"](o.ctypes.data, 2) is None
        assert o.tolist() == [0, 3, -1, -1]
        assert env["f"](-1, 2) is env["MISS"]  # a value the block cannot hold
    for stage in eng.stages:
        assert "iota" in eng.stage(iota_kir(), stage)


def test_the_sim_engine_satisfies_the_contract():
    from tack.runtime.sim.engine import SimEngine

    eng = SimEngine.create("sim", {})
    for name in Engine.CONTRACT:
        assert getattr(SimEngine, name) is not getattr(Engine, name), name
    assert eng.capabilities == make_device("sim").capabilities
    assert eng.capabilities.workgroups and eng.capabilities.host_memory
    assert not eng.capabilities.takes_pointers
    assert make_device("cpu", engine="sim").capabilities == eng.capabilities
    k = eng.compile(iota_kir())
    o = np.full(4, -1, np.int64)
    k.launch([o], 3)
    eng.sync()
    assert o.tolist() == [0, 3, 6, -1]
    for stage in eng.stages:
        assert "iota" in eng.stage(iota_kir(), stage)


def test_the_julia_engine_answers_without_starting_julia():
    from tack.runtime.julia.engine import BACKENDS, JuliaEngine

    assert set(BACKENDS) == set(registry.JULIA.capabilities)
    for name in Engine.CONTRACT:
        assert getattr(JuliaEngine, name) is not getattr(Engine, name), name
    cpu, metal = JuliaEngine.create("cpu", {}), JuliaEngine("metal")
    assert not cpu.capabilities.takes_pointers and cpu.capabilities.workgroups
    assert metal.capabilities.atomic_bits == 32 and not metal.capabilities.host_memory
    buf = cpu.alloc(8)
    cpu.memset0(buf)
    assert buf.nbytes == 8
    # A GPU device's arrays are Julia arrays on its backend (runtime/julia/storage.py): without
    # juliacall, or without Metal.jl, the allocation says what is missing.
    with pytest.raises(RuntimeError, match=r"missing dependency juliacall|Metal\.jl is not"):
        metal.alloc(8)
    assert "@kernel function" in cpu.stage(iota_kir(), "source")
    cpu.sync()


def _has_cuda_bindings() -> bool:
    """cuda-bindings itself: a `cuda` namespace package may come from other NVIDIA wheels
    (cuda-pathfinder, the nvcc wheel) without it."""
    try:
        return importlib.util.find_spec("cuda.bindings") is not None
    except ModuleNotFoundError:
        return False


@pytest.mark.skipif(not _has_cuda_bindings(), reason="cuda-bindings absent")
def test_the_cuda_engine_class_overrides_the_contract():
    from tack.runtime.cuda.engine import CUDAEngine, CUDAKernel

    for name in Engine.CONTRACT:
        assert getattr(CUDAEngine, name) is not getattr(Engine, name), name
    # One launch, the class's; the path it calls the driver by is the engine's setting
    assert "launch" in CUDAKernel.__dict__
    from tack.runtime.cuda.engine import launch_path_from_env

    assert [launch_path_from_env({"TACK_CUDA_LAUNCH": v}) for v in
            ("ctypes", "bindings", "native", "other")] == ["ctypes", "bindings", "native", "native"]
    assert launch_path_from_env({}) == "native"
    assert CUDAKernel.inline_launch is not Launchable.inline_launch


def test_devices_answer_capabilities_without_starting_an_engine():
    gpu = Device("cuda")
    assert gpu.capabilities.workgroups and not gpu.is_host
    assert gpu.stages == ("ir", "source", "resources", "sass")
    assert gpu._engine is None
    assert Device("hip", "julia").capabilities.workgroups
    with pytest.raises(RuntimeError, match="native engine does not target it"):
        _ = Device("hip").capabilities
    with pytest.raises(ValueError, match="Unknown engine: 'nosuch'"):
        _ = Device("cpu", "nosuch").capabilities
    sim = Device("cpu", "sim")  # the simulator: workgroups on host memory
    assert sim.capabilities.workgroups and sim.is_host and sim._engine is None


class CountingSyncs(Engine):
    """An engine that counts the engines made of it and the syncs asked of each."""

    made = 0

    def __init__(self):
        self.synced = 0

    @classmethod
    def create(cls, arch, options):
        cls.made += 1
        return cls()

    def sync(self):
        self.synced += 1


def test_sync_asks_the_engine():
    with stand_in(CountingSyncs, "cpu") as dev:
        made = CountingSyncs.made
        tack.sync(tack.Device("cpu", engine="stand-in"))  # never started: nothing to wait for
        assert CountingSyncs.made == made  # and not started by the sync
        tack.sync(dev)
        assert CountingSyncs.made == made
        engine = dev.engine  # started
        tack.sync(dev)
        tack.sync(dev)
        assert CountingSyncs.made == made + 1 and engine.synced == 2


def test_a_stand_in_engine_leaves_nothing_behind():
    """registry.unregister undoes register: the names, stages and kinds the registry reports
    are what they were, and the stand-in's device is no shared device."""
    before = (registry.engine_names(), registry.stage_names(), registry.shown_by("sass"),
              registry.targets("native"), tack.devices.started())
    with stand_in(CountingSyncs, "cuda", like=registry.NATIVE_CUDA) as dev:
        assert tack.default_device() is dev and dev.engine_name == "stand-in"
        assert dev.stages == registry.NATIVE_CUDA.stages and "stand-in" in registry.engine_names()
        assert ("stand-in", "cuda") in registry.shown_by("sass")
        tack.sync(dev)
    after = (registry.engine_names(), registry.stage_names(), registry.shown_by("sass"),
             registry.targets("native"), tack.devices.started())
    assert after == before and tack.default_device() is not dev
    with pytest.raises(ValueError, match="Unknown engine: 'stand-in'"):
        tack.set_default_device("cuda", engine="stand-in")
