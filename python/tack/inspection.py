"""`tack.inspect(kernel, *args, mode=...)`: every stage's artifact, without running anything."""
from __future__ import annotations

from .capabilities import has_collectives
from .compiler import specialize
from .devices import default_device, make_device
from .errors import TackTypeError, TackValueError
from .ir.ops import WORKGROUP
from .ir.printer import kernel_str
from .kernel import BoundKernel, Kernel, partial_group_message

MODES = ("ir", "source", "optimized")


def inspect(kernel, *args, mode: str = "source", engine: str | None = None) -> str:
    """The text of stage `mode` of `kernel` specialized for `args` on the default device (or
    on the same arch with `engine`): "ir" (the final typed IR), "source" (what the engine
    compiles: LLVM IR, PTX, KernelAbstractions.jl), "optimized" (the CPU's O3 LLVM IR)."""
    if isinstance(kernel, BoundKernel):
        kernel, args = kernel.kernel, (kernel.obj,) + args
    if not isinstance(kernel, Kernel):
        raise TackTypeError(f"Expected a @tack.kernel, got {type(kernel).__name__}")
    if mode not in MODES:
        raise TackValueError(f"Unknown inspect mode: {mode!r}. Use 'ir', 'source', or 'optimized'.")
    dev = default_device()
    if engine is not None and engine != dev.engine_name:  # check what that engine can run
        dev = make_device(dev.arch, engine)
    kir = specialize(kernel, args, dev)
    if has_collectives(kir):  # the launch-count check of a call, without launching
        n, _ = kernel.parse_for(args).host_range.launch(args, kernel.name)
        if n % WORKGROUP:
            raise TackValueError(partial_group_message(kernel.name, n))
    kind = dev.kind
    if mode not in kind.stages:
        raise TackValueError(kind.refusal.format(mode=mode, arch=dev.arch, name=kind.name))
    if mode == "ir":  # the IR every engine starts from: shown without starting one
        return kernel_str(kir)
    return dev.engine.stage(kir, mode)
