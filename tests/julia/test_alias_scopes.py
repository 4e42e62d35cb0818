"""No Julia text Tack ships or renders marks an argument `@Const`.

KernelAbstractions 0.9.39 to 0.9.41 wrap a kernel body in an alias scope only when an argument is
marked `@Const`
(https://github.com/JuliaGPU/KernelAbstractions.jl/commit/218abb9cfd130e066b2b7117543b7ab0642ff54f),
and Julia 1.11 to 1.13 miscompile some loops inside alias scopes
(https://github.com/JuliaLang/julia/issues/63129, https://github.com/JuliaLang/julia/issues/60029).
Without `@Const` those versions emit no alias scope, so Tack's kernels are outside that miscompile
there; docs/julia.md ("Julia versions", with what KA 0.10 does) promises it, and this test keeps
the promise true. The op files in julia/kernels are checked against their renderer elsewhere, so
reading them reads the renderer's output."""
from pathlib import Path

import pytest
from tack.render.julia.ka import render_julia

from tests.julia.golden import ALL_CASES, case_ir

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = sorted(p for p in (ROOT / "julia").rglob("*.jl") if "standin" not in p.parts) + [
    ROOT / "python" / "tack" / "jl" / "TackRuntime.jl"] + sorted(
    (ROOT / "python" / "tack" / "julia" / "bridges").glob("*.jl"))


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: str(p.relative_to(ROOT)))
def test_shipped_julia_marks_nothing_const(path):
    assert "@Const" not in path.read_text()


@pytest.mark.parametrize("case", ALL_CASES, ids=[c.name for c in ALL_CASES])
def test_rendered_kernels_mark_nothing_const(case):
    assert "@Const" not in render_julia(case_ir(case))

