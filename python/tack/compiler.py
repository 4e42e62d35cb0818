"""From argument specs to the final IR one engine renders.

`specialize_parsed` is the single path every engine and `tack.inspect` share: a parse and its
argument specs → typechecked IR → the capability checks of the device → the IR passes of
`passes.pipeline`. The compiler sees specs only; `specialize` takes a call's actual arguments and
has `tack.signature` type them first.
"""
from __future__ import annotations

from . import capabilities, signature
from .frontend.typecheck import ArgSpec, TypeChecker
from .ir.nodes import KernelIR
from .passes.pipeline import lower


def specialize(kernel, args, device=None, debug: bool = False) -> KernelIR:
    """The final IR of `kernel` for these actual arguments (nothing is run).

    With a device, its capability checks run on the typed IR first. A debug specialization checks
    every array index (`passes.bounds`)."""
    kernel.check_arity(args)
    pk = kernel.parse_for(args)
    specs = signature.specs(kernel.name, pk.params, signature.expand(pk.paths, args))
    return specialize_parsed(kernel, pk, specs, device, debug)


def specialize_parsed(kernel, pk, specs: dict[str, ArgSpec], device=None,
                      debug: bool = False) -> KernelIR:
    """`specialize` for a parse and the specs of its IR parameters."""
    typed = typecheck(kernel, pk, specs, debug)
    capabilities.check(typed, device)
    return lower(typed, debug)


def typecheck(kernel, pk, specs: dict[str, ArgSpec], debug: bool = False) -> KernelIR:
    """The typed IR (before the passes) of a parse for the specs of its IR parameters."""
    typed = TypeChecker(pk, specs, debug=debug).run()
    if getattr(kernel, "options", {}).get("fastmath"):
        typed.notes["fastmath"] = True
    return typed
