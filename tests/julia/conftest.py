"""Shared fixtures of the Julia tests: a tree-sitter Julia parser, and whether Julia can run here
(decided once per session without starting a Julia download)."""
from __future__ import annotations

import functools
import importlib.machinery
import os
import shutil
import sys

import pytest


@pytest.fixture(scope="session")
def jl_parser():
    tree_sitter = pytest.importorskip("tree_sitter")
    tree_sitter_julia = pytest.importorskip("tree_sitter_julia")
    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_julia.language()))


def julia_exe() -> str | None:
    return (os.environ.get("PYTHON_JULIACALL_EXE") or os.environ.get("PYTHON_JULIAPKG_EXE")
            or shutil.which("julia"))


def juliacall_skip_reason() -> str | None:
    """None when the Julia engine starts here on the real juliacall; else why its tests are not
    run. While the Julia 1.5.3 tier's pipe stand-in is `sys.modules["juliacall"]` (a session
    fixture of the tests run earlier in this process), the real engine is not what would run."""
    if getattr(sys.modules.get("juliacall"), "TACK_PIPE_STANDIN", False):
        return "not run: this process has the Julia 1.5.3 tier's juliacall stand-in installed"
    return _real_juliacall_skip_reason()


@functools.cache
def _real_juliacall_skip_reason() -> str | None:
    """juliacall would download Julia when none is found, so without a Julia executable it is
    not imported. Found on sys.path, whatever sys.modules holds."""
    if importlib.machinery.PathFinder.find_spec("juliacall") is None:
        return "not run: juliacall not installed (pip install '.[julia]' in a clone of Tack)"
    if julia_exe() is None:
        return "not run: julia not installed (put julia on PATH or set PYTHON_JULIACALL_EXE)"
    from tack.runtime.julia import _Session

    try:
        _Session.get()
    except RuntimeError as exc:
        return f"not run: the Julia engine did not start: {exc}"
    return None


@pytest.fixture
def julia_engine_available():
    reason = juliacall_skip_reason()
    if reason:
        pytest.skip(reason)


# -- the Julia 1.5.3 tier (tack.testing.julia): runs wherever install_local.py has run ----------

def julia153() -> str | None:
    """The private Julia 1.5.3's launcher, or None (then the tier's tests skip)."""
    from tack.testing.julia import launcher_path

    found = launcher_path()
    return str(found) if found else None


@pytest.fixture(scope="session")
def julia153_process():
    """One Julia 1.5.3 process for the session's kernels (restarted by itself after a crash)."""
    from tack.testing.julia import SKIP_REASON
    from tack.testing.julia.process import JuliaProcess

    from tests.julia.golden import ROOT

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
    from tack.testing.julia.juliacall_pipe import installed

    with installed(julia153_process):
        yield julia153_process


@pytest.fixture
def julia153_engine(_julia153_session):
    """Tack's Julia engine, unchanged, on the Julia 1.5.3 process as the default device:
    `kernel(*args)` runs there."""
    import tack

    tack.set_default_device("cpu", engine="julia")
    yield _julia153_session
    tack.set_default_device("cpu")
