"""NVPTX code generation: one final `KernelIR` → PTX text, through render/llvm/ptx.py's LLVM IR.

`compile_ptx(kir, arch)` runs the pipeline: render → parse → link libdevice only when the module
calls `__nv_*` (every linked definition but the entry made `internal`, so O3 drops what is unused)
→ O3 for NVPTX → PTX text. `find_libdevice()` looks in CUDA_HOME / CUDA_PATH, /usr/local/cuda and
the `nvidia-nvvm` / `nvidia-cuda-nvcc` wheels (through cuda-pathfinder when installed). See
docs/design/004-cuda-engine.md.
"""
from __future__ import annotations

import functools
import glob
import os
import site
import sys
from dataclasses import dataclass

import llvmlite.binding as llvm

from ..capabilities import check_arch, ptx_isa, ptx_target, sm_number
from ..errors import RenderError
from ..ir.nodes import KernelIR
from ..render.llvm.printer import entry_name
from ..render.llvm.ptx import TRIPLE, PTXRenderer
from .llvm_host import compile_lock, optimize_module


@dataclass
class PTXModule:
    """Every stage of one kernel's compilation: what `tack.inspect` and the engine read."""

    name: str  # the entry symbol
    llvm_ir: str
    optimized_ir: str
    ptx: str
    arch: str
    libdevice: bool  # whether libdevice was linked in
    # launch indices per GPU thread (passes/coarsen.py): the grid is n / (WORKGROUP * per_thread)
    per_thread: int = 1


@functools.cache
def _init_nvptx() -> None:
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()


@functools.cache
def target_machine(arch: str = "sm_90", ptx: int | None = None) -> llvm.TargetMachine:
    """The NVPTX target machine for `arch` (e.g. sm_90); LLVM picks the least PTX ISA it needs,
    or PTX ISA `ptx` (×10: 80 is 8.0) where inline assembly needs newer instructions
    (capabilities.MIN_PTX)."""
    _init_nvptx()
    features = f"+ptx{ptx}" if ptx else ""
    return llvm.Target.from_triple(TRIPLE).create_target_machine(cpu=arch, features=features,
                                                                 opt=3)


# ---- libdevice -------------------------------------------------------------------------------
def find_libdevice() -> str | None:
    """Path of libdevice.10.bc: $TACK_LIBDEVICE, CUDA_HOME/CUDA_PATH, /usr/local/cuda, the
    nvidia-nvvm / nvidia-cuda-nvcc wheels (cuda-pathfinder or site-packages), else None."""
    return _find_libdevice()


@functools.cache
def _find_libdevice() -> str | None:
    env = os.environ.get("TACK_LIBDEVICE")
    if env and os.path.isfile(env):
        return env
    roots = [os.environ.get(v) for v in ("CUDA_HOME", "CUDA_PATH")] + ["/usr/local/cuda"]
    for root in filter(None, roots):
        for path in glob.glob(os.path.join(root, "nvvm", "libdevice", "libdevice*.bc")):
            return path
    try:
        from cuda import pathfinder  # optional (cuda-pathfinder)

        return pathfinder.find_bitcode_lib("device")
    except (ImportError, AttributeError, RuntimeError):
        pass  # not installed, too old to know bitcode libraries, or found nothing (its
        # BitcodeLibNotFoundError is a RuntimeError)
    return _site_packages_libdevice()


def _site_packages_libdevice() -> str | None:
    dirs = [*getattr(site, "getsitepackages", list)(), *sys.path]
    for d in dirs:
        for pat in ("nvidia/cu*/nvvm/libdevice/libdevice*.bc",
                    "nvidia/cuda_nvcc/nvvm/libdevice/libdevice*.bc",
                    "nvidia/nvvm/libdevice/libdevice*.bc"):
            hits = sorted(glob.glob(os.path.join(d, pat)))
            if hits:
                return hits[-1]
    return None


@functools.cache
def _libdevice_bitcode() -> bytes:
    path = find_libdevice()
    if path is None:
        raise RenderError("this kernel needs libdevice (CUDA's math library, libdevice.10.bc) "
                          "and none was found: set CUDA_HOME, or pip install nvidia-nvvm "
                          "(or set TACK_LIBDEVICE to the .bc file)")
    with open(path, "rb") as f:
        return f.read()


def _link_libdevice(mod: llvm.ModuleRef, entry: str, tm: llvm.TargetMachine) -> None:
    """Link all of libdevice, make everything but the entry internal and drop what is unused
    before O3 (which would otherwise first simplify every one of libdevice's ~500 functions).
    Parsing the bitcode each time (~25 ms) is cheaper than cloning a cached parse."""
    lib = llvm.parse_bitcode(_libdevice_bitcode())
    lib.triple, lib.data_layout = mod.triple, mod.data_layout
    mod.link_in(lib)
    for fn in mod.functions:
        if not fn.is_declaration and fn.name != entry:
            fn.linkage = "internal"
    for g in mod.global_variables:
        if not g.is_declaration:
            g.linkage = "internal"
    pb = llvm.create_pass_builder(tm, llvm.create_pipeline_tuning_options(speed_level=0))
    pm = llvm.create_new_module_pass_manager()
    pm.add_global_dead_code_eliminate_pass()
    pm.run(mod, pb)


# ---- the pipeline: render → link libdevice → O3 → PTX ----------------------------------------
def compile_ptx(kir: KernelIR, arch: str = "sm_90") -> PTXModule:
    """Render, link libdevice if the kernel calls it, optimize at O3 and emit PTX for `arch`.
    An operation `arch` lacks (`cp.async` before sm_80) is refused first (CapabilityError)."""
    check_arch(kir, arch)
    arch = ptx_target(kir, arch)  # sm_90a for the warpgroup MMA
    renderer = PTXRenderer()
    renderer.sm = sm_number(arch) or 0  # lowerings and waits by the arch (SM_LOWERINGS, ptx_mbarriers)
    text = renderer.render(kir)
    entry = entry_name(kir)
    tm = target_machine(arch, ptx_isa(kir, arch))
    with compile_lock:  # LLVM's global context is shared with the CPU engine's compiles
        mod = llvm.parse_assembly(text)
        mod.triple, mod.data_layout = tm.triple, str(tm.target_data)
        needs = any(f.is_declaration and f.name.startswith("__nv_") for f in mod.functions)
        if needs:
            _link_libdevice(mod, entry, tm)
        optimize_module(mod, tm)
        return PTXModule(entry, text, str(mod), tm.emit_assembly(mod), arch, needs,
                         renderer.per_thread)


def render_ptx(kir: KernelIR, arch: str = "sm_90") -> str:
    """The PTX text of one final KernelIR (what `tack.inspect(..., mode="source")` shows)."""
    return compile_ptx(kir, arch).ptx
