import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)  # so tests can import the shared corpus as `tests.kernels`


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite golden files (e.g. julia/kernels/*.jl) from the renderers "
                          "instead of comparing; review the diff before committing")


@pytest.fixture(scope="session", autouse=True)
def _private_tack_cache(tmp_path_factory):
    """Kernels compiled by the tests (and by the subprocesses they start, which inherit the
    environment) go to a temporary disk cache, never to the user's ~/.cache/tack."""
    old = os.environ.get("TACK_CACHE_DIR")
    os.environ["TACK_CACHE_DIR"] = str(tmp_path_factory.mktemp("tack-cache"))
    yield
    if old is None:
        os.environ.pop("TACK_CACHE_DIR", None)
    else:
        os.environ["TACK_CACHE_DIR"] = old
