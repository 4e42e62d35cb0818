import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)  # so tests can import the shared corpus as `tests.kernels`


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite golden files (e.g. julia/kernels/*.jl) from the renderers "
                          "instead of comparing; review the diff before committing")
