"""Shared fixtures of the Julia tests: a tree-sitter Julia parser, and whether the real juliacall
can run here (decided once per session without starting a Julia download). The Julia 1.5.3
tier's fixtures (`julia153_engine`) are tests/julia_session.py's. Without Julia, `fake` puts a
stand-in juliacall (tests/julia/fake_julia.py) in its place for one test."""
from __future__ import annotations

import sys
import types

import pytest
from tack.runtime.julia import engine as rj

from tests.engines import juliacall_skip_reason
from tests.julia.fake_julia import FakeJulia


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


@pytest.fixture
def fresh_session(monkeypatch):
    """Forget any Julia session (and remembered failure) for the duration of one test."""
    monkeypatch.setattr(rj._Session, "_current", None)
    monkeypatch.setattr(rj._Session, "_failure", None)


@pytest.fixture
def fake(monkeypatch, fresh_session):
    jl = FakeJulia()
    mod = types.SimpleNamespace(newmodule=lambda name: jl, JuliaError=RuntimeError)
    monkeypatch.setitem(sys.modules, "juliacall", mod)
    return jl
