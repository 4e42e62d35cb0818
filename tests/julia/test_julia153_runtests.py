"""Tier (a) of the Julia 1.5.3 tier: julia/test/runtests.jl (every kernel file against its
independent Julia reference, on CPU()) and the stand-in's own tests, on Julia 1.5.3 through
Tack's KernelAbstractions/Atomix stand-ins. The NNlib comparisons are skipped and counted."""
import re
import subprocess

import pytest

from tests.engines import julia153
from tests.julia.golden import KERNEL_DIR, ROOT
from tests.julia.julia153 import SKIP_REASON


def _nnlib_references() -> set[str]:
    """The NNlib functions julia/test/*.jl compare with (`with_nnlib(:name, ...)`,
    `skip_without_nnlib(:name)`)."""
    names = set()
    for f in (ROOT / "julia" / "test").glob("*.jl"):
        names |= set(re.findall(r"(?:with|skip_without)_nnlib\(:(\w+)", f.read_text()))
    return names


def _run(script: str) -> str:
    launcher = julia153()
    if launcher is None:
        pytest.skip(SKIP_REASON)
    # -O0: the suite's time is LLVM's (94 s instead of 150 s for runtests.jl here); what the
    # kernels compute does not depend on it, since the rendered code contracts nothing (`fma`,
    # never `muladd` or @fastmath: render/julia/ka.py)
    r = subprocess.run([launcher, "--startup-file=no", "-O0", script], cwd=ROOT,
                       capture_output=True, text=True, timeout=1800, check=False)
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
    # NNlib is absent there: every skipped test is an NNlib comparison (with_nnlib and
    # skip_without_nnlib in julia/test/ops_helpers.jl) that says so, and every reference the
    # test files name is among them
    reasons = {r: int(n) for n, r in re.findall(r"TACK_JULIA_SKIP count=(\d+) reason=(.*)", out)}
    assert skipped == sum(reasons.values()) > 0, out[-3000:]
    assert all(re.fullmatch(r"NNlib not installed \(NNlib\.\w+\)", r) for r in reasons), reasons
    assert {r[len("NNlib not installed (NNlib."):-1] for r in reasons} == _nnlib_references()
    assert passed > 500


@pytest.mark.julia
def test_standin_rejects_what_ka_rejects():
    out = _run("julia/test/standin/test/runtests.jl")
    m = re.search(r"TACK_STANDIN_TESTS passed=(\d+)", out)
    assert m and int(m[1]) >= 25, out[-3000:]


# Julia 1.11's Test.TestCounts (fields as in
# https://github.com/JuliaLang/julia/blob/release-1.11/stdlib/Test/src/Test.jl), declared here
# because Julia 1.5.3 has only the tuple form.
_COUNTS_SCRIPT = """
using Test
include(joinpath(pwd(), "julia", "test", "suite_counts.jl"))
struct TestCounts
    customized::Bool
    passes::Int
    fails::Int
    errors::Int
    broken::Int
    cumulative_passes::Int
    cumulative_fails::Int
    cumulative_errors::Int
    cumulative_broken::Int
    duration::String
end
ts = Test.DefaultTestSet("outer")
println("TUPLE ", suite_counts(Test.get_test_counts(ts)))
println("TUPLE ", suite_counts((1, 2, 3, 4, 10, 20, 30, 40)))
println("STRUCT ", suite_counts(TestCounts(false, 1, 2, 3, 4, 10, 20, 30, 40, "0.1s")))
"""


@pytest.mark.julia
def test_suite_counts_reads_tuple_and_struct(tmp_path):
    script = tmp_path / "counts.jl"
    script.write_text(_COUNTS_SCRIPT)
    out = _run(str(script))
    want = "(passed = 11, failed = 22, errored = 33, skipped = 44)"
    assert out.splitlines() == [
        "TUPLE (passed = 0, failed = 0, errored = 0, skipped = 0)",  # this Julia's own form
        f"TUPLE {want}", f"STRUCT {want}"], out


# with_nnlib (julia/test/ops_helpers.jl) against a stand-in NNlib module shaped like NNlib >=
# 0.9.28 without SpecialFunctions: `gelu_erf` declared with no method, `relu` defined, `softmax`
# absent (https://github.com/FluxML/NNlib.jl/blob/master/src/activations.jl).
_WITH_NNLIB_SCRIPT = """
using Test
include(joinpath(pwd(), "julia", "test", "suite_counts.jl"))
module NNlib
function gelu_erf end
relu(x::Real) = max(x, zero(x))
end
const HAVE_NNLIB = true
include(joinpath(pwd(), "julia", "test", "ops_helpers.jl"))
ran = Symbol[]
ts = @testset "with_nnlib" begin
    with_nnlib(() -> push!(ran, :relu), :relu, 1.0)
    with_nnlib(() -> push!(ran, :gelu_erf), :gelu_erf, 1.0f0)
    with_nnlib(() -> push!(ran, :softmax), :softmax, [1.0], [2.0])
end
println("RAN ", join(ran, ","))
for (reason, n) in sort!(collect(SKIP_REASONS))
    println("SKIP ", n, " ", reason)
end
println("SKIPPED ", suite_counts(Test.get_test_counts(ts)).skipped)
"""


@pytest.mark.julia
def test_with_nnlib_skips_a_missing_method(tmp_path):
    script = tmp_path / "with_nnlib.jl"
    script.write_text(_WITH_NNLIB_SCRIPT)
    out = [line for line in _run(str(script)).splitlines() if line.startswith(("RAN", "SKIP"))]
    assert out == [
        "RAN relu",
        "SKIP 1 NNlib lacks a method for gelu_erf(Float32)",
        "SKIP 1 NNlib lacks a method for softmax(Array{Float64,1}, Array{Float64,1})",
        "SKIPPED 2"]


def test_the_kernel_files_contract_nothing():
    """The tier runs julia/test at -O0 (`_run`): sound only while no kernel asks LLVM to contract
    or reorder arithmetic, which -O0 and the default level would do differently."""
    for f in sorted(KERNEL_DIR.glob("*.jl")) + [ROOT / "julia" / "src" / "TackRuntime.jl"]:
        text = f.read_text()
        assert "muladd" not in text and "@fastmath" not in text, f.name
