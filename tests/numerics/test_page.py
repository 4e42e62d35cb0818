"""docs/numerics.md states what the tests check: its tables are generated from
tack.testing.bounds and the engine registry (tools/numerics_page.py)."""
import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _tool():
    spec = importlib.util.spec_from_file_location("tack_numerics_page",
                                                  ROOT / "tools" / "numerics_page.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_page_is_current():
    tool = _tool()
    text = tool.PAGE.read_text()
    assert len(tool.MARK.findall(text)) == len(tool.TABLES)
    assert tool.page(text) == text, "docs/numerics.md is stale: python tools/numerics_page.py"
