"""docs/pipelines.md stays true: its Python blocks, one after the other, make `pipelines.py`;
run on the simulator, that file prints exactly the page's text blocks (the tack.check reports of
the pipelined kernel and its three broken versions, paths shown relative to the file's folder).

`python -m tests.examples.test_pipelines_page` prints what the blocks print now, to paste into
the page after a change to the kernels or to tack.check's messages."""
from __future__ import annotations

import contextlib
import io
import re
import runpy
import sys
import tempfile
from pathlib import Path

PAGE = Path(__file__).resolve().parents[2] / "docs" / "pipelines.md"


def blocks(kind: str) -> list[str]:
    return re.findall(rf"^```{kind}\n(.*?)^```$", PAGE.read_text(), re.MULTILINE | re.DOTALL)


def run_page(folder: Path) -> str:
    """What the page's program prints, with `folder/` dropped from the paths."""
    path = folder / "pipelines.py"
    path.write_text("\n\n".join(blocks("python")))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        runpy.run_path(str(path), run_name="pipelines")
    return out.getvalue().replace(f"{folder}/", "")


def test_the_page_prints_what_its_program_prints(tmp_path):
    got = run_page(tmp_path)  # the page sets the default device; conftest restores it
    want = "".join(blocks("text"))
    assert got == want


def test_the_page_shows_each_problem():
    text = "".join(blocks("text"))
    assert "may not have landed" in text  # the missing wait
    assert "more than the 128 arrivals per phase" in text  # the wrong count
    assert "deadlock: 256 lane(s)" in text and "1 of its 2 expected arrivals" in text


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as d:
        sys.stdout.write(run_page(Path(d)))
