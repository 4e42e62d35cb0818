"""Tier (a) of the Julia 1.5.3 tier: julia/test/runtests.jl (every kernel file against its
independent Julia reference, on CPU()) and the stand-in's own tests, on Julia 1.5.3 through
Tack's KernelAbstractions/Atomix stand-ins. The NNlib case is skipped and counted."""
import re
import subprocess

import pytest
from tack.testing.julia import SKIP_REASON

from tests.julia.conftest import julia153
from tests.julia.golden import KERNEL_DIR, ROOT


def _run(script: str) -> str:
    launcher = julia153()
    if launcher is None:
        pytest.skip(SKIP_REASON)
    r = subprocess.run([launcher, "--startup-file=no", script], cwd=ROOT, capture_output=True,
                       text=True, timeout=1800, check=False)
    log = f"{r.stdout[-8000:]}\n{r.stderr[-8000:]}"
    assert r.returncode == 0, f"julia {script} failed:\n{log}"
    return r.stdout


@pytest.mark.julia
def test_runtests_on_julia153():
    out = _run("julia/test/runtests.jl")
    m = re.search(r"TACK_JULIA_SUITE files=(\d+) passed=(\d+) skipped=(\d+) standin=(\w+) "
                  r"julia=([\d.]+)", out)
    assert m, out[-3000:]
    files, passed, skipped = int(m[1]), int(m[2]), int(m[3])
    assert files == len(list(KERNEL_DIR.glob("*.jl")))
    assert m[4] == "true" and m[5] == "1.5.3"
    # NNlib is absent there: test_softmax_rows's one comparison and the 74 NNlib comparisons of
    # the tack.ops files (julia/test/test_add.jl ...; with_nnlib in ops_helpers.jl) are skipped
    assert skipped == 1 + 74
    assert passed > 500


@pytest.mark.julia
def test_standin_rejects_what_ka_rejects():
    out = _run("julia/test/standin/test/runtests.jl")
    m = re.search(r"TACK_STANDIN_TESTS passed=(\d+)", out)
    assert m and int(m[1]) >= 25, out[-3000:]
