"""Devices: which engine runs kernels and where arrays live.

A `Device` names a backend ("cpu", "cuda", ...) and an engine ("native" — Tack's own LLVM code
generator — or "julia" — KernelAbstractions.jl through juliacall). Its engine kind comes from
runtime.registry, which answers what the engine can run (`capabilities`, `stages`) before it
starts; the engine itself is created lazily, so `import tack` loads no compiler, GPU library or
Julia.
"""
from __future__ import annotations

import contextvars
import functools
import os
import sys
import threading
import types
import weakref

from . import dtypes as dt
from .errors import TackRuntimeError, TackTypeError, TackValueError
from .runtime import registry
from .runtime.base import Capabilities, Engine
from .runtime.cpu.threads import check_num_threads

ARCHES = ("cpu", "cuda", "hip", "level_zero", "metal", "sim")
_INDEXED = ("cuda", "hip", "level_zero", "metal", "sim")  # arches with several devices
# sim's `sm`: the GPU whose library kernels tack.ops takes on the simulator (SimEngine.sm)
_OPTIONS = {"cpu": {"num_threads"}, "sim": {"sm"}}
SIM_SM = (80, 90)
_SINGLE = ("cpu",)  # architectures with one device: an index above 0 names none


class Device:
    """One backend instance. Arrays remember the device that allocated them."""

    def __init__(self, arch: str, engine: str = "native", **options):
        self.arch, self.engine_name, self.options = arch, engine, options
        self._engine = None
        self._lock = threading.Lock()

    @property
    def _key(self) -> tuple:
        return (self.arch, self.engine_name, tuple(sorted(self.options.items())))

    def __eq__(self, other) -> bool:
        return isinstance(other, Device) and self._key == other._key

    def __hash__(self) -> int:
        return hash(self._key)

    def __repr__(self) -> str:
        opts = {k: v for k, v in self.options.items() if k != "index"}
        extra = "" if self.engine_name == "native" else f", engine={self.engine_name!r}"
        extra += "".join(f", {k}={v!r}" for k, v in sorted(opts.items()))
        name = f"{self.arch}:{self.index}" if self.arch in _INDEXED else self.arch
        return f"tack.device({name!r}{extra})"

    # ---- `with tack.device("cuda:1"):` the current device of this thread, for a block --------
    # A Device is shared (one per name and options), so the block, not the Device, is what is
    # entered: each `__enter__` pushes an entry on the entering thread's stack, naming the
    # frame that runs the `with`, and `__exit__` removes the entry of the frame it is called
    # from, from the stack it was pushed on. So a block that ends on another thread (a
    # generator suspended inside it and closed there) ends where it began, and neither thread's
    # other blocks change.
    def __enter__(self):  # -> this Device
        self.kind.check_importable()
        stack = _scoped_stack()
        frame = sys._getframe(1)
        with _scope_lock:
            stack.append(_Scope(self, id(frame), frame.f_code, stack))
            _global["scoped"] += 1
        return self

    def __exit__(self, *exc) -> None:
        frame, mine = sys._getframe(1), _scoped_stack()
        with _scope_lock:
            scope = _scope_of(self, id(frame), frame.f_code, mine)
            if scope is None:
                raise TackRuntimeError(
                    f"{self!r}: a `with` block exited on a thread that has no open block of "
                    "this device and from a frame that entered none (enter and exit each "
                    "block once, in the same function)")
            scope.stack.remove(scope)
            _global["scoped"] -= 1

    @property
    def index(self) -> int:
        """The device's number among those of its arch (0 for the CPU)."""
        return self.options.get("index", 0)

    @property
    def place(self) -> str:
        """Where its arrays live: "host" for the CPU's memory (it serves every host device),
        else the device's own memory, named as `tack.device` takes it ("cuda:1", "sim:0").
        Another engine's device memory is its own place ("cuda:0 julia"): the Julia engine's
        arrays are Julia arrays, which the native CUDA engine cannot take, nor it Tack's."""
        if self.arch == "cpu":
            return "host"
        place = f"{self.arch}:{self.index}"
        return place if self.engine_name == "native" or self.is_host else \
            f"{place} {self.engine_name}"

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
        return f"{self.arch}:{self.index}" if self.index else self.arch

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
        caps = self.capabilities  # the widths capabilities.check_atomic_widths accepts
        return tuple(d for d in dt.STORAGE if caps.atomic_min_bits <= d.bits <= caps.atomic_bits
                     and not d.is_half)  # no engine has half atomics (frontend/typing/memory.py)

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


_global = {"device": None, "scoped": 0,  # scoped: `with device` blocks open in any thread
           "debug": os.environ.get("TACK_DEBUG", "").strip().lower()
           in ("1", "true", "yes", "on"),  # TACK_DEBUG is read once, at import
           "intercept": None,  # tack.check's session: every kernel call goes to it instead
           # deterministic mode (`set_deterministic`; TACK_DETERMINISTIC is read once, at
           # import), and the `with tack.deterministic(True)` blocks open in any thread: a
           # prebuilt call path takes the general one while either is set
           "deterministic": os.environ.get("TACK_DETERMINISTIC", "").strip().lower()
           in ("1", "true", "yes", "on"),
           "deterministic_scoped": 0}


_local = threading.local()  # .stack: this thread's `with device` blocks (`_Scope`s)
_scope_lock = threading.Lock()
_stacks: weakref.WeakSet = weakref.WeakSet()  # every thread's stack, while the thread lives


class _Scope:
    """One open `with device` block: the device, the frame that entered it (its id and code:
    holding the frame itself would keep a suspended generator alive), the stack it is on."""

    __slots__ = ("code", "device", "frame", "stack")

    def __init__(self, device: Device, frame: int, code, stack: list):
        self.device, self.frame, self.code, self.stack = device, frame, code, stack

    def __eq__(self, other) -> bool:  # list.remove: this very block
        return self is other

    __hash__ = object.__hash__


def _scope_of(dev: Device, frame: int, code, mine: list) -> _Scope | None:
    """The open block of `dev` that the frame (id, code) entered, innermost first, on this
    thread's stack, then on the others'; else this thread's innermost block of `dev` (a block
    entered and exited through a helper such as contextlib.ExitStack); `mine` is this
    thread's stack. Under `_scope_lock`."""
    for stack in [mine, *(s for s in _stacks if s is not mine)]:
        for scope in reversed(stack):
            if scope.device is dev and scope.frame == frame and scope.code is code:
                return scope
    for scope in reversed(mine):
        if scope.device is dev:
            return scope
    return None


class _Stack(list):
    """A thread's open blocks, innermost last (weakly listed in `_stacks`)."""

    __slots__ = ("__weakref__",)
    __hash__ = object.__hash__  # by identity, for `_stacks`


def _scoped_stack() -> list:
    stack = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = _Stack()
        with _scope_lock:
            _stacks.add(stack)
    return stack


def set_debug(flag: bool = True) -> None:
    """Debug mode: every array index is checked; an out-of-bounds access is skipped and the call
    raises IndexError naming it. Debug kernels are separate specializations. `flag` is a bool
    (or 0/1); a string is refused, since `set_debug("false")` would otherwise turn it on."""
    if not _is_flag(flag):
        raise TackTypeError(f"tack.set_debug takes True or False, got {flag!r} (the environment "
                            "variable TACK_DEBUG=1 sets it from a shell)")
    _global["debug"] = bool(flag)


def debug_mode() -> bool:
    """Whether debug mode is on (`set_debug`, or TACK_DEBUG at import), so code that turns it on
    for a while can put back what it found."""
    return _global["debug"]


# ---- deterministic mode (docs/numerics.md, "Deterministic mode") --------------------------------
# The process-wide setting is `_global["deterministic"]`; a `with tack.deterministic(flag)` block
# overrides it in the context that enters it (a thread, an asyncio task), through a ContextVar.
_deterministic_block: contextvars.ContextVar = contextvars.ContextVar("tack_deterministic",
                                                                      default=None)


def set_deterministic(flag: bool = True) -> None:
    """Deterministic mode for the whole process (as `torch.use_deterministic_algorithms`):
    every kernel, tack.ops and tack.algorithms call then computes the bits the CPU engine
    computes, on every engine (docs/numerics.md, "Deterministic mode"). Its kernels are
    separate specializations. `flag` is a bool (or 0/1), as for `set_debug`."""
    if not _is_flag(flag):
        raise TackTypeError(f"tack.set_deterministic takes True or False, got {flag!r} (the "
                            "environment variable TACK_DETERMINISTIC=1 sets it from a shell)")
    _global["deterministic"] = bool(flag)


def deterministic_mode() -> bool:
    """Whether calls made here run in deterministic mode: the innermost open
    `with tack.deterministic(...)` block's flag, else the process-wide `set_deterministic`."""
    got = _deterministic_block.get()
    return _global["deterministic"] if got is None else got


class deterministic:
    """`with tack.deterministic():` runs the block in deterministic mode (`set_deterministic`)
    in this thread or task only, whatever the process-wide setting; `deterministic(False)` runs
    it in the default mode. `deterministic(None)` leaves the mode as it is (what tack.ops'
    `deterministic=None` keyword does). Blocks nest; each restores what it found."""

    __slots__ = ("flag", "tokens")

    def __init__(self, flag: bool | None = True):
        if flag is not None and not _is_flag(flag):
            raise TackTypeError(f"tack.deterministic takes True, False or None, got {flag!r}")
        self.flag = None if flag is None else bool(flag)
        self.tokens: dict = {}  # thread -> the tokens of its open blocks of this object

    def __enter__(self) -> None:
        mine = self.tokens.setdefault(threading.get_ident(), [])
        if self.flag is None:
            mine.append(None)
            return
        mine.append(_deterministic_block.set(self.flag))
        if self.flag:
            with _scope_lock:
                _global["deterministic_scoped"] += 1

    def __exit__(self, *exc) -> None:
        mine = self.tokens[threading.get_ident()]
        token = mine.pop()
        if not mine:
            del self.tokens[threading.get_ident()]
        if token is None:
            return
        _deterministic_block.reset(token)
        if self.flag:
            with _scope_lock:
                _global["deterministic_scoped"] -= 1


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
    if idx and not (idx.isascii() and idx.isdigit()):  # not '²' or '٣', which int() refuses
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
    if "sm" in options and (isinstance(options["sm"], bool) or options["sm"] not in SIM_SM):
        raise TackValueError(f"sm must be one of {SIM_SM} (the GPU whose library kernels "
                             f"tack.ops takes on the simulator), got {options['sm']!r}")
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


def device(name: str | Device = "cpu", engine: str | None = None, **options) -> Device:
    """The device `name` (as `set_default_device` takes it), without selecting it or starting
    its engine: its capabilities (`supports_workgroups`, `supports_f64`,
    `supported_atomic_dtypes`) come from the engine registry. `with tack.device("cuda:1"):`
    makes it this thread's current device for the block."""
    if isinstance(name, Device):
        return _shared(name)
    return _shared(make_device(name, engine, **options))


def set_default_device(name: str | Device, engine: str | None = None, **options) -> Device:
    """Select the device later kernel calls and allocations use. A rejected call changes nothing.

    A backend that cannot run here fails now, naming what is missing (an engine that does not
    target the arch, a module that is not installed; the native CUDA engine starts, so a missing
    driver or device fails too), so portable code can probe backends in a `try`.
    Asking again for the same device returns the same `Device`, so its arrays stay usable."""
    dev = name if isinstance(name, Device) else make_device(name, engine, **options)
    dev.kind.check_importable()
    dev = _shared(dev)
    if dev.kind.start_on_select:
        dev.engine  # noqa: B018 - started for its errors; kept for the first call
    _global["device"] = dev
    return dev


def default_device() -> Device:
    """The device kernel calls and allocations use now: this thread's innermost `with device`
    block's, else the one `set_default_device` selected (the CPU until one is)."""
    if _global["scoped"]:
        stack = getattr(_local, "stack", None)
        if stack:
            return stack[-1].device
    dev = _global["device"]
    if dev is None:
        dev = _global["device"] = _shared(make_device("cpu"))
    return dev


def devices() -> list[Device]:
    """The devices present: the CPU, then each CUDA GPU the driver lists (none without
    cuda-bindings or a driver). The simulator (`"sim:N"`) and the Julia engine's devices are
    made by name."""
    found = [device("cpu")]
    if registry.NATIVE_CUDA.importable():
        from .runtime.cuda.devices import device_count  # loads the CUDA driver: only when asked

        found += [device(f"cuda:{k}") for k in range(device_count())]
    return found


def started() -> list[Device]:
    """The devices whose engine has started (an engine never started has no work or memory)."""
    return [dev for dev in list(_devices.values()) if dev._engine is not None]


def sync(device: Device | None = None) -> None:
    """Wait for queued work on one device, or (no argument) on every device that has run
    anything (the CPU's kernel calls return finished)."""
    if device is not None:
        if device._engine is not None:  # an engine never started has no work
            device._engine.sync()
        return
    # `started()` without its list, and no call where nothing is queued (`Engine.queues`):
    # `k(...); tack.sync()` is the warm launch bench/cpu.py times
    for dev in tuple(_devices.values()):
        engine = dev._engine
        if engine is not None and engine.queues:
            engine.sync()


# ---- where a kernel call runs ------------------------------------------------------------------
class DeviceMismatchError(TackValueError, TackRuntimeError):
    """A kernel's arguments are on two devices (or on one the current device cannot read)."""


def serves(a: Device, dev: Device) -> bool:
    """Arrays of device `a` may be launch arguments on `dev`."""
    return a is dev or a.place == dev.place or (a.place == "host" and dev.is_host)


def mismatch(name: str, a: Device, b: Device, current: bool = False) -> DeviceMismatchError:
    if current:
        return DeviceMismatchError(
            f"Kernel '{name}': an argument array belongs to {a!r}, but the current device is "
            f"{b!r}, which cannot read it; move it with a.to({b!r}) or re-create the array "
            "after set_default_device")
    return DeviceMismatchError(
        f"Kernel '{name}': its arguments are on two devices, {a!r} and {b!r} (an argument "
        f"array belongs to each); move one with a.to(device) or re-create the array on the "
        "other device")


class _Module(types.ModuleType):
    """`tack.devices()` lists the devices while `tack.devices` stays this module (its name
    predates the function): calling the module calls `devices`."""

    def __call__(self) -> list[Device]:
        return devices()


sys.modules[__name__].__class__ = _Module


@functools.cache
def _host_bytes() -> int:
    """The host's physical memory in bytes (0 where the system does not say); asked once."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return 0


def check_allocation(device: Device, phys: tuple, elem: dt.DType) -> int:
    """The bytes a new array of storage shape `phys` of scalar dtype `elem` takes on `device`;
    TackValueError, before anything is allocated, when no memory could hold them (2**63 bytes
    and up, or on a host device more than its physical memory)."""
    nbytes = elem.np.itemsize
    for d in phys:
        nbytes *= d
    if nbytes < 1 << 30:  # the common case, without a look at the device
        return nbytes
    limit = _host_bytes() if device.is_host else 0
    if nbytes >= 2 ** 63 or (limit and nbytes > limit):
        held = f"the host's memory ({limit} bytes)" if limit else "any memory"
        raise TackValueError(f"A new array of shape {phys} of {elem!r} takes {nbytes} bytes, "
                             f"more than {held} holds")
    return nbytes
