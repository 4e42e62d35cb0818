"""Loading the docs/examples tutorials as modules, for the tests that run their --check."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"
TUTORIALS = ("heat", "dye", "physarum", "contours", "mpm", "nbody", "isosurface", "array_sizes",
             "kernel_results", "interop")


def load(name: str):
    """docs/examples/NAME.py as a module (its folder on sys.path, for `_tutorial`)."""
    if str(EXAMPLES) not in sys.path:
        sys.path.insert(0, str(EXAMPLES))
    mod_name = f"tack_tutorial_{name}"
    if mod_name not in sys.modules:
        spec = importlib.util.spec_from_file_location(mod_name, EXAMPLES / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[mod_name] = module
        spec.loader.exec_module(module)
    return sys.modules[mod_name]


def run(name: str, *argv: str) -> int:
    """The tutorial's command line with these arguments (it may select a device: the root
    conftest's `_restore_defaults` puts the test's back)."""
    return load(name).cli(list(argv))
