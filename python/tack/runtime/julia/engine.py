"""The Julia engine: run a specialization as a KernelAbstractions.jl kernel through juliacall.

    eng = JuliaEngine("cpu")            # or "cuda", "metal", "hip", "level_zero"
    k = eng.compile(kir)               # render_julia → evaluated once per distinct source
    k.launch([x, out, 2.5], n)         # arrays: NumPy (C-contiguous); scalars: Python numbers

Julia starts on the first `compile` or, on a GPU device, the first allocation (not at import, not
at construction). It runs in one module `TackJL` per process, which includes
julia/src/TackRuntime.jl. A CPU launch runs on zero-copy views of the NumPy buffers; a GPU launch
of NumPy arrays uploads, runs, synchronizes and downloads the written arrays
(`TackRuntime.launch!`); a GPU device's tack.Arrays are Julia arrays on the backend, launched on
as they are (runtime/julia/storage.py). Every failure to start Julia or a GPU package is a
`RuntimeError` saying what to install; nothing falls back to another engine. See docs/julia.md.
"""
from __future__ import annotations

import dataclasses
import importlib
import json
import os
import re
import sys
import threading
from pathlib import Path

import numpy as np

from ...capabilities import check_atomic_widths
from ...dtypes import bf16, f16, f64
from ...errors import CapabilityError, TackRuntimeError, TackTypeError, TackValueError
from ...ir.nodes import KernelIR
from ...ir.ops import ATOMIC
from ...ir.printer import kernel_str
from ...ir.walk import iter_exprs, iter_stmts
from ...passes.bounds import DBG
from ...render.julia.ka import JL_TYPES, render_julia
from ...render.julia.rewrites import stmt_exprs
from ...render.julia.subgroups import EMULATED, SubGroups, choose_form, ki_shuffle_types
from ..base import Capabilities, Engine, Launchable
from ..host import HostMemory, check_count, host_array, host_scalar
from ..registry import JULIA
from .storage import JuliaBuffer, JuliaStorage

# device → (Julia package, its UUID in Julia's General registry, KernelAbstractions backend
# constructor): docs/julia.md lists what to install for each.
BACKENDS = {
    "cpu": (None, None, "KernelAbstractions.CPU()"),
    "cuda": ("CUDA", "052768ef-5323-5732-b1bb-66c8b64840ba", "CUDA.CUDABackend()"),
    "metal": ("Metal", "dde4c033-4e86-420c-a63e-0dd931031962", "Metal.MetalBackend()"),
    "hip": ("AMDGPU", "21141c5a-9bdb-4563-92ae-f87d6854732e", "AMDGPU.ROCBackend()"),
    "level_zero": ("oneAPI", "8f75cd03-7ff8-4ecb-9b8f-daf728133b1b", "oneAPI.oneAPIBackend()"),
}
# The oldest GPU package versions Tack runs on. Metal.jl: Tack's barrier orders global memory
# too, and KA's `@synchronize` on Metal fences device memory only since 1.6.2 (`KA.__synchronize`
# in https://github.com/JuliaGPU/Metal.jl/blob/main/src/MetalKernels.jl; before, threadgroup only).
MIN_VERSIONS = {"Metal": "1.6.2"}
# Devices whose sub-groups are consecutive local ids, so that a 32- or 64-lane sub-group holds
# whole 32-lane Tack warps (render/julia/subgroups.py). CUDA: "each warp contains threads of
# consecutive, increasing thread IDs with the first warp containing thread 0" (CUDA C++
# Programming Guide, SIMT Architecture,
# https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#simt-architecture). HIP: a
# wavefront's lane ids are computed from the flat thread id ("Lane IDs aren't queried like other
# thread IDs, but are user-calculated", https://rocm.docs.amd.com/projects/HIP/en/docs-6.1.0/
# understand/programming_model_reference.html). OpenCL (PoCL, oneAPI) leaves the mapping of
# work-items to sub-groups to the implementation, and Metal's documentation does not state one.
LINEAR_SUBGROUPS = frozenset({"cuda", "hip"})
# Shipped in the package as tack/jl/TackRuntime.jl (a link to julia/src/ in the repository).
RUNTIME_JL = Path(__file__).resolve().parents[2] / "jl" / "TackRuntime.jl"
_INSTALL = ("Install Julia >= 1.10 (https://julialang.org/install, e.g. juliaup) and put `julia` "
            "on PATH, or set PYTHON_JULIACALL_EXE and PYTHON_JULIACALL_PROJECT; with network "
            "access juliapkg can also download Julia itself. See docs/julia.md.")


def _jl_str(s: str) -> str:
    """A Julia string literal (JSON escapes are Julia escapes; `$` would interpolate)."""
    return json.dumps(s).replace("$", "\\$")


def juliacall_options(environ=os.environ, xoptions=sys._xoptions) -> dict[str, str]:
    """The juliacall options Tack sets before Julia starts, unless the user set them (as
    `PYTHON_JULIACALL_*` or `-X juliacall-*`). Threads: juliacall's own default, `JULIA_NUM_THREADS`
    or 1 (https://github.com/JuliaPy/PythonCall.jl/blob/main/pysrc/juliacall/__init__.py), set
    explicitly. Signals: `yes` when Julia runs more than one thread (juliacall warns of segfaults
    otherwise, same file), else `no`. docs/julia.md, "Installing", says what each costs."""
    out = {}
    threads = xoptions.get("juliacall-threads") or environ.get("PYTHON_JULIACALL_THREADS")
    if threads is None:
        threads = out["PYTHON_JULIACALL_THREADS"] = environ.get("JULIA_NUM_THREADS", "1")
    if xoptions.get("juliacall-handle-signals") is None and \
            environ.get("PYTHON_JULIACALL_HANDLE_SIGNALS") is None:
        out["PYTHON_JULIACALL_HANDLE_SIGNALS"] = "no" if str(threads) == "1" else "yes"
    return out


class _Session:
    """The process's one Julia: the `TackJL` module, the kernels defined in it and the backends.
    Started once; a failure is remembered, so later engines fail the same way at once."""

    _lock = threading.Lock()
    _current: _Session | None = None
    _failure: TackRuntimeError | None = None

    @classmethod
    def get(cls) -> _Session:
        with cls._lock:
            if cls._failure is not None:
                raise cls._failure
            if cls._current is None:
                try:
                    cls._current = cls()
                except TackRuntimeError as exc:
                    cls._failure = exc
                    raise
            return cls._current

    def __init__(self):
        os.environ.update(juliacall_options())  # read by juliacall when Julia starts
        try:
            juliacall = importlib.import_module("juliacall")
        except ImportError as exc:
            raise TackRuntimeError(
                "Cannot initialize the Julia engine: missing dependency juliacall. Install it with "
                f"pip install '.[julia]' in a clone of Tack (or pip install juliacall). {_INSTALL}"
            ) from exc
        except Exception as exc:  # juliapkg could not find or download Julia, or Julia failed
            raise TackRuntimeError(
                f"Cannot initialize the Julia engine: starting Julia through juliacall failed "
                f"({type(exc).__name__}: {exc}). {_INSTALL}") from exc
        if not RUNTIME_JL.is_file():
            raise TackRuntimeError(f"Cannot initialize the Julia engine: {RUNTIME_JL} is missing "
                                   "(Tack's Julia runtime ships with the source tree)")
        try:
            self.error_type = getattr(juliacall, "JuliaError", Exception)
            self.jl = juliacall.newmodule("TackJL")
            self.jl.seval("import KernelAbstractions; using KernelAbstractions")
            self.jl.seval(f"Base.include(@__MODULE__, {_jl_str(str(RUNTIME_JL))})")
            self.jl.seval("using .TackRuntime")
            self.launch = self.jl.seval("TackRuntime.launch!")
        except Exception as exc:  # a Julia error (any type): wrapped once, with its cause
            raise TackRuntimeError(
                "Cannot initialize the Julia engine: loading KernelAbstractions.jl and Tack's "
                f"runtime failed ({exc}). Tack's Julia dependencies (KernelAbstractions, Atomix, "
                "StaticArrays, BFloat16s) are declared in tack/juliapkg.json; juliapkg installs "
                "them on first import of juliacall, and an environment of your own "
                "(PYTHON_JULIACALL_PROJECT) needs them too.") from exc
        self.kernels: dict[str, object] = {}  # Julia source → kernel constructor
        self.backends: dict[str, object] = {}
        self._ka_version: tuple[int, ...] | None = None
        self._subgroups: dict[str, SubGroups | None] = {}  # device → its sub-groups
        self._half: dict[tuple[str, str], str] = {}  # (device, Julia type) → why not, or ""

    @property
    def ka_pocl(self) -> bool:
        """Whether the loaded KernelAbstractions is 0.10 or later, whose CPU backend compiles
        kernels to SPIR-V and runs them on PoCL (docs/julia.md)."""
        return self.ka_version[:2] >= (0, 10)

    @property
    def ka_version(self) -> tuple[int, ...]:
        """The loaded KernelAbstractions' (major, minor, patch), asked once."""
        if self._ka_version is None:
            text = str(self.jl.seval("TackRuntime.tk_ka_version()"))
            self._ka_version = _release(text)
        return self._ka_version

    def subgroups(self, device: str, backend) -> SubGroups | None:
        """The sub-groups of `device` as KernelAbstractions reports them
        (`TackRuntime.tk_subgroups`), None where it has no sub-group functions; asked once per
        device, and only on KA 0.10 or later."""
        if device not in self._subgroups:
            answer = ""
            if self.ka_version[:2] >= (0, 10):
                answer = str(self.jl.seval("TackRuntime.tk_subgroups")(backend))
            words = answer.split()
            self._subgroups[device] = SubGroups(
                int(words[0]), device in LINEAR_SUBGROUPS, frozenset(words[1:])) if words \
                else None
        return self._subgroups[device]

    def half_refusal(self, device: str, backend, jl_type: str) -> str:
        """Why `device` cannot run kernels in the half type `jl_type` (`Float16`,
        `TkBFloat16`), or "" where it can: TackRuntime's probe kernel, run once per device and
        type (KA has no query for it, as it has `supports_float64`)."""
        key = (device, jl_type)
        if key not in self._half:
            probe = self.jl.seval(f"b -> TackRuntime.tk_half_probe(b, {jl_type})")
            self._half[key] = str(probe(backend))
        return self._half[key]

    def backend(self, device: str):
        if device not in self.backends:
            pkg, uuid, ctor = BACKENDS[device]
            if pkg is not None:
                self._load_gpu_package(device, pkg, uuid)
            self.backends[device] = self.jl.seval(ctor)
        return self.backends[device]

    def _load_gpu_package(self, device: str, pkg: str, uuid: str) -> None:
        where = f"Cannot initialize '{device}' on the Julia engine"
        if not self.jl.seval(f'Base.find_package("{pkg}") !== nothing'):
            raise TackRuntimeError(
                f"{where}: the Julia package {pkg}.jl is not installed in juliacall's "
                f"environment. Install it with: python -c \"import juliapkg; "
                f"juliapkg.add('{pkg}', '{uuid}'); juliapkg.resolve()\"")
        try:
            self.jl.seval(f"import {pkg}")
            ok = bool(self.jl.seval(f"{pkg}.functional()"))
        except Exception as exc:  # a Julia error (any type): wrapped once, with its cause
            raise TackRuntimeError(f"{where}: loading {pkg}.jl failed ({exc})") from exc
        if not ok:
            raise TackRuntimeError(f"{where}: {pkg}.jl is installed but {pkg}.functional() is "
                                   "false (no usable device or driver on this machine)")
        low = MIN_VERSIONS.get(pkg)
        if low and not self.jl.seval(f'Base.pkgversion({pkg}) >= v"{low}"'):
            have = self.jl.seval(f"string(Base.pkgversion({pkg}))")
            raise TackRuntimeError(f"{where}: {pkg}.jl {have} is older than {low}, which "
                                   "Tack's barriers need (docs/julia.md). "
                                   f"Update it with: python -c \"import juliapkg; juliapkg.add("
                                   f"'{pkg}', '{uuid}', version='{low}'); juliapkg.resolve()\"")

    def define(self, source: str):
        """The kernel constructor of `source`, evaluated the first time only: evaluating a
        `@kernel` again would redefine its constructor, and render/julia/ka.py names each kernel
        uniquely per source, so one source is one definition."""
        fn = self.kernels.get(source)
        if fn is None:
            name = re.search(r"@kernel function (\w+)\(", source).group(1)
            self.jl.seval(source)
            fn = self.kernels[source] = self.jl.seval(name)
        return fn


class JuliaEngine(Engine):
    """Runs kernels as KernelAbstractions.jl kernels on one KA backend. On KA's CPU backend
    arrays are host memory and launches return finished; on a GPU backend tack.Arrays are
    device memory and their launches are queued until `sync` or the next download."""

    stages = JULIA.stages

    def __init__(self, device: str = "cpu"):
        if device not in BACKENDS:
            raise TackValueError(f"Unknown device for the Julia engine: {device!r}. Available: "
                                 f"{', '.join(BACKENDS)}")
        self.device = device
        self._backend = self._backend_of = None  # the KA backend, and the session it is of
        self._store: JuliaStorage | None = None  # a GPU device's tack.Array memory

    @classmethod
    def create(cls, arch: str, options: dict) -> JuliaEngine:
        if options.get("index", 0):
            raise TackValueError(
                f"The Julia engine runs on the current device of its backend only: "
                f"'{arch}:{options['index']}' is not supported (use '{arch}' and choose the GPU "
                "in Julia, e.g. CUDA.device!, or with CUDA_VISIBLE_DEVICES)")
        return cls(arch)

    @property
    def capabilities(self) -> Capabilities:
        return JULIA.capabilities[self.device]

    # ---- storage: host memory on KA's CPU backend, device memory on a GPU backend ------------
    # (runtime/julia/storage.py; docs/julia.md, "tack.Arrays on Julia GPU devices")
    def storage(self) -> HostMemory | JuliaStorage:
        """Host memory on KA's CPU backend; else this device's memory (Julia starts)."""
        if self.capabilities.host_memory:
            return _HOST
        session = self._session()
        if self._store is None or self._store.session is not session:
            self._store = JuliaStorage(session, self._backend, self.device)
        return self._store

    def alloc(self, nbytes: int):
        return self.storage().alloc(nbytes)

    def upload(self, buf, host) -> None:
        self.storage().upload(buf, host)

    def download(self, buf, out) -> None:
        self.storage().download(buf, out)

    def memset0(self, buf) -> None:
        self.storage().memset0(buf)

    def copy(self, dst, src, nbytes: int) -> None:
        self.storage().copy(dst, src, nbytes)

    def adopt(self, ptr: int, nbytes: int, owner):
        if not self.capabilities.host_memory:
            raise TackRuntimeError(f"The Julia engine's '{self.device}' device cannot share "
                                   "foreign memory (DLPack); copy it with tack.array(...)")
        return _HOST.adopt(ptr, nbytes, owner)

    def stage(self, kir: KernelIR, name: str) -> str:
        """"ir", or "source": the KernelAbstractions.jl source (Julia does not start)."""
        return kernel_str(kir) if name == "ir" else render_julia(kir)

    def _session(self) -> _Session:
        session = _Session.get()
        if self._backend is None or self._backend_of is not session:
            self._backend, self._backend_of = session.backend(self.device), session
        return session

    def compile(self, kir: KernelIR) -> JuliaKernel:
        session = self._session()
        self._check_f64(session, kir)
        self._check_half(session, kir)
        self._check_atomics(kir)
        source = render_julia(kir, self._form(session, kir))
        try:
            fn = session.define(source)
        except Exception as exc:  # a Julia error (any type): wrapped once, with its cause
            raise TackRuntimeError(f"Kernel '{kir.name}' failed to compile on julia:{self.device}:"
                                   f" {exc}") from exc
        return JuliaKernel(self, kir, fn, source)

    def _form(self, session: _Session, kir: KernelIR) -> str:
        """Which text of `kir` runs here: its KI form where KernelAbstractions and the backend
        have the sub-group functions it calls, else the `@localmem` emulation
        (render/julia/subgroups.py, `choose_form`). Julia is asked only for a kernel whose
        texts differ."""
        needs = frozenset(JL_TYPES[t] for t in ki_shuffle_types(kir))
        if not needs:
            return EMULATED  # the two texts are the same
        return choose_form(session.ka_version, session.subgroups(self.device, self._backend),
                           needs)

    def _check_f64(self, session: _Session, kir: KernelIR) -> None:
        """Metal and oneAPI (every device) have no Float64 (KA.supports_float64): refuse before
        rendering where the backend says so."""
        if self.capabilities.f64 or f64 not in _dtypes_used(kir):
            return
        if not bool(session.jl.seval("KernelAbstractions.supports_float64")(self._backend)):
            raise TackTypeError(f"Kernel '{kir.name}' uses tack.f64, which the Julia engine's "
                                f"'{self.device}' device does not support")

    def _check_half(self, session: _Session, kir: KernelIR) -> None:
        """A kernel using f16 or bf16 is refused before it compiles where the backend fails
        TackRuntime's probe kernel in that type (docs/julia.md, "Half precision")."""
        used = _dtypes_used(kir)
        for t in (x for x in (f16, bf16) if x in used):
            why = session.half_refusal(self.device, self._backend, JL_TYPES[t])
            if why:
                raise CapabilityError(
                    f"Kernel '{kir.name}' uses tack.{t.name}, which the Julia engine's "
                    f"'{self.device}' device cannot run: a probe kernel in {JL_TYPES[t]} "
                    f"failed there ({why})")

    def _check_atomics(self, kir: KernelIR) -> None:
        """Metal has 32-bit atomics only (Atomix's Metal extension,
        https://github.com/JuliaConcurrent/Atomix.jl/blob/main/ext/AtomixMetalExt.jl); debug
        kernels count skipped accesses in an i64 array, so they need 64-bit ones too."""
        bits = self.capabilities.atomic_bits
        for x in (x for s in iter_stmts(kir.body) for x in stmt_exprs(s)):
            if x.op in ATOMIC and x.dtype.bits > bits:
                what = "debug mode's i64 counters" if x.arg == DBG else \
                    f"an atomic on the {x.dtype.name} array '{x.arg}'"
                raise TackTypeError(f"Kernel '{kir.name}': {what} need 64-bit atomics, which "
                                    "the Julia engine's 'metal' device lacks")
        caps, where = self.capabilities, f"julia:{self.device}"
        narrow = any(x.op in ATOMIC and x.dtype.bits < 32
                     for s in iter_stmts(kir.body) for x in stmt_exprs(s))
        if narrow and self.device == "cpu" and self._session().ka_pocl:
            # PoCL runs OpenCL/SPIR-V atomics, which are 32- and 64-bit; Atomix's 8- and 16-bit
            # ones there have not been shown to work, so they are refused.
            caps = dataclasses.replace(caps, atomic_min_bits=32)
            where = "julia:cpu under KernelAbstractions 0.10 (PoCL)"
        check_atomic_widths(kir, caps, where)  # CUDA, Metal, KA 0.10's CPU: >= 32 bits

    def sync(self) -> None:
        """Wait for launches on device-resident arrays (`launch!` of NumPy arrays returns
        finished, so a device that has held no tack.Array has nothing to wait for; nor has one
        whose Julia session has ended)."""
        if self._store is not None and self._store.session is _Session._current:
            self._store.sync()


_HOST = HostMemory()


def _release(version: str) -> tuple[int, ...]:
    """(major, minor, patch) of a Julia version string ("0.10.0-dev" → (0, 10, 0))."""
    core = re.match(r"(\d+)\.(\d+)\.(\d+)", version.strip())
    if core is None:
        raise TackRuntimeError(f"Cannot read the KernelAbstractions version {version!r}")
    return tuple(int(x) for x in core.groups())


def _dtypes_used(kir: KernelIR) -> set:
    """The scalar dtypes of `kir`'s parameters, locals, scratch arrays and expressions."""
    types = {p.dtype for p in kir.params} | set(kir.locals.values())
    types |= {sc.dtype for sc in kir.scratch.values()}
    for s in iter_stmts(kir.body):
        for name in ("value", "cond", "start", "stop"):
            if getattr(s, name, None) is not None:
                types |= {x.dtype for x in iter_exprs(getattr(s, name))}
    return {getattr(t, "elem", t) for t in types if t is not None}


class JuliaKernel(Launchable):
    """One compiled specialization. `launch(args, n)`: args in `kir.params` order."""

    def __init__(self, engine: JuliaEngine, kir: KernelIR, fn, source: str):
        self.engine, self.name, self.params, self.fn = engine, kir.name, kir.params, fn
        self.source = source
        # TackRuntime.launch!'s flags: bit 0 written, bit 1 a bf16 array passed as its bits
        self.written = np.array([(p.kind == "array" and p.written)
                                 | 2 * (p.kind == "array" and p.dtype is bf16)
                                 for p in kir.params], np.uint8)

    def launch(self, args, n: int) -> None:
        """NumPy arrays: `TackRuntime.launch!` (in place on the CPU, uploaded and downloaded on
        a GPU; returns finished). Device arrays (`JuliaBuffer`s of a GPU device's tack.Arrays):
        `launch_resident!`, no copy, queued until the engine's `sync` or the next download."""
        check_count(self.name, self.params, args)
        arrays = [_unwrap(a) for p, a in zip(self.params, args) if p.kind == "array"]
        resident = [isinstance(b, JuliaBuffer) for b, _ in arrays]
        if any(resident):
            return self._launch_resident(args, n, all(resident))
        values = [self._array(p, a) if p.kind == "array" else self._scalar(p, a)
                  for p, a in zip(self.params, args)]
        if n <= 0:
            return None
        session = self.engine._session()
        try:
            session.launch(self.fn, self.engine._backend, np.int64(n), self.written, *values)
        except Exception as exc:  # a Julia error (any type): wrapped once, with its cause
            raise TackRuntimeError(f"Kernel '{self.name}' failed on julia:{self.engine.device}: "
                                   f"{exc}") from exc
        return None

    def _launch_resident(self, args, n: int, every: bool) -> None:
        if not every:
            raise TackValueError(f"Kernel '{self.name}': its arrays are all NumPy arrays or all "
                                 f"arrays of julia:{self.engine.device}, not a mix; move them "
                                 "with tack.array(..., device=) or a.to(device)")
        store = self.engine.storage()
        values = []
        for p, a in zip(self.params, args):
            if p.kind != "array":
                values.append(self._scalar(p, a))
                continue
            buf, dtype = _unwrap(a)
            if dtype is not None and getattr(dtype, "elem", dtype) != p.dtype:
                raise TackTypeError(f"Kernel '{self.name}': parameter '{p.name}' has dtype "
                                    f"{dtype!r}, but this specialization takes {p.dtype!r}")
            values.append(store.launch_value(self.name, p.name, buf, p.dtype))
        if n > 0:
            store.launch(self.name, self.fn, np.int64(n), values)

    def _array(self, p, a) -> np.ndarray:
        a = host_array(self.name, p, _unwrap(a)[0])
        if p.dtype is bf16:  # its bits: launch! reinterprets them (self.written's bit 1)
            a = a.view(np.uint16)
        return a.reshape(-1)  # a view: the kernel works in the caller's memory

    def _scalar(self, p, v):
        v = host_scalar(self.name, p, v)
        # A Python bool for Bool: PythonCall's rule is named `numpy:bool_`, which NumPy 2's
        # `numpy.bool` does not match, so an np.bool_ would arrive as a 0-d PyArray. Every other
        # scalar is a NumPy scalar of the exact dtype, which juliacall turns into that Julia type
        # (`NUMPY_SIMPLE_TYPES`, https://github.com/JuliaPy/PythonCall.jl/blob/main/src/Convert/
        # numpy.jl), where a Python float would become Float64.
        return bool(v) if p.dtype.kind == "b" else v


def _unwrap(a) -> tuple:
    """(buffer, dtype or None) of a launch value: a direct caller may hand over a tack.Array
    (its NumPy array on the CPU, its JuliaBuffer on a GPU device) instead of its buffer."""
    host = getattr(a, "_host", None)
    if host is not None:
        return host, None
    buf = getattr(a, "_buf", None)
    return (a, None) if buf is None else (buf, getattr(a, "dtype", None))
