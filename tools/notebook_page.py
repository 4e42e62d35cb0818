"""docs/notebooks/getting_started.md: the getting-started notebook executed on the CPU engine, as a
page of the site: markdown cells as they are, code cells as fenced Python, text outputs as fenced
text, image outputs as PNG files beside the page (getting_started_1.png, ...).

    python tools/notebook_page.py                 # execute with nbclient, write page and images
    python tools/notebook_page.py executed.ipynb  # from a copy executed elsewhere

The notebook itself is committed without outputs (tests/examples/test_notebooks.py); the page is
committed with them. The outputs may differ slightly from run to run (timings, addresses), so the
test compares the page's structure with the notebook: its code cells and, per cell, the kinds of
output an execution gives. Only nbformat and nbclient are needed (the test extra).
"""
from __future__ import annotations

import base64
import os
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "docs" / "notebooks"
NOTEBOOK = NOTEBOOKS / "getting_started.ipynb"
PAGE = NOTEBOOKS / "getting_started.md"
IMAGE = "getting_started_{}.png"

NOTE = ("*This page is [`docs/notebooks/getting_started.ipynb`](getting_started.ipynb) executed on "
        "the CPU engine, outputs included; `python tools/notebook_page.py` regenerates it.*")
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def execute(path: Path = NOTEBOOK):
    """The notebook executed top to bottom on the CPU engine by a python3 kernel that imports this
    checkout's tack; raises nbclient's CellExecutionError naming the cell on a failure."""
    import nbclient
    import nbformat

    nb = nbformat.read(path, as_version=4)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in (str(ROOT / "python"), os.environ.get("PYTHONPATH")) if p))
    with tempfile.TemporaryDirectory() as cwd:
        client = nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                                         resources={"metadata": {"path": cwd}})
        client.execute(env=env)  # passed on to the kernel process's launch
    return nb


def fence(body: str, info: str) -> str:
    """`body` in a code fence longer than any run of backticks inside it."""
    ticks = "`" * max([3, *(len(run) + 1 for run in re.findall(r"`+", body))])
    return f"{ticks}{info}\n{body.rstrip()}\n{ticks}"


def outputs(cell) -> list[tuple[str, str | bytes]]:
    """A code cell's outputs as ("text", str) or ("image", PNG bytes), in order."""
    found = []
    for out in cell.get("outputs", []):
        kind = out.get("output_type")
        if kind == "stream":
            found.append(("text", out.get("text", "")))
        elif kind in ("execute_result", "display_data"):
            data = out.get("data", {})
            if "image/png" in data:
                found.append(("image", base64.b64decode(data["image/png"])))
            elif "text/plain" in data:
                found.append(("text", data["text/plain"]))
        elif kind == "error":
            found.append(("text", "\n".join(out.get("traceback", []))))
    # consecutive stream outputs (stdout written in pieces) read as one block
    merged: list[tuple[str, str | bytes]] = []
    for kind, value in found:
        if kind == "text" and merged and merged[-1][0] == "text":
            merged[-1] = ("text", merged[-1][1] + value)
        else:
            merged.append((kind, value))
    return [(k, ANSI.sub("", v) if k == "text" else v) for k, v in merged]


def render(nb) -> tuple[str, dict[str, bytes]]:
    """The page's markdown and its images (file name -> PNG bytes) for an executed notebook."""
    blocks, images = [], {}
    for index, cell in enumerate(nb.cells):
        source = cell.source.strip("\n")
        if cell.cell_type == "markdown":
            blocks.append(source)
            if index == 0:
                blocks.append(NOTE)
        elif cell.cell_type == "code":
            blocks.append(fence(source, "python"))
            for kind, value in outputs(cell):
                if kind == "image":
                    name = IMAGE.format(len(images) + 1)
                    images[name] = value  # as drawn: a palette would band the colour map
                    blocks.append(f"![output {len(images)}]({name})")
                elif value.strip():
                    blocks.append(fence(value, "text"))
    return "\n\n".join(blocks) + "\n", images


BLOCK = re.compile(r"^(`{3,})(python|text)\n(.*?)\n\1$|^!\[output \d+\]\(([\w.]+)\)$",
                   re.MULTILINE | re.DOTALL)


def skeleton(page: str) -> list[tuple[str, str | None]]:
    """The page's code cells and output kinds in order: ("python", source), ("text", None),
    ("image", file name)."""
    found = []
    for match in BLOCK.finditer(page):
        if match.group(4):
            found.append(("image", match.group(4)))
        elif match.group(2) == "python":
            found.append(("python", match.group(3)))
        else:
            found.append(("text", None))
    return found


def write(nb) -> None:
    text, images = render(nb)
    for stale in NOTEBOOKS.glob(IMAGE.format("*")):
        stale.unlink()
    for name, data in images.items():
        (NOTEBOOKS / name).write_bytes(data)
    PAGE.write_text(text)
    print(f"wrote {PAGE.relative_to(ROOT)} and {len(images)} image(s)")


if __name__ == "__main__":
    import nbformat

    write(nbformat.read(sys.argv[1], as_version=4) if len(sys.argv) > 1 else execute())
