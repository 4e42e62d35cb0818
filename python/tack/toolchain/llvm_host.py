"""The host CPU as an LLVM target, the O3 pipeline (`optimize`) the CPU engine and
`tack.inspect(..., mode="optimized")` run, and the object code the CPU engine loads.

llvmlite's binding (LLVM itself: ~20-35 ms to import) is loaded only when something is compiled.
A process whose kernels all come from the disk cache never loads it: `host_info()` (the target
triple, CPU name and features that go into cache keys) is then read from the cache too, under a
fingerprint of the CPU (/proc/cpuinfo) and of the llvmlite build (docs/design/005-disk-cache.md).
"""
from __future__ import annotations

import contextlib
import functools
import os
import re
import sys
import threading

from .. import cache

# What turns IR into object code besides LLVM and the target: part of every CPU cache key.
PIPELINE = ("O3 speed_level=3 loop_vectorization slp_vectorization loop_unrolling "
            "loop_interleaving; defined vector shift amounts; codegen opt=3 jit "
            "codemodel=jitdefault; emit_object elf")

_llvm = None
_init_lock = threading.Lock()
compile_lock = threading.RLock()  # LLVM's global context is not thread-safe: one compile at a time


# ---- fork() while another thread compiles ------------------------------------------------------
# A lock held by another thread at fork() stays held forever in the child, which has only the
# forking thread: a child that then compiles would block. So fork waits for the compile in
# progress: the locks are taken before fork (Tack's, then llvmlite's per-call lock, the order a
# compile takes them) and released after it in both processes.
def _llvmlite_lock():
    """llvmlite's own lock around every call into LLVM (`llvmlite/binding/ffi.py`), if loaded
    (it is not imported for this: a process that never compiled has nothing to wait for)."""
    ffi = sys.modules.get("llvmlite.binding.ffi")
    lock = getattr(getattr(getattr(ffi, "lib", None), "_lock", None), "_lock", None)
    return lock if hasattr(lock, "acquire") and hasattr(lock, "release") else None


_held_across_fork: list = []


def _before_fork() -> None:
    locks = [compile_lock, _init_lock]
    ll = _llvmlite_lock()
    if ll is not None:
        locks.append(ll)
    for lock in locks:
        lock.acquire()
    _held_across_fork[:] = locks


def _after_fork() -> None:
    locks, _held_across_fork[:] = list(_held_across_fork), []
    for lock in reversed(locks):
        lock.release()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(before=_before_fork, after_in_parent=_after_fork,
                        after_in_child=_after_fork)


MIN_LLVMLITE = (0, 45)  # pyproject.toml's bound: the first llvmlite whose LLVM parses `ptr`


def _require_opaque_pointers(llvm) -> None:
    """Tack's renderers write LLVM IR with opaque pointers (`ptr`), which LLVM parses by default
    from release 17, llvmlite 0.45; llvmlite 0.44 (LLVM 15) would fail every kernel with a
    parsing error, so it is refused here with the fix."""
    import llvmlite

    have = tuple(int(p) for p in llvmlite.__version__.split(".")[:2] if p.isdigit())
    if have < MIN_LLVMLITE:
        raise ImportError(
            f"Tack needs llvmlite >= {'.'.join(map(str, MIN_LLVMLITE))} (LLVM with opaque "
            f"pointers), found llvmlite {llvmlite.__version__} (LLVM "
            f"{'.'.join(map(str, llvm.llvm_version_info))}): pip install -U llvmlite")


def binding():
    """llvmlite.binding with the native target initialized (loaded on first use)."""
    global _llvm
    if _llvm is None:
        with _init_lock:
            if _llvm is None:
                import llvmlite.binding as llvm

                _require_opaque_pointers(llvm)
                llvm.initialize_native_target()
                llvm.initialize_native_asmprinter()
                llvm.initialize_native_asmparser()
                # Vectorize a loop that also adds into a float accumulator (`s += exp(x[j])`)
                # with the additions kept in program order (LLVM's in-order "strict" reductions:
                # a vector of terms, then its lanes added one by one), so the sum has the bits of
                # the scalar loop while the rest of the body runs in vectors. Off by default on
                # x86; docs/design/002-cpu-engine.md, "In-order reductions".
                llvm.set_option("tack", "-force-ordered-reductions")
                _llvm = llvm
    return _llvm


# ---- the host as LLVM sees it ------------------------------------------------------------------
def live_host_info() -> dict:
    """{triple, cpu, features, llvm}: asks LLVM (loads the binding)."""
    llvm = binding()
    return {"triple": llvm.get_process_triple(), "cpu": llvm.get_host_cpu_name(),
            "features": llvm.get_host_cpu_features().flatten(),
            "llvm": ".".join(map(str, llvm.llvm_version_info))}


_CPUINFO_VOLATILE = (b"processor", b"cpu mhz", b"bogomips", b"core id", b"apicid",
                     b"initial apicid", b"siblings", b"cpu cores", b"physical id", b"microcode",
                     b"power management", b"clock", b"serial", b"hardware", b"revision", b"bugs")


def _cpuinfo(first_block: bool) -> bytes:
    """The lines of /proc/cpuinfo that describe the CPU (not its clock or numbering). On x86 the
    first processor's block is enough (every core reports the same model and flags) and avoids
    generating the whole file, whose `cpu MHz` lines can be slow on big machines."""
    fd = os.open("/proc/cpuinfo", os.O_RDONLY)
    try:
        chunks = []
        while True:
            b = os.read(fd, 1 << 16)
            if not b:
                break
            chunks.append(b)
            if first_block and b"\n\n" in b:
                break
    finally:
        os.close(fd)
    text = b"".join(chunks)
    if first_block:
        text = text.split(b"\n\n", 1)[0]
    keep = set()
    for line in text.splitlines():
        k = line.split(b":", 1)[0].strip().lower()
        if k and k not in _CPUINFO_VOLATILE:
            keep.add(b" ".join(line.split()))
    return b"\n".join(sorted(keep))


@functools.cache
def _llvmlite_build() -> list:
    """llvmlite's build as files: its version module and its native library (size, mtime),
    found without importing llvmlite (a cache hit never loads it)."""
    root = _llvmlite_root()
    if root is None:
        return ["no llvmlite"]
    out: list = []
    for d, names in ((root, ("_version.py",)), (os.path.join(root, "binding"), _LIBS)):
        for name in names:
            try:
                st = os.stat(os.path.join(d, name))
            except OSError:
                continue
            out.append([name, st.st_size, st.st_mtime_ns])
    return out


# llvmlite's native library, by platform (llvmlite/binding/ffi.py loads it from its package)
_LIBS = ("libllvmlite.so", "libllvmlite.dylib", "llvmlite.dll")


def _llvmlite_root() -> str | None:
    """The llvmlite package directory `import llvmlite` would use: the first sys.path entry
    holding llvmlite/__init__.py (one stat per entry; importlib's find_spec walks every finder,
    ~0.2 ms), else what find_spec says (a zip, a path hook), None if not installed."""
    loaded = sys.modules.get("llvmlite")
    if loaded is not None and getattr(loaded, "__path__", None):
        return next(iter(loaded.__path__))
    for entry in sys.path:
        if isinstance(entry, str) and os.path.isfile(os.path.join(entry, "llvmlite",
                                                                  "__init__.py")):
            return os.path.join(entry, "llvmlite")
    import importlib.util

    spec = importlib.util.find_spec("llvmlite")
    if spec is None or not spec.submodule_search_locations:
        return None
    return next(iter(spec.submodule_search_locations))


def host_fingerprint() -> list | None:
    """What LLVM's host detection depends on, read without loading LLVM; None where unknown."""
    if not sys.platform.startswith("linux"):
        return None
    machine = os.uname().machine
    try:
        cpu = _cpuinfo(first_block=machine in ("x86_64", "amd64", "i686", "i386"))
    except OSError:
        return None
    if not cpu:
        return None
    return [sys.platform, machine, cpu.decode("utf-8", "replace"), _llvmlite_build()]


_host: dict | None = None
_host_key: str | None = None
_confirmed = False
_HOST_FIELDS = ("triple", "cpu", "features", "llvm")


def host_info() -> dict:
    """{triple, cpu, features, llvm} of this process's CPU target: from the disk cache when an
    earlier process recorded it for this CPU and llvmlite, else from LLVM (and then recorded)."""
    global _host, _host_key
    if _host is None:
        info = None
        fp = host_fingerprint() if cache.enabled() else None
        if fp is not None:
            _host_key = cache.make_key("host", fp)
            entry = cache.load("host", _host_key)  # payload: the fields, one a line
            got = entry.data.decode("utf-8", "replace").split("\n") if entry else []
            if len(got) == len(_HOST_FIELDS) and all(map(_plausible, got)):
                info = dict(zip(_HOST_FIELDS, got))
        if info is None:
            info = live_host_info()
            _set_host(info)
        else:
            _host = info
    return _host


def _plausible(field: str) -> bool:
    """A host record's field as LLVM spells them: printable ASCII. (A forged entry of random
    bytes sometimes has four non-empty lines; its fields are not host info.)"""
    return bool(field) and field.isascii() and field.isprintable()


def _set_host(info: dict) -> None:
    global _host, _confirmed
    _host, _confirmed = info, True
    if _host_key is not None:
        cache.store("host", _host_key, "\n".join(info[k] for k in _HOST_FIELDS).encode())


def confirm_host_info() -> bool:
    """Once LLVM is loaded anyway (to compile): check the recorded host info against LLVM's and
    replace it if it differs. True if it changed (cache keys made before are then stale)."""
    global _confirmed
    if _confirmed:
        return False
    old = host_info()
    if _confirmed:  # host_info just asked LLVM itself
        return False
    live = live_host_info()
    if live == old:
        _confirmed = True
        return False
    _set_host(live)
    return True


def process_triple() -> str:
    """The host's target triple (for renderers), without loading LLVM when it is recorded."""
    return host_info()["triple"]


# ---- the target: the host, or a chosen CPU (tests, diagnosis) ---------------------------------
# `TACK_CPU_TARGET=<cpu>[:<features>]` (e.g. `x86-64-v2`, `x86-64-v3:+avx512f`) or `cpu_target()`
# compiles for that CPU instead of the host's name and features: the test suite compiles kernels
# for the host and for a baseline ISA and compares the results, so that a backend miscompile
# for either fails. The code still runs on this machine: pick a target it can execute. Read at
# each compile (never on a launch); part of every cache key, so the two never share code.
_chosen: tuple | None = None  # set by cpu_target(), before TACK_CPU_TARGET
_TARGET_SPELLING = re.compile(r"[A-Za-z0-9_.-]+(:([+-][A-Za-z0-9_.-]+)(,[+-][A-Za-z0-9_.-]+)*)?")


def chosen_target() -> tuple | None:
    """(cpu, features) chosen instead of the host's, or None (the host)."""
    if _chosen is not None:
        return _chosen
    spec = os.environ.get("TACK_CPU_TARGET", "").strip()
    return _parse_target(spec, "TACK_CPU_TARGET") if spec else None


def _parse_target(spec: str, what: str) -> tuple:
    from ..errors import TackValueError

    if not _TARGET_SPELLING.fullmatch(spec):
        raise TackValueError(f"{what}={spec!r} is not a CPU target: expected <cpu> or "
                             "<cpu>:<features>, e.g. x86-64-v2 or x86-64-v3:+avx512f")
    cpu, _, features = spec.partition(":")
    return cpu, features


@contextlib.contextmanager
def cpu_target(spec: str):
    """Compile for `spec` (`<cpu>[:<features>]`, as TACK_CPU_TARGET) inside the block, in this
    process (not in the compile worker, whose target is its own). Process-wide, for tests: every
    thread's compiles in the block get it. Kernels specialized before keep their code: call
    fresh kernel objects inside."""
    global _chosen
    old, _chosen = _chosen, _parse_target(spec, "cpu_target")
    try:
        yield
    finally:
        _chosen = old


def target_info() -> dict:
    """host_info() with the chosen target's cpu and features, if one is chosen."""
    info = host_info()
    chosen = chosen_target()
    return info if chosen is None else dict(info, cpu=chosen[0], features=chosen[1])


def has_f16_conversions() -> bool:
    """Whether the target (the host's, or the chosen one) converts f32 ↔ f16 in hardware: x86-64
    needs F16C, named in its features (a CPU name such as x86-64-v3 that implies it without
    naming it counts as without: the conversions are then integer code, the same bits slower);
    other architectures have it."""
    info = target_info()
    if not info["triple"].startswith(("x86_64", "i686")):
        return True
    return "+f16c" in info["features"].split(",")


def host_target_machine(opt: int = 3, jit: bool = False):
    """A target machine for this CPU with all its features (AVX2/AVX-512 where present), or for
    the chosen target (`cpu_target`)."""
    llvm = binding()
    confirm_host_info()
    info = target_info()
    target = llvm.Target.from_triple(info["triple"])
    return target.create_target_machine(cpu=info["cpu"], features=info["features"], opt=opt,
                                        jit=jit, codemodel="jitdefault" if jit else "default")


def optimize_module(mod, tm=None):
    tm = tm or host_target_machine()
    llvm = binding()
    mod.triple = tm.triple
    mod.data_layout = str(tm.target_data)
    mod.verify()
    pto = llvm.create_pipeline_tuning_options(speed_level=3)
    for knob in ("loop_vectorization", "slp_vectorization", "loop_unrolling", "loop_interleaving"):
        setattr(pto, knob, True)
    pb = llvm.create_pass_builder(tm, pto)
    pb.getModulePassManager().run(mod, pb)
    return mod


# ---- vector shifts by out-of-range constants -------------------------------------------------
# LLVM 22's x86 backend miscompiles a vector `ashr` whose constant amount has a lane >= the
# element width (a poison lane) when a shuffle then discards that lane: with AVX-512 it keeps the
# shift as a native VPSRAVQ, whose lane is the sign fill, while known-bits calls the poison lane
# zero, and folds the blend of that shift with a value zero in the other lanes into an OR. The
# SLP vectorizer makes exactly this from sibling sign and zero extensions of one value
# (`i64(i16(x)), i64(u16(x))`: `shl`+`ashr` lanes beside `and` lanes, the `ashr` amounts of the
# `and` lanes being its masks 65535, 4294967295). Any value refines poison, so every such lane
# (and every poison or undef lane of a constant shift amount) becomes 0 before code generation.
# docs/design/002-cpu-engine.md, "Vector shifts by out-of-range constants".
_VECTOR_SHIFT = re.compile(
    r"= (?:ashr|lshr|shl)(?: exact| nuw| nsw)* <\d+ x i(\d+)> [^,\n]+, "
    r"(<(?:i\d+ (?:-?\d+|poison|undef)(?:, )?)+>|splat \(i\d+ -?\d+\))")
_LANE = re.compile(r"i(\d+) (-?\d+|poison|undef)")


def _defined_lane(m: re.Match) -> str:
    bits, v = int(m.group(1)), m.group(2)
    if v in ("poison", "undef") or not 0 <= int(v) < bits:
        return f"i{bits} 0"
    return m.group(0)


def _defined_amounts(m: re.Match) -> str:
    text, (start, end) = m.group(0), m.span(2)
    amount = _LANE.sub(_defined_lane, m.group(2))
    return text[:start - m.start()] + amount + text[end - m.start():]


def defined_shift_amounts(text: str) -> str:
    """Optimized LLVM IR text with every out-of-range or poison lane of a constant vector shift
    amount replaced by 0 (the workaround above); the same text where there is none."""
    return _VECTOR_SHIFT.sub(_defined_amounts, text)


# ---- multiply-adds: fused, or not, by the target alone ------------------------------------------
# The renderer spells `Op.MULADD` as `llvm.fmuladd`: one rounding where the target has FMA. But
# fmuladd only permits fusion, and LLVM uses that freedom: the loop vectorizer turns a fmuladd
# accumulation (`ax += dx * s`) into a vector product and an in-order sum, two roundings. Where the
# target fuses (a probe compiles one fmuladd and looks for the instruction), every fmuladd becomes
# `llvm.fma`, which must fuse, so the bits are those of the simulator's and the GPU's FMA
# (docs/numerics.md); elsewhere it stays fmuladd, separately rounded.
_FUSES: dict = {}
_FMULADD = re.compile(r'@("?)llvm\.fmuladd\.')  # llvmlite quotes the name: @"llvm.fmuladd.f32"
_PROBE = ("define float @probe(float %a, float %b, float %c) {\n"
          "  %r = call float @llvm.fmuladd.f32(float %a, float %b, float %c)\n  ret float %r\n}\n"
          "declare float @llvm.fmuladd.f32(float, float, float)\n")


def target_fuses(tm) -> bool:
    """Whether target machine `tm` has a fused multiply-add instruction."""
    info = target_info()
    key = (tm.triple, info["cpu"], info["features"])
    got = _FUSES.get(key)
    if got is None:
        mod = binding().parse_assembly(_PROBE)
        mod.triple = tm.triple
        asm = tm.emit_assembly(mod).lower()
        got = _FUSES[key] = "fmadd" in asm or "fmla" in asm
    return got


def fused_multiply_adds(llvm_ir: str, tm) -> str:
    """`llvm_ir` with `llvm.fmuladd` as `llvm.fma` where `tm` fuses (above)."""
    if "llvm.fmuladd." not in llvm_ir or not target_fuses(tm):
        return llvm_ir
    return _FMULADD.sub(r"@\1llvm.fma.", llvm_ir)


def optimized(llvm_ir: str, tm=None):
    """LLVM IR text → the O3-optimized module that code generation gets (the workarounds above
    applied: then a module parsed from the corrected text)."""
    llvm = binding()
    tm = tm or host_target_machine()
    mod = optimize_module(llvm.parse_assembly(fused_multiply_adds(llvm_ir, tm)), tm)
    text = str(mod)
    fixed = defined_shift_amounts(text)
    if fixed != text:
        mod = llvm.parse_assembly(fixed)
        mod.verify()
    return mod


def optimize(llvm_ir: str) -> str:
    """LLVM IR text → O3-optimized text for the host CPU (loop and SLP vectorization on), as
    code generation gets it."""
    with compile_lock:
        return str(optimized(llvm_ir))


def compile_object(llvm_ir: str) -> bytes:
    """LLVM IR text → O3 → a relocatable object file for this CPU (ELF on Linux), in the code
    model MCJIT uses (large on x86-64: every address is a 64-bit absolute relocation). After a
    process's first compiles, in a bounded worker process (compile_worker.py: llvmlite keeps
    ~70 KB of every O3 run); for a chosen target (`cpu_target`), always here."""
    from . import compile_worker  # with subprocess (~5 ms): only a process that compiles

    with compile_lock:
        if chosen_target() is not None:
            return compile_here(llvm_ir)
        return compile_worker.compile_object(llvm_ir, compile_here)


def compile_here(llvm_ir: str) -> bytes:
    """compile_object in this process."""
    with compile_lock:
        return host_target_machine(jit=True).emit_object(optimized(llvm_ir))


def code_key(source) -> str:
    """The disk-cache key of object code made from `source` — ["ir", LLVM IR text], or
    ["kir", digest of a KernelIR] for the CPU engine — for this target: the target triple, CPU
    and features (the chosen target's, if one is chosen), LLVM and llvmlite, the pipeline, and
    Tack's own modules (so that a changed renderer or pipeline can never reuse stale code)."""
    return cache.make_key("cpu", source, target_info(), PIPELINE, _llvmlite_build(),
                          cache.package_digest())
