"""Runs the Julia test suite (julia/test/runtests.jl) where Julia is installed; elsewhere it is
reported as skipped ("not run"), never as passed."""
import subprocess

import pytest

from tests.engines import julia_exe
from tests.julia.golden import ROOT


@pytest.mark.julia
@pytest.mark.slow
def test_julia_runtests():
    julia = julia_exe()
    if julia is None:
        pytest.skip("not run: julia not installed")
    # the one command of docs/julia.md, "Tests": the suite's own environment (julia/test)
    for cmd in (["-e", "import Pkg; Pkg.instantiate()"], ["julia/test/runtests.jl"]):
        r = subprocess.run([julia, "--project=julia/test", *cmd], cwd=ROOT, capture_output=True,
                           text=True, timeout=3600, check=False)
        log = f"{r.stdout[-6000:]}\n{r.stderr[-6000:]}"
        assert r.returncode == 0, f"julia {' '.join(cmd)} failed:\n{log}"
