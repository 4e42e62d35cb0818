"""docs/performance.md's figures are current: every number of docs/performance/data.json stands
in the page's table row it names, the committed PNGs were drawn from that data (the digest
tools/performance_plot.py writes into each), and the page shows them."""
from __future__ import annotations

import copy
import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "performance.md"


def _tool():
    spec = importlib.util.spec_from_file_location("tack_tool_performance_plot",
                                                  ROOT / "tools" / "performance_plot.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _tables() -> dict[str, list[list[str]]]:
    """Heading text -> the rows (lists of cells) of the tables under it, code blocks skipped."""
    out: dict[str, list[list[str]]] = {}
    heading, fenced = None, False
    for line in PAGE.read_text().splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("#"):
            heading = line.lstrip("#").strip()
            out.setdefault(heading, [])
        elif not fenced and line.startswith("|") and not re.match(r"\|\s*-+", line):
            out.setdefault(heading, []).append([c.strip() for c in line.strip("|").split("|")])
    return out


def _row(tables, entry) -> str:
    assert entry["section"] in tables, f"no section {entry['section']!r} in docs/performance.md"
    rows = [r for r in tables[entry["section"]] if r[0] == entry["row"]]
    assert len(rows) == 1, (f"{len(rows)} rows {entry['row']!r} under "
                            f"{entry['section']!r} in docs/performance.md")
    return " | ".join(rows[0])


def _expected(entry) -> list[str]:
    """The strings the page's row must hold for this entry, formatted as the page writes them."""
    want = []
    for key in ("tack_gbps", "peer_gbps", "gbps"):
        if key in entry:
            want.append(f"{entry[key]} GB/s")
    if "peer_ms" in entry:
        want.append(f"{entry['peer_ms']:.3f} ms")
    if "ratio" in entry:
        r = f"{entry['ratio']:.2f}×"
        want.append(f"{r} ({entry['q25']:.2f}–{entry['q75']:.2f}" if "q25" in entry else r)
    return want


def test_every_number_of_the_data_file_is_in_the_page():
    data, tables = _tool().load(), _tables()
    entries = ([data["gpu_bandwidth"]["limit"]] + data["gpu_bandwidth"]["rows"]
               + data["cpu_ratios"]["rows"])
    for entry in entries:
        row = _row(tables, entry)
        for text in _expected(entry):
            assert text in row, f"docs/performance.md's row {entry['row']!r} lacks {text!r}: {row}"


def test_a_peer_rate_computed_from_its_time_counts_the_bytes_the_page_counts():
    # The figure turns a peer's time into GB/s with the row's `bytes`; the page's own rate for
    # Tack (time, then GB/s) must follow from the same count.
    tool, tables = _tool(), _tables()
    derived = [r for r in tool.load()["gpu_bandwidth"]["rows"] if "peer_ms" in r]
    assert derived
    for entry in derived:
        ms, gbps = re.search(r"(\d+\.\d+) ms, (\d+) GB/s", _row(tables, entry)).groups()
        assert entry["tack_gbps"] == int(gbps)
        assert abs(entry["bytes"] / (float(ms) * 1e-3) / 1e9 / int(gbps) - 1) < 0.005, entry


def test_the_committed_figures_were_drawn_from_the_data_file():
    tool = _tool()
    assert tool.stale(tool.load(), tool.DATA.parent) == [], (
        "docs/performance/*.png are stale: python tools/performance_plot.py")


def test_the_page_shows_every_figure():
    text = PAGE.read_text()
    for name in _tool().FIGURES.values():
        assert re.search(rf"!\[[^\]]+\]\(performance/{re.escape(name)}\)", text), name
        assert (ROOT / "docs" / "performance" / name).stat().st_size < 200_000


def test_the_tool_draws_and_notices_changed_data(tmp_path):
    pytest.importorskip("matplotlib")
    tool = _tool()
    data = tool.load()
    tool.draw_all(data, tmp_path)
    assert tool.stale(data, tmp_path) == []
    changed = copy.deepcopy(data)
    changed["cpu_ratios"]["rows"][0]["ratio"] += 0.01
    assert tool.stale(changed, tmp_path) == ["cpu-ratios.png"]
    assert tool.main(["--check", "--out", str(tmp_path)]) == 0
