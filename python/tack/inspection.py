"""`tack.inspect(kernel, *args, mode=...)`: every stage's artifact, without running anything."""
from __future__ import annotations

from .devices import default_device, make_device
from .errors import TackTypeError, TackValueError

MODES = ("ir", "source", "optimized")


def inspect(kernel, *args, mode: str = "source", engine: str | None = None) -> str:
    from .kernel import BoundKernel, Kernel

    if isinstance(kernel, BoundKernel):
        kernel, args = kernel.kernel, (kernel.obj,) + args
    if not isinstance(kernel, Kernel):
        raise TackTypeError(f"Expected a @tack.kernel, got {type(kernel).__name__}")
    if mode not in MODES:
        raise TackValueError(f"Unknown inspect mode: {mode!r}. Use 'ir', 'source', or 'optimized'.")
    from .compiler import specialize
    from .ir.printer import kernel_str

    dev = default_device()
    if engine is not None and engine != dev.engine_name:  # check what that engine can run
        dev = make_device(dev.arch, engine)
    kir = specialize(kernel, args, dev)
    from .capabilities import has_collectives

    if has_collectives(kir):  # the launch-count check of a call, without launching
        from .kernel import partial_group_message

        n, _ = kernel.parse_for(args).host_range.launch(args, kernel.name)
        if n % 256:
            raise TackValueError(partial_group_message(kernel.name, n))
    if mode == "ir":
        return kernel_str(kir)
    engine = engine or dev.engine_name
    if engine == "julia":
        if mode == "optimized":
            raise TackValueError("inspect mode 'optimized' is CPU only: it shows the native CPU "
                                 "engine's LLVM IR after O3; the Julia engine's source is "
                                 "mode='source'")
        from .render.julia_ka import render_julia

        return render_julia(kir)
    if dev.arch != "cpu" and mode == "optimized":
        raise TackValueError(f"inspect mode 'optimized' is CPU only: the {dev.arch} engine "
                             "shows mode='source'")
    if dev.arch == "cpu":
        from .render.llvm import render_llvm
        from .toolchain.llvm_host import optimize

        text = render_llvm(kir)
        return optimize(text) if mode == "optimized" else text
    return dev.engine.render_source(kir)
