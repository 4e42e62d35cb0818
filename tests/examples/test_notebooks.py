"""The notebooks: docs/notebooks/getting_started.ipynb runs top to bottom on the CPU engine (with
nbclient, where it is installed) and is committed without outputs; the Pluto notebook
docs/notebooks/tack_kernels.jl parses as Julia and includes kernels that exist."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "docs" / "notebooks"


def test_getting_started_is_committed_without_outputs():
    nb = json.loads((NOTEBOOKS / "getting_started.ipynb").read_text())
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert code and all(not c.get("outputs") and c.get("execution_count") is None for c in code)


def test_getting_started_executes_on_the_cpu_engine(tmp_path):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    pytest.importorskip("matplotlib")
    nb = nbformat.read(NOTEBOOKS / "getting_started.ipynb", as_version=4)
    client = nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()  # raises CellExecutionError naming the cell on any failure
    text = "\n".join(str(o.get("text", "")) for c in nb.cells for o in c.get("outputs", []))
    assert "race on shared array 'buf'" in text and "FAIL add" in text and "PASS add_fixed" in text


@pytest.fixture(scope="module")
def pluto():
    tree_sitter = pytest.importorskip("tree_sitter")
    tree_sitter_julia = pytest.importorskip("tree_sitter_julia")
    parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_julia.language()))
    text = (NOTEBOOKS / "tack_kernels.jl").read_text()
    return text, parser.parse(text.encode())


def _problems(node):
    if node.type == "ERROR" or node.is_missing:
        yield f"{node.type} at {node.start_point}: {node.text[:60]!r}"
    for child in node.children:
        yield from _problems(child)


def test_pluto_notebook_parses(pluto):
    text, tree = pluto
    assert text.startswith("### A Pluto.jl notebook ###")
    assert list(_problems(tree.root_node)) == []
    cells = re.findall(r"^# ╔═╡ ([0-9a-f-]{36})$", text, re.MULTILINE)
    order = re.findall(r"^# [╠╟][═─]([0-9a-f-]{36})$", text, re.MULTILINE)
    assert cells and sorted(cells) == sorted(order)  # every cell listed once in the cell order


def test_pluto_notebook_includes_existing_kernels(pluto):
    text, _ = pluto
    included = re.findall(r'include\(joinpath\(KERNEL_DIR, "([\w.]+)"\)\)', text)
    assert included, "the notebook includes no kernel"
    for name in included:
        source = (ROOT / "julia" / "kernels" / name).read_text()
        constant = f"tack_{name.removesuffix('.jl')}"
        assert f"const {constant} =" in source
        assert constant in text.split(name, 1)[1], f"{constant} is included but never run"
    assert (ROOT / "julia" / "src" / "TackRuntime.jl").exists()
