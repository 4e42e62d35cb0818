"""From argument specs to the final IR one engine renders.

`specialize_parsed` is the single path every engine and `tack.inspect` share: a parse and its
argument specs → typechecked IR → the capability checks of the device → the IR passes of
`passes.pipeline`. The compiler sees specs only; `specialize` takes a call's actual arguments and
has `tack.call.signature` type them first. The type checker and the passes are imported at the first
compile, so `import tack` does not load them.
"""
from __future__ import annotations

from . import capabilities
from .call import signature
from .frontend import depth
from .ir.nodes import KernelIR


def specialize(kernel, args, device=None, debug: bool = False,
               library_math: bool | None = None) -> KernelIR:
    """The final IR of `kernel` for these actual arguments (nothing is run).

    With a device, its capability checks run on the typed IR first. A debug specialization checks
    every array index (`passes.bounds`). `library_math` (default: as the device's engine, or
    True without one) makes the float32 math builtins the library's functions
    (passes/libmath.py); False keeps them builtins, for code rendered for every backend."""
    kernel.check_arity(args)
    pk = kernel.parse_for(args)
    specs = signature.specs(kernel.name, pk.params, signature.expand(pk.paths, args))
    return specialize_parsed(kernel, pk, specs, device, debug, library_math)


def specialize_parsed(kernel, pk, specs: dict, device=None, debug: bool = False,
                      library_math: bool | None = None) -> KernelIR:
    """`specialize` for a parse and the specs (`ArgSpec`s) of its IR parameters."""
    typed = typecheck(kernel, pk, specs, debug)
    capabilities.check(typed, device)
    if library_math is None:
        library_math = _library_math(kernel, device)
    return lower(typed, debug, library_math=library_math)


def _library_math(kernel, device) -> bool:
    """Whether the math builtins become tack.lib's functions: on the engines that take them,
    and on every engine for a kernel in deterministic mode (`@tack.kernel(deterministic=True)`,
    the twin `Kernel.in_mode` gives), whose bits are then the CPU engine's."""
    return capabilities.library_math(device) or \
        bool(getattr(kernel, "options", {}).get("deterministic"))


def specialize_parts(kernel, pk, parts: list, device=None, debug: bool = False) -> KernelIR:
    """`specialize_parsed` for `signature.spec_parts` tuples (kind, dtype, ndim, shape) of its
    IR parameters: what a kernel from the disk cache keeps in case its IR is asked for."""
    from .frontend.argspec import ArgSpec  # loaded at the first compile (see above)

    specs = {p: ArgSpec(*t) for p, t in zip(pk.params, parts)}
    return specialize_parsed(kernel, pk, specs, device, debug)


def first_ir(kernel, pk, specs: dict, debug: bool = False,
             device=None) -> tuple[KernelIR, list[str]]:
    """A new specialization's final IR, and the workgroup features of its typed IR. A device
    without workgroups rejects those features (`reject_workgroups`, CapabilityError) before
    the uniform-participation rule, which only a device with workgroups applies."""
    typed = typecheck(kernel, pk, specs, debug)  # raises the typed errors
    if device is not None:
        capabilities.check_local(typed, device)
    features = capabilities.workgroup_features(typed)
    if device is None or capabilities.supports_workgroups(device):
        capabilities.check_uniform_participation(typed)
    else:
        capabilities.reject_workgroups(typed, features, device)
    return lower(typed, debug, library_math=_library_math(kernel, device)), features


def typecheck(kernel, pk, specs: dict, debug: bool = False) -> KernelIR:
    """The typed IR (before the passes) of a parse for the specs of its IR parameters."""
    from .frontend.typecheck import TypeChecker  # loaded at the first compile (see above)

    # the source's nesting, and the statements' (deeper than the source's with inlined calls)
    deep = depth.kernel_depth(getattr(kernel, "depth", 0)) + 2 * depth.statement_nesting(pk.body)
    typed = depth.on_deep_stack(deep, TypeChecker(pk, specs, debug=debug).run)
    if getattr(kernel, "options", {}).get("fastmath"):
        typed.notes["fastmath"] = True
    if deep > depth.DEEP:  # the later steps run on a deep stack too (`nesting`)
        typed.notes["nesting"] = deep
    return typed


def nesting(kir: KernelIR) -> int:
    """How deeply a kernel's IR nests (frontend/depth.py), as its type checker found it."""
    return kir.notes.get("nesting", 0)


def lower(typed: KernelIR, debug: bool = False, checked: bool = False,
          library_math: bool = True) -> KernelIR:
    """The IR passes (`passes.pipeline.lower`) on a typed IR; `checked` for `tack.check` (the
    simulator's semantics: the library's math functions, as without a device)."""
    from .passes import pipeline  # loaded at the first compile (see above)

    return depth.on_deep_stack(nesting(typed), pipeline.lower, typed, debug, checked,
                               library_math)
