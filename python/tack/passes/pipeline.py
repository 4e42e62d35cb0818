"""The fixed order of IR passes between the typechecker and every renderer."""
from __future__ import annotations

from ..ir.nodes import KernelIR
from ..ir.verify import verify
from .bounds import add_bounds_checks
from .cse import cse
from .linearize import linearize
from .loops import normalize_loops
from .lower_ops import lower_ops
from .muladd import fuse_multiply_add
from .simplify import simplify


def lower(k: KernelIR, debug: bool = False) -> KernelIR:
    verify(k, final=False)
    if debug:
        add_bounds_checks(k)
    k.body = simplify(lower_ops(k.body, bool(k.notes.get("fastmath"))))
    k.body = linearize(k)
    k.body = simplify(normalize_loops(k.body, k.locals))
    k.body = fuse_multiply_add(cse(k.body, k.locals))
    verify(k, final=True)
    return k
