"""docs/tutorials.md, generated from the tutorials' own docstrings (docs/examples/*.py) and their
pictures (docs/examples/images/), so the page says what the programs say; a test keeps it current.

    python tools/tutorials_page.py > docs/tutorials.md
"""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "docs" / "examples"
ORDER = ("heat", "dye", "physarum", "contours", "mpm", "nbody", "isosurface", "array_sizes",
         "kernel_results", "interop")

INTRO = """# Tutorials

Ten programs in `docs/examples/`, each a complete simulation or technique that runs on every
engine, checks itself and draws a picture. Every one takes the same options:

| option | meaning |
| --- | --- |
| `--arch {cpu,cuda,sim,julia}` | the backend, started as asked (else exit 2: "not available") |
| `--check` | small inputs, independent references and invariants (exit status 1 on a failure) |
| `--output file.png` | draw the result with matplotlib (the plot extra: `pip install '.[plot]'`) |
| `--size N` | the problem size |

and ends with a `timing:` line: the first call (compiling included, unless the disk cache has the
kernel) and the warm median. `python docs/examples/validate.py --arch X` runs all of them with
`--check`, each in its own process with a timeout, and prints a table; it is the main job
(`--arch cpu` and `--arch sim` in CI, `--arch cuda` on a GPU). The test suite runs every
`--check` on the CPU engine and the simulator (`tests/examples/`), and on CUDA where there is a
GPU (`tests/cuda/test_tutorials_cuda.py`). The pictures below were drawn by `--output` on the CPU
engine at the sizes `python tools/tutorial_images.py` lists (it redraws them all).
"""


def paragraphs(text: str) -> str:
    """Docstring text as Markdown: a blank line before a list that follows a paragraph line."""
    out, prev = [], ""
    for line in text.splitlines():
        item = line.startswith("- ") or line[:3] in ("1. ", "2. ", "3. ", "4. ")
        if item and prev.strip() and not (prev.startswith(("- ", "  ")) or prev[:3] in
                                          ("1. ", "2. ", "3. ")):
            out.append("")
        out.append(line)
        prev = line
    return "\n".join(out)


def section(name: str) -> str:
    path = EXAMPLES / f"{name}.py"
    doc = ast.get_docstring(ast.parse(path.read_text()), clean=True)
    title, _, rest = doc.partition("\n")
    body = rest.strip("\n")
    usage, _, text = body.partition("\n\n")
    lines = [f"## `{name}.py`: {title.rstrip('.')} {{ #{name} }}", ""]
    image = EXAMPLES / "images" / f"{name}.png"
    if image.exists():
        header = image.read_bytes()[:24]  # PNG: the IHDR chunk's width and height
        width, height = int.from_bytes(header[16:20], "big"), int.from_bytes(header[20:24], "big")
        # two panels side by side (dye, nbody) get the column's width; one panel floats right
        place = "width=560" if width > 1.6 * height else "align=right width=300"
        lines += [f"![{name}](examples/images/{name}.png){{ {place} }}", ""]
    commands = [u.strip() for u in usage.strip().splitlines()]
    lines += ["```sh", *commands, "```", "", paragraphs(text.strip()),
              "", f"Source: [`docs/examples/{name}.py`](examples/{name}.py).", ""]
    return "\n".join(lines)


def page() -> str:
    return INTRO + "\n" + "\n".join(section(name) for name in ORDER)


if __name__ == "__main__":
    print(page(), end="")
