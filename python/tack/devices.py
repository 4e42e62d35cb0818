"""Devices: which engine runs kernels and where arrays live.

A `Device` names a backend ("cpu", "cuda", ...) and an engine ("native" — Tack's own LLVM code
generator — or "julia" — KernelAbstractions.jl through juliacall). Its engine kind comes from
runtime.registry, which answers what the engine can run (`capabilities`, `stages`) before it
starts; the engine itself is created lazily, so `import tack` loads no compiler, GPU library or
Julia.
"""
from __future__ import annotations

import os
import threading

from . import dtypes as dt
from .errors import TackTypeError, TackValueError
from .runtime import registry
from .runtime.base import Capabilities, Engine
from .runtime.cpu_threads import check_num_threads

ARCHES = ("cpu", "cuda", "hip", "level_zero", "metal", "sim")
_OPTIONS = {"cpu": {"num_threads"}}
_SINGLE = ("cpu", "sim")  # architectures with one device: an index above 0 names none


class Device:
    """One backend instance. Arrays remember the device that allocated them."""

    def __init__(self, arch: str, engine: str = "native", **options):
        self.arch, self.engine_name, self.options = arch, engine, options
        self._engine = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        extra = "" if self.engine_name == "native" else f", engine={self.engine_name!r}"
        return f"tack.Device({self.arch!r}{extra})"

    @property
    def kind(self) -> registry.EngineKind:
        """The registered engine for this arch (TackRuntimeError if the engine does not
        target it)."""
        return registry.find(self.engine_name, self.arch)

    @property
    def capabilities(self) -> Capabilities:
        """What this device's engine can run, known without starting it."""
        return self.kind.capabilities[self.arch]

    @property
    def stages(self) -> tuple[str, ...]:
        """What `tack.inspect` can show for this device."""
        return self.kind.stages

    # ---- the public capability query: portable code branches on these, not on names ---------
    @property
    def name(self) -> str:
        """The device's name as `tack.device` takes it: "cpu", "cuda", "cuda:1"."""
        index = self.options.get("index", 0)
        return f"{self.arch}:{index}" if index else self.arch

    @property
    def supports_workgroups(self) -> bool:
        """Barriers, `tack.shared`, `thread_id` and block reductions run here."""
        return self.capabilities.workgroups

    @property
    def supports_f64(self) -> bool:
        """f64 kernels run here (False: the engine may refuse them, asking its device)."""
        return self.capabilities.f64

    @property
    def supported_atomic_dtypes(self) -> tuple[dt.DType, ...]:
        """The element dtypes `tack.atomic_add/min/max` may update here."""
        bits = self.capabilities.atomic_bits
        return tuple(d for d in dt.STORAGE if d.bits <= bits)

    @property
    def is_host(self) -> bool:
        """Arrays of this device are plain host memory."""
        return self.capabilities.host_memory

    @property
    def label(self) -> str:
        return {"cpu": "CPUBackend", "cuda": "CUDABackend"}.get(self.arch, self.arch)

    @property
    def engine(self) -> Engine:
        if self._engine is None:
            with self._lock:
                if self._engine is None:
                    self._engine = self.kind.create(self.arch, self.options)
        return self._engine


_global = {"device": None, "debug": os.environ.get("TACK_DEBUG", "").strip().lower()
           in ("1", "true", "yes", "on"),  # TACK_DEBUG is read once, at import
           "intercept": None}  # tack.check's session: every kernel call goes to it instead


def set_debug(flag: bool = True) -> None:
    """Debug mode: every array index is checked; an out-of-bounds access is skipped and the call
    raises IndexError naming it. Debug kernels are separate specializations. `flag` is a bool
    (or 0/1); a string is refused, since `set_debug("false")` would otherwise turn it on."""
    if not _is_flag(flag):
        raise TackTypeError(f"tack.set_debug takes True or False, got {flag!r} (the environment "
                            "variable TACK_DEBUG=1 sets it from a shell)")
    _global["debug"] = bool(flag)


def _is_flag(v) -> bool:
    """True, False, 0, 1 or a NumPy bool; not a string, None or anything else."""
    if isinstance(v, (str, bytes)) or not hasattr(v, "__index__") and not hasattr(v, "__bool__"):
        return False
    try:
        return bool(v in (True, False))
    except (TypeError, ValueError):  # an array: ambiguous
        return False


def _parse_name(name: str) -> tuple[str, int]:
    if not isinstance(name, str):
        raise TackValueError(f"A device name is a string such as 'cpu' or 'cuda', got {name!r}")
    arch, _, idx = name.partition(":")
    if arch not in ARCHES:
        raise TackValueError(f"Unknown architecture: {name!r}. Available: {', '.join(ARCHES)}")
    if idx and not idx.isdigit():
        raise TackValueError(f"Bad device index in {name!r}: write e.g. 'cuda:1'")
    return arch, int(idx or 0)


def make_device(name: str, engine: str | None = None, **options) -> Device:
    arch, index = _parse_name(name)
    engine = engine or os.environ.get("TACK_ENGINE") or "native"
    names = registry.engine_names()
    if engine not in names:
        raise TackValueError(f"Unknown engine: {engine!r}. Available: {', '.join(names)}")
    allowed = _OPTIONS.get(arch, set())
    bad = sorted(set(options) - allowed)
    if bad:
        acc = ", ".join(sorted(allowed)) or "none"
        raise TackValueError(f"The '{arch}' backend does not accept the option(s) "
                             f"{', '.join(bad)}. Accepted: {acc}.")
    if "num_threads" in options:
        n = options["num_threads"]
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise TackValueError(f"num_threads must be a positive integer, got {n!r}")
        check_num_threads(n)
    if index and arch in _SINGLE:
        raise TackValueError(f"{name!r} names no device: there is one {arch} device, "
                             f"'{arch}' (also '{arch}:0')")
    if index:
        options["index"] = index
    registry.find(engine, arch)  # an engine that does not target the arch fails here
    return Device(arch, engine, **options)


_devices: dict = {}


def _shared(dev: Device) -> Device:
    """One `Device` per (arch, engine, options), so arrays of a device stay usable with it."""
    key = (dev.arch, dev.engine_name, tuple(sorted(dev.options.items())))
    return _devices.setdefault(key, dev)


def device(name: str = "cpu", engine: str | None = None, **options) -> Device:
    """The device `name` (as `set_default_device` takes it), without selecting it or starting
    its engine: its capabilities (`supports_workgroups`, `supports_f64`,
    `supported_atomic_dtypes`) come from the engine registry."""
    return _shared(make_device(name, engine, **options))


def set_default_device(name: str, engine: str | None = None, **options) -> Device:
    """Select the device later kernel calls and allocations use. A rejected call changes nothing.

    A backend that cannot run here fails now, naming what is missing (an engine that does not
    target the arch, a module that is not installed; the native CUDA engine starts, so a missing
    driver or device fails too), so portable code can probe backends in a `try`.
    Asking again for the same device returns the same `Device`, so its arrays stay usable."""
    dev = make_device(name, engine, **options)
    dev.kind.check_importable()
    dev = _shared(dev)
    if dev.kind.start_on_select:
        dev.engine  # noqa: B018 - started for its errors; kept for the first call
    _global["device"] = dev
    return dev


def default_device() -> Device:
    """The device kernel calls and allocations use now (the CPU until one is selected)."""
    dev = _global["device"]
    if dev is None:
        dev = _global["device"] = _shared(make_device("cpu"))
    return dev


def sync(device: Device | None = None) -> None:
    """Wait for queued work on a device (the CPU's kernel calls return finished)."""
    dev = device or _global["device"]
    if dev is not None and dev._engine is not None:  # an engine never started has no work
        dev._engine.sync()
