"""The documentation site: generated pages are current, every page is in the navigation, and
(where mkdocs is installed: the docs extra) `mkdocs build --strict` passes, so broken links,
missing anchors and missing pages fail."""
from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


def _tool(name: str):
    path = ROOT / "tools" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"tack_tool_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_tutorials_page_is_generated_from_the_tutorials():
    page = _tool("tutorials_page").page()
    assert (DOCS / "tutorials.md").read_text() == page, (
        "docs/tutorials.md is stale: python tools/tutorials_page.py > docs/tutorials.md")
    for name in _tool("tutorials_page").ORDER:
        assert (DOCS / "examples" / "images" / f"{name}.png").stat().st_size < 200_000


def test_capability_table_is_current():
    tool = _tool("capability_table")
    text = (DOCS / "engines.md").read_text()
    table = text.split(tool.START, 1)[1].split(tool.END, 1)[0].strip()
    assert table == tool.table_markdown(), "docs/engines.md: python tools/capability_table.py"


def test_every_page_is_in_the_navigation():
    config = (ROOT / "mkdocs.yml").read_text()
    nav = set(re.findall(r":\s*([\w./-]+\.md)\s*$", config, re.MULTILINE))
    pages = {str(p.relative_to(DOCS)) for p in DOCS.rglob("*.md")}
    assert pages == nav, f"not in mkdocs.yml's nav: {sorted(pages - nav)}; " \
                         f"missing: {sorted(nav - pages)}"


def test_site_builds_in_strict_mode(tmp_path):
    if importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("material") is None:
        pytest.skip("mkdocs and mkdocs-material are not installed (pip install '.[docs]')")
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q",
                           "-f", str(ROOT / "mkdocs.yml"), "-d", str(tmp_path / "site")],
                          check=False, capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (tmp_path / "site" / "tutorials" / "index.html").exists()
    # Markdown the build left as text (a picture grid without md_in_html, say) passes --strict:
    # no page's text may hold image or link syntax outside code.
    raw = re.compile(r"!\[[^\]]*\]\([^)]*\)|(?<![\w\]])\[[^\]\n]+\]\((?:[\w./#-]+)\)")
    for page in (tmp_path / "site").rglob("*.html"):
        html = page.read_text(errors="replace")
        html = re.sub(r"<(pre|code|script|style)\b.*?</\1>", "", html, flags=re.DOTALL)
        found = raw.findall(html)
        assert not found, f"{page.relative_to(tmp_path)}: raw markdown {found[:3]}"
    index = (tmp_path / "site" / "index.html").read_text()
    assert '<img alt="heat"' in index
