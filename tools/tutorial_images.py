"""docs/examples/images/: every tutorial's --output picture, drawn on the CPU engine at the size
listed here (small enough to draw in seconds, large enough to show the subject), one process each.

    python tools/tutorial_images.py              # all ten
    python tools/tutorial_images.py dye nbody    # some

The tutorials save through `_tutorial.save` (144 dpi, a 256-colour palette, optimized), so each
file stays well under the 200 kB that tests/examples/test_site.py allows. Afterwards regenerate
the page: python tools/tutorials_page.py > docs/tutorials.md
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "docs" / "examples"

# The --size each picture is drawn at; the tutorials' own defaults are for a GPU.
SIZES = {
    "heat": 128,            # 512 steps: the spot has spread to the walls
    "dye": 256,             # half a turn; the numerical diffusion shows at the edges
    "physarum": 192,        # 9216 agents, 400 frames: a network of trails
    "contours": 32,         # a coarse grid, so the cells and the segments show
    "mpm": 96,              # 9216 particles
    "nbody": 4096,
    "isosurface": 24,       # coarse enough for single triangles to show
    "array_sizes": 20_000,
    "kernel_results": 100_000,
    "interop": 4096,
}


def draw(name: str) -> None:
    out = EXAMPLES / "images" / f"{name}.png"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in (str(ROOT / "python"), os.environ.get("PYTHONPATH")) if p))
    cmd = [sys.executable, str(EXAMPLES / f"{name}.py"), "--arch", "cpu",
           "--size", str(SIZES[name]), "--output", str(out)]
    subprocess.run(cmd, check=True, cwd=EXAMPLES, env=env)
    print(f"{out.relative_to(ROOT)}: {out.stat().st_size} bytes")


if __name__ == "__main__":
    names = sys.argv[1:] or list(SIZES)
    unknown = sorted(set(names) - set(SIZES))
    if unknown:
        sys.exit(f"unknown tutorial(s): {', '.join(unknown)}; known: {', '.join(SIZES)}")
    for name in names:
        draw(name)
