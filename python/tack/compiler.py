"""From a kernel and its arguments to the final IR one engine renders.

`specialize` is the single path every engine and `tack.inspect` share: argument kinds and dtypes →
typechecked IR → the IR passes of `passes.pipeline`.
"""
from __future__ import annotations

import numpy as np

from . import dtypes as dt
from .arrays import Array
from .errors import TackTypeError
from .frontend.typecheck import ArgSpec, TypeChecker
from .ir.nodes import KernelIR
from .passes.pipeline import lower

FLOAT = "float"  # a float scalar's signature before the f32/f64 choice


def scalar_sig(v):
    """The signature of a scalar argument: i32 if it fits, else i64, else u64; floats are FLOAT."""
    if isinstance(v, (bool, np.bool_)):
        return dt.i32
    if isinstance(v, (int, np.integer)):
        t = dt.int_literal_dtype(int(v))
        if t is None:
            raise TypeError(f"integer argument {int(v)} is outside [-2**63, 2**64 - 1]")
        return t
    if isinstance(v, (float, np.floating)):
        return FLOAT
    return None


def arg_specs(kernel, params, args) -> dict[str, ArgSpec]:
    """Specs of the IR parameters `params` from their values `args` (objects expanded)."""
    any_f64 = any(isinstance(a, Array) and getattr(a.dtype, "elem", a.dtype) is dt.f64
                  for a in args)
    specs = {}
    for name, a in zip(params, args):
        if isinstance(a, Array):
            specs[name] = ArgSpec("array", a.dtype, a.ndim, a.shape)
            continue
        try:
            s = scalar_sig(a)
        except TypeError as exc:
            raise TackTypeError(f"Kernel '{kernel.name}': parameter '{name}': {exc}") from None
        if s is None:
            raise TackTypeError(f"Kernel '{kernel.name}': Unsupported argument type for parameter "
                                f"'{name}': {type(a)}")
        specs[name] = ArgSpec("scalar", (dt.f64 if any_f64 else dt.f32) if s is FLOAT else s)
    return specs


def specialize(kernel, args, device=None, debug: bool = False) -> KernelIR:
    """The final IR of `kernel` for these actual arguments (nothing is run).

    With a device, its capability checks run on the typed IR first. A debug specialization checks
    every array index (`passes.bounds`)."""

    kernel.check_arity(args)
    pk = kernel.parse_for(args)
    return specialize_parsed(kernel, pk, pk.expand(args), device, debug)


def specialize_parsed(kernel, pk, values, device=None, debug: bool = False) -> KernelIR:
    """`specialize` for a parse and the values of its IR parameters."""
    from . import capabilities

    typed = typecheck(kernel, pk, values, debug)
    capabilities.check(typed, device)
    return lower(typed, debug)


def typecheck(kernel, pk, values, debug: bool = False) -> KernelIR:
    """The typed IR (before the passes) of a parse for the values of its IR parameters."""
    typed = TypeChecker(pk, arg_specs(kernel, pk.params, values), debug=debug).run()
    if getattr(kernel, "options", {}).get("fastmath"):
        typed.notes["fastmath"] = True
    return typed
