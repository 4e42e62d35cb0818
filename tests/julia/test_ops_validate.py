"""`python -m tack.julia validate`: clean on every committed kernel file, and one finding (at
least) for each kind of planted mistake, with a non-zero exit."""
import shutil
import subprocess
import sys

import pytest
from tack.julia.validate import findings, main

from tests.julia.golden import KERNEL_DIR, ROOT

pytest.importorskip("tree_sitter_julia")


def test_every_kernel_file_is_clean(capsys):
    files = sorted(KERNEL_DIR.glob("*.jl"))
    assert main(files) == 0, capsys.readouterr().out
    assert f"{len(files)} files, 0 findings" in capsys.readouterr().err


def test_command_line_exit_status(tmp_path):
    bad = tmp_path / "saxpy.jl"
    text = (KERNEL_DIR / "saxpy.jl").read_text()
    bad.write_text(text.replace("using .TackRuntime", "using .TackRuntime\nimport NNlib"))
    env_py = [sys.executable, "-m", "tack.julia", "validate"]
    ok = subprocess.run(env_py + [str(KERNEL_DIR / "saxpy.jl")], capture_output=True, text=True,
                        cwd=ROOT, check=False)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    r = subprocess.run(env_py + [str(bad)], capture_output=True, text=True, cwd=ROOT, check=False)
    assert r.returncode == 1 and "loads NNlib" in r.stdout, r.stdout + r.stderr


def _planted(tmp_path, name: str, old: str, new: str, count: int = 1) -> list[str]:
    text = (KERNEL_DIR / f"{name}.jl").read_text()
    assert old in text, old
    path = tmp_path / f"{name}.jl"
    path.write_text(text.replace(old, new, count))
    if name == "log_softmax":
        shutil.copy(KERNEL_DIR / "softmax.jl", tmp_path / "softmax.jl")
    from tack.julia.validate import parser

    return findings(path, path.read_text(), parser())


SOFTMAX_ROWS = "m = x[(r * Int64(37)) + 1]"

PLANTED = [
    # (file, replace, with, a finding's words) — op files also differ from the renderer
    ("relu", "using .TackRuntime", "using .TackRuntime\nusing CUDA", "loads CUDA"),
    ("relu", "KernelAbstractions.synchronize(backend)", "CUDA.synchronize()",
     "refers to module CUDA"),
    ("relu", "tack_relu!(y, x)", "tack_relu!(y, x)", None),  # unchanged: no finding
    ("softmax_rows", SOFTMAX_ROWS, "m = x[(r * Int64(37)) + 1] * 1.5",
     "untyped literal 1.5"),
    ("softmax_rows", SOFTMAX_ROWS, "m = x[(r * 37) + 1]", "untyped literal 37"),
    ("softmax_rows", "total = 0.0f0", "total = Float32(Float64(0.0f0))",
     "Float64 in a kernel whose arguments are Float32"),
    ("softmax_rows", "e = exp(", "e = NNlib.exp(", "refers to module NNlib"),
    ("softmax_rows", "e = exp(", "e = softplus(", "calls softplus"),
    ("softmax_rows", "const tack_softmax_rows", "const tack_other", "defines no alias"),
    ("softmax_rows", "end\n\nconst", "\n\nconst", "does not parse"),
    ("add", "function tack_add!(", "function tack_plus!(", "defines no bridge function tack_add!"),
    ("log_softmax", "dims::Integer = 1", "dims::Integer = 2", "differs from `python -m tack."),
    ("gelu", "@kernel function", "@cuda function", "macro @cuda"),
]


@pytest.mark.parametrize("name,old,new,words", PLANTED, ids=[f"{p[0]}-{i}" for i, p in
                                                              enumerate(PLANTED)])
def test_planted_mistakes_are_found(tmp_path, name, old, new, words):
    found = _planted(tmp_path, name, old, new)
    if words is None:
        assert found == []
        return
    assert any(words in f for f in found), found
    assert all(f.startswith(str(tmp_path / f"{name}.jl:")) for f in found)
    if name != "softmax_rows" and "parse" not in words:
        assert any("differs from" in f for f in found), found
