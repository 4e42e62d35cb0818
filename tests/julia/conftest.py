"""Shared fixtures of the Julia tests: a tree-sitter Julia parser, and whether Julia can run here
(decided once per session without starting a Julia download)."""
from __future__ import annotations

import functools
import importlib.util
import os
import shutil

import pytest


@pytest.fixture(scope="session")
def jl_parser():
    tree_sitter = pytest.importorskip("tree_sitter")
    tree_sitter_julia = pytest.importorskip("tree_sitter_julia")
    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_julia.language()))


def julia_exe() -> str | None:
    return (os.environ.get("PYTHON_JULIACALL_EXE") or os.environ.get("PYTHON_JULIAPKG_EXE")
            or shutil.which("julia"))


@functools.cache
def juliacall_skip_reason() -> str | None:
    """None when the Julia engine starts here; else why its tests are not run. juliacall would
    download Julia when none is found, so without a Julia executable it is not imported."""
    if importlib.util.find_spec("juliacall") is None:
        return "not run: juliacall not installed (pip install 'tack-kernels[julia]')"
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
