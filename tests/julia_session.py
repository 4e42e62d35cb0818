"""The Julia 1.5.3 tier's session (tests/julia/julia153/): one Julia 1.5.3 process per test process,
wherever `julia/tools/install_local.py` has run, behind a juliacall stand-in. A pytest plugin of
tests/conftest.py, so that the `julia` engine of any test directory runs on it."""
from __future__ import annotations

import pytest

from tests.engines import julia153


@pytest.fixture(scope="session")
def julia153_process():
    """One Julia 1.5.3 process for the session's kernels (restarted by itself after a crash)."""
    from tests.julia.golden import ROOT
    from tests.julia.julia153 import SKIP_REASON
    from tests.julia.julia153.process import JuliaProcess

    launcher = julia153()
    if launcher is None:
        pytest.skip(SKIP_REASON)
    proc = JuliaProcess(launcher, ROOT / "julia")
    yield proc
    proc.close()


@pytest.fixture(scope="session")
def _julia153_session(julia153_process):
    """juliacall replaced, for the whole session, by a stand-in over the Julia 1.5.3 process; the
    engine's one Julia session is then that process's (compiled kernels stay valid across tests,
    as in a real process, so it is made once)."""
    from tests.julia.julia153.juliacall_pipe import installed

    with installed(julia153_process):
        yield julia153_process


@pytest.fixture
def julia153_engine(_julia153_session):
    """Tack's Julia engine, unchanged, on the Julia 1.5.3 process as the default device:
    `kernel(*args)` runs there."""
    import tack

    tack.set_default_device("cpu", engine="julia")
    return _julia153_session
