"""Tier 2: julia/kernels/<case>.jl are exactly what the renderer prints for the corpus.

`pytest tests/julia --update-golden` rewrites them; review `git diff julia/kernels` before
committing (the Julia test suite in julia/test/ runs these files).
"""
import pytest

from tests.julia.golden import ALL_CASES, KERNEL_DIR, kernel_file


@pytest.mark.parametrize("case", ALL_CASES, ids=[c.name for c in ALL_CASES])
def test_kernel_file_matches_renderer(case, request):
    path = KERNEL_DIR / f"{case.name}.jl"
    text = kernel_file(case)
    if request.config.getoption("--update-golden"):
        path.write_text(text)
    assert path.is_file(), f"{path} is missing: run pytest tests/julia --update-golden"
    assert path.read_text() == text, f"{path} differs from the renderer: see --update-golden"


def test_no_stale_kernel_files():
    from tack.julia import OPS  # tack.ops' files, checked by tests/julia/test_ops_render.py

    names = {c.name for c in ALL_CASES} | set(OPS)
    stale = sorted(p.name for p in KERNEL_DIR.glob("*.jl") if p.stem not in names)
    assert not stale, f"julia/kernels has files for no corpus case and no op: {stale}"
    assert not {c.name for c in ALL_CASES} & set(OPS), "a corpus case and an op share a file"
