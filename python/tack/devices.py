"""Devices: which engine runs kernels and where arrays live.

A `Device` names a backend ("cpu", "cuda", ...) and an engine ("native" — Tack's own LLVM code
generator — or "julia" — KernelAbstractions.jl through juliacall). Engines are created lazily, so
`import tack` loads no compiler, GPU library or Julia.
"""
from __future__ import annotations

import os
import threading

from .errors import TackRuntimeError, TackValueError

ARCHES = ("cpu", "cuda", "hip", "level_zero", "metal")
ENGINES = ("native", "julia")
_OPTIONS = {"cpu": {"num_threads"}}


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
    def is_host(self) -> bool:
        """Arrays of this device are plain host memory."""
        return self.arch == "cpu"

    @property
    def label(self) -> str:
        return {"cpu": "CPUBackend", "cuda": "CUDABackend"}.get(self.arch, self.arch)

    @property
    def engine(self):
        if self._engine is None:
            with self._lock:
                if self._engine is None:
                    self._engine = self._make_engine()
        return self._engine

    def _make_engine(self):
        if self.engine_name == "julia":
            try:
                from .runtime.julia import JuliaEngine
            except ImportError as exc:  # pragma: no cover - depends on the julia helper module
                raise TackRuntimeError(f"Cannot initialize the Julia engine: {exc}") from exc
            return JuliaEngine(self.arch)
        if self.arch == "cpu":
            from .runtime.cpu import CPUEngine

            n = self.options.get("num_threads")
            return CPUEngine(num_threads=n)  # None: TACK_CPU_THREADS, else every core
        if self.arch == "cuda":
            try:
                from .runtime.cuda import CUDAEngine
            except ImportError as exc:
                raise TackRuntimeError(
                    "Cannot initialize 'cuda' backend: missing dependency. Install the CUDA extra: "
                    f"pip install 'tack-kernels[cuda]' ({exc})") from exc
            return CUDAEngine(self.options.get("index", 0))
        raise TackRuntimeError(
            f"Cannot initialize '{self.arch}' backend: Tack's native engine does not target it; "
            f"use set_default_device({self.arch!r}, engine='julia') with Julia and the matching "
            "GPU package installed")


_state = threading.local()
_global = {"device": None, "debug": os.environ.get("TACK_DEBUG", "").strip().lower()
           in ("1", "true", "yes", "on")}  # TACK_DEBUG is read once, at import


def set_debug(flag: bool = True) -> None:
    """Debug mode: every array index is checked; an out-of-bounds access is skipped and the call
    raises IndexError naming it. Debug kernels are separate specializations."""
    _global["debug"] = bool(flag)


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
    if engine not in ENGINES:
        raise TackValueError(f"Unknown engine: {engine!r}. Available: {', '.join(ENGINES)}")
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
    if index:
        options["index"] = index
    return Device(arch, engine, **options)


_devices: dict = {}


def set_default_device(name: str, engine: str | None = None, **options) -> Device:
    """Select the device later kernel calls and allocations use. A rejected call changes nothing.

    Asking again for the same device returns the same `Device`, so its arrays stay usable."""
    dev = make_device(name, engine, **options)
    key = (dev.arch, dev.engine_name, tuple(sorted(dev.options.items())))
    dev = _devices.setdefault(key, dev)
    _global["device"] = dev
    return dev


def default_device() -> Device:
    dev = _global["device"]
    if dev is None:
        dev = _global["device"] = make_device("cpu")
    return dev


def sync(device: Device | None = None) -> None:
    """Wait for queued work on a device (the CPU's kernel calls return finished)."""
    dev = device or _global["device"]
    if dev is not None and dev._engine is not None and hasattr(dev._engine, "sync"):
        dev._engine.sync()
