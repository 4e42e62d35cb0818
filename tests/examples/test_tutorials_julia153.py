"""Every tutorial's --check with `--arch julia`: Tack's Julia engine, unchanged, on the private
Julia 1.5.3 (`python3 julia/tools/install_local.py`) through the pipe stand-in for juliacall and
the KernelAbstractions stand-in (docs/julia.md). One Julia process runs all ten, about 90 s on 2
cores (the first kernel loads the stand-ins), so it runs only when asked:

    TACK_TUTORIALS_JULIA153=1 pytest tests/examples/test_tutorials_julia153.py
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.examples.tutorials import TUTORIALS, run

pytestmark = [pytest.mark.julia, pytest.mark.slow]
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def julia153():
    if os.environ.get("TACK_TUTORIALS_JULIA153") != "1":
        pytest.skip("not run: set TACK_TUTORIALS_JULIA153=1 (about 90 s with Julia 1.5.3)")
    from tests.julia.julia153 import SKIP_REASON, launcher_path
    from tests.julia.julia153.juliacall_pipe import installed
    from tests.julia.julia153.process import JuliaProcess

    launcher = launcher_path()
    if launcher is None:
        pytest.skip(SKIP_REASON)
    proc = JuliaProcess(str(launcher), ROOT / "julia")
    with installed(proc):
        yield proc
    proc.close()


@pytest.mark.parametrize("name", TUTORIALS)
def test_tutorial_checks_on_the_julia_engine(name, julia153, capsys):
    rc = run(name, "--arch", "julia", "--check")
    out = capsys.readouterr()
    assert rc == 0, out.out + out.err
    assert "check passed" in out.out and "julia engine" in out.out
