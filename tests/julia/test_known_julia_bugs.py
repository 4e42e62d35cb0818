"""Bugs the Julia 1.5.3 tier found that live outside the Julia files (routed to the renderer and
frontend owners); each test is a strict xfail until the fix lands, then passes as a regression
test."""
import pytest
from tack.ir.ops import ATOMIC
from tack.ir.walk import iter_exprs, iter_stmts
from tack.render.julia.rewrites import stmt_exprs

from tests.julia.golden import ALL_CASES, case_ir


def _atomic_arrays(kir) -> set:
    return {x.arg for s in iter_stmts(kir.body) for e in stmt_exprs(s) for x in iter_exprs(e)
            if x.op in ATOMIC}


ATOMIC_CASES = [c for c in ALL_CASES if _atomic_arrays(case_ir(c))]


@pytest.mark.parametrize("case", ATOMIC_CASES, ids=[c.name for c in ATOMIC_CASES])
def test_arrays_updated_by_atomics_count_as_written(case):
    kir = case_ir(case)
    flags = {p.name: p.written for p in kir.params if p.kind == "array"}
    assert all(flags[a] for a in _atomic_arrays(kir) if a in flags)
