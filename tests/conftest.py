import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)  # so tests can import the shared corpus as `tests.kernels`

from tests import engines  # importable once ROOT is on the path

pytest_plugins = ["tests.julia_session"]  # the Julia 1.5.3 process the `julia` engine runs on


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite golden files (julia/kernels/*.jl, tests/render/golden/) from "
                          "the renderers instead of comparing; review the diff before committing")
    parser.addoption("--engines", default=",".join(engines.ENGINES),
                     help="the engines the `engine` fixture runs tests on, comma-separated "
                          f"(default: {','.join(engines.ENGINES)}; cuda cases skip without a "
                          "GPU, julia cases exist where Julia is installed)")


def pytest_configure(config):
    engines.selected(config)  # an unknown name fails before collection


def pytest_generate_tests(metafunc):
    """A test taking `engine` runs once per engine (tests/engines.py), the engine in its id."""
    found = engines.cases(metafunc, "engine", __name__)
    if found is not None:
        metafunc.parametrize("engine", found, indirect=True)


@pytest.fixture
def engine(request):
    """The engine of this case made the default device (the Device); `_restore_defaults` puts
    the previous one back."""
    return engines.select(request.param, request)


@pytest.fixture(autouse=True)
def _restore_defaults():
    """Every test starts and ends with the default device, debug mode and deterministic mode it
    found: a test may select a device or turn a mode on without a `try`/`finally` of its own."""
    import tack

    device, debug = tack.default_device(), tack.debug_mode()
    determ = tack.deterministic_mode()
    yield
    tack.set_debug(debug)
    tack.set_deterministic(determ)
    if tack.default_device() is not device:
        tack.set_default_device(device)


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


# The files holding the suite's longest tests (minutes of Julia 1.5.3 or of compiles each), run
# first: under `-n auto --dist worksteal` (the README's command) a long test that starts last
# would run alone on one core at the end. Only the order changes; a stale name matches nothing.
LONG_FIRST = (
    "tests/julia/test_julia153_runtests.py",
    "tests/ops/test_workgroup_paths.py",
    "tests/exec/test_differential.py",
    "tests/julia/test_julia153_differential.py",
    "tests/julia/test_ops_layout.py",
    "tests/julia/test_workgroups.py",
)


def pytest_collection_modifyitems(config, items):
    for item in items:  # a marker on a test that takes no engine fixture is checked too
        engines.marked(item.nodeid, list(item.iter_markers("engines")))

    def rank(item):
        path = item.nodeid.split("::", 1)[0]
        return LONG_FIRST.index(path) if path in LONG_FIRST else len(LONG_FIRST)

    items.sort(key=rank)  # stable: files stay whole and in their own order


# A GPU fault (an illegal instruction or address) leaves the process's CUDA context unusable:
# every later CUDA test of the process would fail with the same sticky error and bury the one
# that caused it (one such fault once turned 5 failures into 187 under -n 16). The first failure
# that reports it is kept; the process's later CUDA tests are skipped, naming it, and the
# summary's skip lines say how many did not run.
DEAD_CUDA_CONTEXT = "CUDA context is now unusable"  # runtime/cuda/engine.py words a sticky error
_dead_cuda_context: list[str] = []


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.failed and not _dead_cuda_context and DEAD_CUDA_CONTEXT in report.longreprtext:
        _dead_cuda_context.append(item.nodeid)


def pytest_runtest_setup(item):
    if _dead_cuda_context and item.get_closest_marker("cuda") is not None:
        pytest.skip(f"not run: this test process's CUDA context died in "
                    f"{_dead_cuda_context[0]} (run it again in a fresh process)")


def pytest_terminal_summary(terminalreporter):
    """Skipped tests as one line per reason with its count, most frequent first: a green run
    stays short, and what did not run (no GPU, no Julia, no MPI) is still said."""
    skipped = terminalreporter.stats.get("skipped", [])
    reasons: dict[str, int] = {}
    for report in skipped:
        longrepr = report.longrepr
        reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
        reason = reason.removeprefix("Skipped: ")
        reasons[reason] = reasons.get(reason, 0) + 1
    if not reasons:
        return
    terminalreporter.write_sep("-", f"{len(skipped)} skipped, by reason")
    for reason, count in sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0])):
        terminalreporter.write_line(f"{count:6d}  {reason}")
