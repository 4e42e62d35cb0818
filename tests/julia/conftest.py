"""Shared fixtures of the Julia tests: a tree-sitter Julia parser, and whether the real juliacall
can run here (decided once per session without starting a Julia download). The Julia 1.5.3
tier's fixtures (`julia153_engine`) are tests/julia_session.py's."""
from __future__ import annotations

import pytest

from tests.engines import juliacall_skip_reason


@pytest.fixture(scope="session")
def jl_parser():
    tree_sitter = pytest.importorskip("tree_sitter")
    tree_sitter_julia = pytest.importorskip("tree_sitter_julia")
    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_julia.language()))


@pytest.fixture
def julia_engine_available():
    reason = juliacall_skip_reason()
    if reason:
        pytest.skip(reason)
