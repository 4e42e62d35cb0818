"""TackRuntime's sub-group helpers on Julia 1.5.3 (the Julia tier, KernelAbstractions stand-in):
`tk_subgroups(backend)`, the engine's question before it renders a warp kernel's KI form
(render/julia/subgroups.py), and `tk_shfl_down`, what that form calls. The stand-in is KA 0.9,
which has no `KernelIntrinsics`, so one run asks it as it is and another after defining a
`KernelAbstractions.KernelIntrinsics` with the signatures of KA's repository
(https://github.com/JuliaGPU/KernelAbstractions.jl/pull/668, `src/intrinsics.jl`). A KI kernel is
not executed: the stand-in runs a group's work-items one after another, so no lane can read
another lane's value of the same statement, which a shuffle needs."""
import subprocess

import numpy as np
import pytest
import tack

from tests.engines import julia153
from tests.julia.golden import ROOT
from tests.julia.julia153 import SKIP_REASON

_LOAD = """
include(joinpath(pwd(), "julia", "test", "standin", "load.jl"))
using KernelAbstractions
"""
_RUNTIME = """
include(joinpath(pwd(), "julia", "src", "TackRuntime.jl"))
using .TackRuntime
"""
# KA's interface as its repository declares it: generic functions that backends extend
_KI = """
Core.eval(KernelAbstractions, :(module KernelIntrinsics
    import ..KernelAbstractions: Backend
    function shfl_down end
    function sub_group_size end
    shfl_down_types(::Backend) = DataType[]
end))
const KI = KernelAbstractions.KernelIntrinsics
struct Wave64 <: KernelAbstractions.GPU end
KI.sub_group_size(::KernelAbstractions.CPU) = 32
KI.shfl_down_types(::KernelAbstractions.CPU) = DataType[Float32, Int32, UInt8]
KI.sub_group_size(::Wave64) = 64
KI.shfl_down(x::Float32, s::Integer) = x + Float32(s)  # records that it was called, and how
"""
_ASK = """
println("cpu=", repr(TackRuntime.tk_subgroups(KernelAbstractions.CPU())))
println("version=", TackRuntime.tk_ka_version())
"""
_ASK_KI = _ASK + """
println("wave64=", repr(TackRuntime.tk_subgroups(Wave64())))
struct NoSubGroups <: KernelAbstractions.GPU end
println("none=", repr(TackRuntime.tk_subgroups(NoSubGroups())))
println("shfl=", TackRuntime.tk_shfl_down(1.5f0, Int32(3)))
"""


def _run(tmp_path, script: str) -> str:
    launcher = julia153()
    if launcher is None:
        pytest.skip(SKIP_REASON)
    path = tmp_path / "subgroups.jl"
    path.write_text(script)
    r = subprocess.run([launcher, "--startup-file=no", str(path)], cwd=ROOT, capture_output=True,
                       text=True, timeout=600, check=False)
    assert r.returncode == 0, f"{r.stdout[-4000:]}\n{r.stderr[-4000:]}"
    return r.stdout


@pytest.mark.julia
def test_ka_without_kernel_intrinsics_has_no_sub_groups(tmp_path):
    lines = _run(tmp_path, _LOAD + _RUNTIME + _ASK).splitlines()
    assert 'cpu=""' in lines
    # `Base.pkgversion(KA)`: on Julia 1.5 the stand-in's (load.jl), the KA release it follows
    assert "version=0.9.41" in lines


@pytest.mark.julia
def test_the_engine_runs_the_emulation_on_ka_09(julia153_engine):
    """A kernel with a KI form, through Tack's Julia engine on the 1.5.3 tier: the engine asks
    the KA version, renders the emulated text and gets the simulator's bits."""
    from tests.julia import ki_kernels as K

    for kernel, dtype in ((K.down_const, tack.f32), (K.suffix_sums, tack.i32)):
        host = K.args(kernel, dtype)
        sim = [tack.array(a, device="sim") if isinstance(a, np.ndarray) else a for a in host]
        kernel(*sim)
        jl = [tack.array(a) if isinstance(a, np.ndarray) else a for a in host]
        kernel(*jl)
        for a, b in zip(sim, jl):
            if isinstance(a, tack.Array):
                np.testing.assert_array_equal(a.numpy(), b.numpy())
    from tack.runtime.julia import engine as rj

    session = rj._Session._current
    assert session.ka_version == (0, 9, 41) and session._subgroups == {"cpu": None}
    assert not any("tk_shfl_down" in src for src in session.kernels)


@pytest.mark.julia
def test_tk_subgroups_reads_ka_s_sub_group_interface(tmp_path):
    lines = _run(tmp_path, _LOAD + _KI + _RUNTIME + _ASK_KI).splitlines()
    assert 'cpu="32 Float32 Int32 UInt8"' in lines
    assert 'wave64="64"' in lines  # KA's default shfl_down_types: no type
    assert 'none=""' in lines  # no sub_group_size method: a MethodError, not sub-groups
    assert "shfl=4.5" in lines  # tk_shfl_down forwards to KI.shfl_down
