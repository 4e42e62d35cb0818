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


# the ops whose Python wrappers run f16/bf16 rows in their own kernels (docs/ops.md, "Half
# precision"); matmul and attention multiply half through an f32 copy
NATIVE_HALF = {"add", "relu", "gelu", "silu", "softmax", "log_softmax", "layer_norm", "rms_norm"}


@pytest.mark.parametrize("name", sorted(OPS))
def test_op_file_element_types(name):
    """An op file holds Float16 kernels exactly where tack.ops runs half rows natively, beside
    Float32 and Float64 (log_softmax and batched_matmul through the file they include)."""
    op = OPS[name]
    source = OPS[op.includes[0]] if op.includes else op
    text = (KERNEL_DIR / f"{source.name}.jl").read_text()
    table = text.split(f"const TK_{source.name.upper()}_KERNELS", 1)[1].split("\n    )", 1)[0]
    types = {row.split(", ")[1] for row in table.splitlines()[1:]}
    assert types == ({"Float32", "Float64", "Float16"} if name in NATIVE_HALF
                     else {"Float32", "Float64"})
    if name in NATIVE_HALF and op.entries:
        assert "AbstractVector{Float16}" in text


def test_render_command_writes_every_file(tmp_path, capsys):
    assert main(["render", str(tmp_path)]) == 0
    assert sorted(p.stem for p in tmp_path.glob("*.jl")) == sorted(OPS)
    assert capsys.readouterr().out.count("wrote ") == len(OPS)
    assert main(["render", str(tmp_path)]) == 0  # unchanged files are not rewritten
    assert capsys.readouterr().out == ""


def test_the_bridges_launch_by_the_python_sides_sizes():
    """The workgroup and the one-read row limit are said once, in Python (tack.ir.ops.WORKGROUP,
    tack.ops.softmax.MAX_PER_LANE): each op file defines them, and no bridge spells them."""
    import re
    from importlib import resources

    from tack.ir.ops import WORKGROUP
    from tack.ops.softmax import MAX_PER_LANE

    for name in OPS:
        text = render_file(name)
        assert f"const TK_OPS_LANES = {WORKGROUP}\n" in text
        assert f"const TK_OPS_CACHED_MAX = {WORKGROUP * MAX_PER_LANE}\n" in text
    bridges = resources.files("tack.julia").joinpath("bridges")
    for path in bridges.iterdir():
        if path.name.endswith(".jl"):
            assert not re.search(rf"\b{WORKGROUP}\b", path.read_text()), path.name
