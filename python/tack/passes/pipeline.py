"""The fixed order of IR passes between the typechecker and every renderer."""
from __future__ import annotations

from ..ir.nodes import KernelIR
from ..ir.verify import verify
from .bounds import add_bounds_checks
from .cse import cse
from .half import widen_half
from .libmath import use_library_math
from .linearize import linearize
from .loops import normalize_loops
from .lower_ops import lower_ops
from .muladd import fuse_multiply_add
from .simplify import simplify
from .tables import clamp_table_indices, drop_unread_tables


def lower(k: KernelIR, debug: bool = False, checked: bool = False,
          library_math: bool = True) -> KernelIR:
    """`checked` (tack.check) leaves constant-table indices as computed, so that the simulator
    reports one outside its table instead of reading the last entry (passes/tables.py).
    `library_math`: the engine takes the library's float32 math functions (passes/libmath.py)."""
    verify(k, final=False)
    k.body = widen_half(k.body)  # first: a half exp is the f32 exp, library math included
    if library_math:
        use_library_math(k)
    if debug:
        add_bounds_checks(k)
    k.body = simplify(lower_ops(k.body, bool(k.notes.get("fastmath"))))
    k.body = linearize(k)
    if not checked:
        k.body = clamp_table_indices(k)
    k.body = simplify(normalize_loops(k.body, k.locals))
    k.body = fuse_multiply_add(cse(k.body, k.locals))
    drop_unread_tables(k)
    verify(k, final=True)
    return k
