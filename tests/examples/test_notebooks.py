"""The notebooks: docs/notebooks/getting_started.ipynb runs top to bottom on the CPU engine (with
nbclient, where it is installed) and is committed without outputs, and its page on the site
(docs/notebooks/getting_started.md, tools/notebook_page.py) is current; the Pluto notebook
docs/notebooks/tack_kernels.jl parses as Julia and includes kernels that exist."""
from __future__ import annotations

import importlib.util
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


def _page_tool():
    path = ROOT / "tools" / "notebook_page.py"
    spec = importlib.util.spec_from_file_location("tack_tool_notebook_page", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def executed():
    """getting_started.ipynb executed once on the CPU engine, with this checkout's tack."""
    pytest.importorskip("nbformat")
    pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    pytest.importorskip("matplotlib")
    return _page_tool().execute()  # raises CellExecutionError naming the cell on any failure


def test_getting_started_executes_on_the_cpu_engine(executed):
    text = "\n".join(str(o.get("text", "")) for c in executed.cells for o in c.get("outputs", []))
    assert "race on shared array 'buf'" in text and "FAIL add" in text and "PASS add_fixed" in text


def test_notebook_page_has_the_notebooks_cells():
    """The committed page holds every cell of the notebook, in order, and the images it names;
    no execution needed, so a stale page fails wherever the tests run."""
    tool = _page_tool()
    nb = json.loads((NOTEBOOKS / "getting_started.ipynb").read_text())
    page = (NOTEBOOKS / "getting_started.md").read_text()
    stale = "docs/notebooks/getting_started.md is stale: python tools/notebook_page.py"
    shown = [body for kind, body in tool.skeleton(page) if kind == "python"]
    code = ["".join(c["source"]).strip("\n") for c in nb["cells"] if c["cell_type"] == "code"]
    assert shown == code, stale
    at = 0
    for cell in nb["cells"]:
        if cell["cell_type"] == "markdown":
            at = page.find("".join(cell["source"]).strip("\n"), at)
            assert at >= 0, stale
    images = [body for kind, body in tool.skeleton(page) if kind == "image"]
    assert images, "the page shows no image output"
    assert sorted(images) == sorted(p.name for p in NOTEBOOKS.glob("getting_started_*.png"))
    for name in images:
        assert (NOTEBOOKS / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_notebook_page_has_the_outputs_of_an_execution(executed):
    """Per code cell, the page shows the kinds of output (text, images) an execution gives now;
    the output text itself may differ (temporary file names, timings)."""
    tool = _page_tool()
    fresh, _ = tool.render(executed)
    committed = (NOTEBOOKS / "getting_started.md").read_text()
    assert tool.skeleton(committed) == tool.skeleton(fresh), (
        "docs/notebooks/getting_started.md is stale: python tools/notebook_page.py")
    kinds = {kind for kind, _ in tool.skeleton(committed)}
    assert kinds == {"python", "text", "image"}


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
