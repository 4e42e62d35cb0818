"""julia/kernels/<op>.jl (tack.ops for Julia users) are exactly what `python -m tack.julia
render` writes from tack.ops' kernels and the bridges; every op file has its Julia test."""
import pytest
from tack.julia import OPS, render_file
from tack.julia.__main__ import main

from tests.julia.golden import KERNEL_DIR, ROOT


@pytest.mark.parametrize("name", sorted(OPS))
def test_op_file_matches_renderer(name, request):
    path = KERNEL_DIR / f"{name}.jl"
    text = render_file(name)
    if request.config.getoption("--update-golden"):
        path.write_text(text)
    assert path.is_file(), f"{path} is missing: run python -m tack.julia render"
    assert path.read_text() == text, f"{path} differs: run python -m tack.julia render"


@pytest.mark.parametrize("name", sorted(OPS))
def test_op_file_has_a_julia_test(name):
    test = ROOT / "julia" / "test" / f"test_{name}.jl"
    assert test.is_file(), f"{test} is missing"
    text = test.read_text()
    assert f'"{name}.jl"' in text and f"function test_{name}(b)" in text
    for bridge in OPS[name].bridges:
        assert bridge in text, f"{test} never calls {bridge}"


def test_render_command_writes_every_file(tmp_path, capsys):
    assert main(["render", str(tmp_path)]) == 0
    assert sorted(p.stem for p in tmp_path.glob("*.jl")) == sorted(OPS)
    assert capsys.readouterr().out.count("wrote ") == len(OPS)
    assert main(["render", str(tmp_path)]) == 0  # unchanged files are not rewritten
    assert capsys.readouterr().out == ""
