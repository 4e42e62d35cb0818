"""Which engines exist: for each engine name and arch, where its class lives, what it can run and
which stages `tack.inspect` shows, known before any engine starts.

`tack.Device(arch, engine=...)` finds its kind here; nothing else names an engine. A kind's module
is imported when the first engine of that kind is made, so `import tack` loads no compiler, GPU
library or Julia, and a capability check against a GPU device needs no GPU. An engine added later
(the simulator, below) is one more `register(EngineKind(...))` and one more `Engine` subclass.
"""
from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass, field

from ..errors import TackRuntimeError, TackValueError
from .base import Capabilities, Engine


@dataclass(frozen=True, eq=False)
class EngineKind:
    """One engine name and the arches it targets."""

    name: str  # `Device(engine=name)`
    module: str  # where the Engine subclass lives (imported on first use)
    cls: str
    capabilities: dict  # arch -> Capabilities: the arches this kind targets
    stages: tuple[str, ...]  # what tack.inspect shows (the engine's `stage` makes each)
    missing: str = "Cannot initialize the {name} engine: {exc}"  # its module does not import
    # a stage the kind lacks ({modes}: the ones it has)
    refusal: str = ("inspect mode {mode!r} is not available on the {name} engine for {arch!r}: "
                    "it shows {modes}")
    elsewhere: str = "Cannot initialize '{arch}' backend: the {name} engine does not target it"
    # the file name suffix of each stage that `tack.inspect(..., outdir=)` writes
    # ("<kernel>.<suffix>"); a stage not named here is written as "<kernel>.<stage>.txt"
    files: dict = field(default_factory=dict)

    def file_name(self, kernel: str, stage: str) -> str:
        return f"{kernel}.{self.files.get(stage, stage + '.txt')}"

    # What `set_default_device` checks, so that a missing backend fails at selection (portable
    # code probes backends in a `try`): modules that must be importable, and whether the engine
    # starts right away (a missing driver library or device then fails there too).
    requires: tuple[str, ...] = ()
    start_on_select: bool = False
    # Kernels of this engine may launch from the disk cache's records (tack.call.records),
    # known before the engine starts: looking records up must not start, say, a GPU engine.
    records: bool = False

    def check_importable(self) -> None:
        """TackRuntimeError (the `missing` message) when a required module is not installed;
        nothing is imported."""
        for module in self.requires:
            try:
                found = importlib.util.find_spec(module) is not None
            except (ImportError, ValueError):  # a parent package that is missing or broken
                found = False
            if not found:
                raise TackRuntimeError(self.missing.format(
                    name=self.name, exc=f"No module named {module!r}"))

    def importable(self) -> bool:
        """Whether `check_importable` passes."""
        try:
            self.check_importable()
        except TackRuntimeError:
            return False
        return True

    def load(self) -> type[Engine]:
        try:
            module = importlib.import_module(self.module)
        except ImportError as exc:
            raise TackRuntimeError(self.missing.format(name=self.name, exc=exc)) from exc
        return getattr(module, self.cls)

    def create(self, arch: str, options: dict) -> Engine:
        return self.load().create(arch, options)


_KINDS: dict[tuple[str, str], EngineKind] = {}
_NAMES: dict[str, EngineKind] = {}  # engine name -> its first kind (for `elsewhere`)


def register(kind: EngineKind) -> EngineKind:
    for arch in kind.capabilities:
        _KINDS[kind.name, arch] = kind
    _NAMES.setdefault(kind.name, kind)
    return kind


def unregister(kind: EngineKind) -> None:
    """Undo `register(kind)`: an engine registered for a while (a test's stand-in for a GPU
    engine) leaves no name, arch or stage behind. A kind registered over another of the same
    name and arch is gone; the other does not come back."""
    for arch in kind.capabilities:
        if _KINDS.get((kind.name, arch)) is kind:
            del _KINDS[kind.name, arch]
    if _NAMES.get(kind.name) is kind:
        del _NAMES[kind.name]
        rest = [k for (name, _), k in _KINDS.items() if name == kind.name]
        if rest:
            _NAMES[kind.name] = rest[0]


def engine_names() -> tuple[str, ...]:
    return tuple(_NAMES)


def stage_names() -> tuple[str, ...]:
    """Every stage some registered engine shows: the modes `tack.inspect` knows."""
    return tuple(dict.fromkeys(s for kind in _KINDS.values() for s in kind.stages))


def shown_by(stage: str) -> list[tuple[str, str]]:
    """(engine name, arch) of every registered kind that shows `stage`."""
    return [key for key, kind in _KINDS.items() if stage in kind.stages]


def targets(name: str) -> tuple[str, ...]:
    """The arches engine `name` targets, in registration order (its first kind's first)."""
    return tuple(dict.fromkeys(arch for (n, arch) in _KINDS if n == name))


def find(name: str, arch: str) -> EngineKind:
    """The kind of engine `name` on `arch`; TackRuntimeError if that engine does not target it."""
    kind = _KINDS.get((name, arch))
    if kind is None:
        first = _NAMES.get(name)
        if first is None:
            raise TackValueError(f"Unknown engine: {name!r}. Available: {', '.join(_NAMES)}")
        raise TackRuntimeError(first.elsewhere.format(name=name, arch=arch))
    return kind


# ---- the engines -------------------------------------------------------------------------------
# Local arrays on the native CPU engine: beyond 16 KiB they live in a heap frame, one per entry
# call on its thread (passes/frames.py), so their size is bounded by memory, not by a thread's
# stack; 1 GiB per iteration is the sane bound beyond which a kernel is refused.
CPU_LOCAL_BYTES = 1 << 30
_NATIVE_ELSEWHERE = ("Cannot initialize '{arch}' backend: Tack's native engine does not target "
                     "it; use set_default_device({arch!r}, engine='julia') with Julia and the "
                     "matching GPU package installed")

NATIVE_CPU = register(EngineKind(
    "native", "tack.runtime.cpu.engine", "CPUEngine",
    {"cpu": Capabilities(workgroups=False, takes_pointers=True, host_memory=True,
                         local_bytes=CPU_LOCAL_BYTES, wgmma=False)},
    ("ir", "source", "optimized"), elsewhere=_NATIVE_ELSEWHERE,
    files={"ir": "ir.txt", "source": "ll", "optimized": "opt.ll"}, records=True))

NATIVE_CUDA = register(EngineKind(
    "native", "tack.runtime.cuda.engine", "CUDAEngine",
    {"cuda": Capabilities(workgroups=True, takes_pointers=True, host_memory=False,
                          library_math=False, tensor_cores=True, register_warps=True)},
    ("ir", "source", "resources", "sass"),  # runtime/cuda/inspect.py: the last two
    missing="Cannot initialize 'cuda' backend: missing dependency. Install the CUDA extra: "
            "pip install '.[cuda]' in a clone of Tack ({exc})",
    refusal="inspect mode {mode!r} is CPU only: the {arch} engine shows {modes}",
    elsewhere=_NATIVE_ELSEWHERE, requires=("cuda.bindings",), start_on_select=True,
    files={"ir": "ir.txt", "source": "ptx", "resources": "resources.json", "sass": "sass"}))


def _julia(arch: str) -> Capabilities:
    """KernelAbstractions runs workgroups on every backend, its CPU one included. Float64 is
    refused where `KernelAbstractions.supports_float64` is false (Metal, and oneAPI on every
    device: docs/design/003-julia-rendering.md), asked at compile; Metal has 32-bit atomics only
    (https://github.com/JuliaConcurrent/Atomix.jl/blob/main/ext/AtomixMetalExt.jl), and CUDA
    and Metal none narrower than 32 bits (Atomix's CUDA and Metal extensions call
    `CUDA.atomic_*`/`Metal.atomic_*`, defined for 32- and 64-bit types). On `cpu` it is 8 bits,
    right for KA 0.9's CPU backend (Julia's own atomics) but not for KA 0.10's (PoCL): this table
    is static and the environments admit both releases, so the engine narrows it to 32 at compile
    once it has asked the loaded KA's version (`JuliaEngine._check_atomics`). On GPU devices a
    tack.Array is a Julia array on the backend (runtime/julia/storage.py, docs/julia.md)."""
    return Capabilities(workgroups=True, takes_pointers=False, host_memory=arch == "cpu",
                        f64=arch in ("cpu", "cuda", "hip"),
                        atomic_bits=32 if arch == "metal" else 64,
                        atomic_min_bits=32 if arch in ("cuda", "metal") else 8,
                        library_math=arch == "cpu", mbarriers=False)


JULIA = register(EngineKind(
    "julia", "tack.runtime.julia.engine", "JuliaEngine",
    {arch: _julia(arch) for arch in ("cpu", "cuda", "metal", "hip", "level_zero")},
    ("ir", "source"), files={"ir": "ir.txt", "source": "jl"}))
# Selecting the Julia engine checks nothing: it renders (tack.inspect) without juliacall, and
# Julia with its GPU packages starts at the first compile (seconds), which reports what is missing.


# The simulator (docs/design/008-simulator.md): the GPU execution model on NumPy, on any host.
# `Device("sim")` (Tack's own engine for that arch) and `Device("cpu", engine="sim")`. It runs
# the final IR itself, so its "source" stage is that IR.
_SIM_CAPS = Capabilities(workgroups=True, takes_pointers=False, host_memory=True,
                         tensor_cores=True, register_warps=True)  # its lockstep warps model CUDA's
SIM = register(EngineKind("sim", "tack.runtime.sim.engine", "SimEngine",
                          {"sim": _SIM_CAPS, "cpu": _SIM_CAPS}, ("ir", "source")))
NATIVE_SIM = register(EngineKind("native", SIM.module, SIM.cls, {"sim": _SIM_CAPS}, SIM.stages))
