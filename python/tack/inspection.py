"""`tack.inspect(kernel, *args, mode=..., outdir=...)`: every stage's artifact, without running
the kernel: one stage's text, or every stage the engine shows written as files."""
from __future__ import annotations

import warnings
from pathlib import Path

from .call.plan import partial_group_message
from .capabilities import has_collectives
from .compiler import specialize
from .devices import Device, default_device, deterministic_mode, make_device
from .errors import TackError, TackTypeError, TackValueError, for_user
from .ir.nodes import KernelIR
from .ir.ops import WORKGROUP
from .ir.printer import kernel_str
from .kernel import BoundKernel, Kernel
from .runtime.registry import shown_by, stage_names, targets
from .toolchain.sass import MissingToolError


def inspect(kernel, *args, mode: str | None = None, engine: str | None = None,
            outdir=None):
    """The text of stage `mode` of `kernel` specialized for `args` on the default device (or
    on the same arch with `engine`). The modes are the engine's `stages`: "ir" (the final typed
    IR) and "source" (what the engine compiles: LLVM IR, PTX, KernelAbstractions.jl) everywhere;
    "optimized" (O3 LLVM IR) on the CPU; "resources" (JSON: registers, local and shared bytes,
    occupancy, from the driver) and "sass" (machine code) on CUDA. Without `mode`: "source".

    With `outdir`, every stage (or only `mode`) is written to a file in that folder, named
    after the kernel and the stage (`saxpy.ptx`, `saxpy.resources.json`), and the result is a
    dict stage -> Path. A stage that needs a missing program (sass) is left out, with a warning."""
    try:
        return _inspect(kernel, args, mode, engine, outdir)
    except TackError as exc:
        raise for_user(exc)  # the same exception, its internal frames dropped


def _inspect(kernel, args, mode, engine, outdir):
    if isinstance(kernel, BoundKernel):
        kernel, args = kernel.kernel, (kernel.obj,) + args
    if not isinstance(kernel, Kernel):
        raise TackTypeError(f"Expected a @tack.kernel, got {type(kernel).__name__}")
    kernel = kernel.in_mode(deterministic_mode())  # as a call here would run it
    dev = _device_for(engine)
    if mode is not None and mode not in stage_names():
        kind = dev.kind
        raise TackValueError(f"Unknown inspect mode: {mode!r}. The {kind.name} engine for "
                             f"{dev.arch!r} shows {_modes(kind.stages)}.")
    kir = specialize(kernel, args, dev)
    if has_collectives(kir):  # the launch-count check of a call, without launching
        n, _ = kernel.parse_for(args).host_range.launch(args, kernel.name)
        if n % WORKGROUP:
            raise TackValueError(partial_group_message(kernel.name, n))
    if outdir is None:
        return _stage(dev, kir, mode or "source")
    return write_stages(dev, kir, kernel.name, Path(outdir),
                        dev.stages if mode is None else (mode,))


def _device_for(engine: str | None) -> Device:
    """The default device, or with `engine` that engine's device on the default device's arch
    (specialized as it would run there), else on the engine's first arch: a rendering shows
    the engine's text wherever the arrays live (the Julia engine's while the default device is
    the simulator)."""
    dev = default_device()
    if engine is None or engine == dev.engine_name:
        return dev
    archs = targets(engine)
    if archs and dev.arch not in archs:
        return make_device(archs[0], engine)
    return make_device(dev.arch, engine)  # an unknown engine is refused here, naming them


def _modes(stages) -> str:
    return ", ".join(repr(s) for s in stages)


def _stage(dev: Device, kir: KernelIR, mode: str) -> str:
    kind = dev.kind
    if mode not in kind.stages:
        where = ", ".join(f"the {name} engine for {arch!r}" for name, arch in shown_by(mode))
        raise TackValueError(kind.refusal.format(mode=mode, arch=dev.arch, name=kind.name,
                                                 modes=_modes(kind.stages))
                             + f"; {mode!r} is shown by {where}")
    if mode == "ir":  # the IR every engine starts from: shown without starting one
        return kernel_str(kir)
    return dev.engine.stage(kir, mode)


def write_stages(dev: Device, kir: KernelIR, name: str, outdir: Path, modes) -> dict:
    """Write each stage of `modes` as `outdir/<name>.<suffix>` (the engine kind's file names);
    returns stage -> path of the files written."""
    outdir.mkdir(parents=True, exist_ok=True)
    paths = {}
    for mode in modes:
        try:
            text = _stage(dev, kir, mode)
        except MissingToolError as exc:  # the other stages are still worth having
            warnings.warn(f"tack.inspect: stage {mode!r} of kernel '{name}' not written: {exc}",
                          RuntimeWarning, stacklevel=3)
            continue
        path = outdir / dev.kind.file_name(name, mode)
        path.write_text(text)
        paths[mode] = path
    return paths
