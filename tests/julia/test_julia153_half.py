"""Half precision on the Julia engine: f16 is Julia's Float16, bf16 TackRuntime's `TkBFloat16`
(BFloat16s.jl's BFloat16, Core.BFloat16 from Julia 1.11; on Julia 1.5.3 the stand-in's storage
type, julia/test/standin/packages/BFloat16s), converted with `Float16(x)`/`Float32(h)` and
TackRuntime's `tk_bf16`/`tk_f32`; every half operation is an f32 one rounded once
(passes/half.py). The bit-exact tests of tests/exec/test_half.py run on Julia 1.5.3 through the
engine fixture; these check the rendered text, and a bf16 workgroup kernel there."""
import numpy as np
import pytest
import tack
from tack.compiler import specialize
from tack.render.julia.ka import render_julia

from tests.julia.jl_checks import literal_problems, parse_problems, structure_problems
from tests.kernels import half as H

pytestmark = pytest.mark.filterwarnings("ignore:.*encountered:RuntimeWarning")


@pytest.mark.parametrize("half", list(H.HALVES))
def test_half_kernels_render(jl_parser, half):
    t, np_t = H.HALVES[half]
    tack.set_default_device("cpu")
    a = tack.array(np.ones(4, np_t))
    texts = [render_julia(specialize(H.k_unary, [a, tack.zeros((4, 8), t)])),
             render_julia(specialize(H.k_convert, [tack.array(np.ones(4)), tack.zeros(4, t)])),
             render_julia(specialize(H.k_compare, [a, a, tack.zeros((4, 7), tack.i32)]))]
    jl = H.HALVES[half][0] is tack.f16 and "Float16" or "TkBFloat16"
    assert f"AbstractVector{{{jl}}}" in texts[0]
    if t is tack.f16:
        assert "Float16(Float32(x) * 0.099975586f0)" in texts[0]  # the literal rounded to f16
    else:
        assert "tk_bf16(tk_f32(x) * 0.100097656f0)" in texts[0]
        assert "zero(TkBFloat16)" not in "".join(texts)  # TkBFloat16 may have no `zero`
    for text in texts:
        for check in (parse_problems, literal_problems, structure_problems):
            assert check(jl_parser, text) == []


@tack.kernel
def k_shared_bf16(a, out):
    for i in range(out.shape[0]):
        sm = tack.shared(tack.bf16, 256)
        v = a[i]
        sm[tack.thread_id()] = v
        tack.barrier()
        out[i] = sm[255 - tack.thread_id()] + v


def test_bf16_workgroup_kernel_renders(jl_parser):
    """A local of a barrier kernel becomes a `@private` cell, zeroed without `zero(TkBFloat16)`
    (a bf16 type need not have one: the Julia 1.5.3 tier's stand-in has none), and `@localmem`
    holds TkBFloat16."""
    tack.set_default_device("cpu")
    a = tack.array(np.ones(512, H.BF16))
    text = render_julia(specialize(k_shared_bf16, [a, tack.zeros(512, tack.bf16)]))
    assert "@localmem TkBFloat16 (256,)" in text and "@private TkBFloat16 (1,)" in text
    assert "zero(TkBFloat16)" not in text
    for check in (parse_problems, literal_problems, structure_problems):
        assert check(jl_parser, text) == []


@pytest.mark.julia
def test_bf16_workgroup_kernel_on_julia153(julia153_engine):
    a = np.random.default_rng(3).standard_normal(512).astype(H.BF16)
    out = tack.zeros(512, tack.bf16)
    k_shared_bf16(tack.array(a), out)
    blocks = a.reshape(2, 256)
    want = (blocks[:, ::-1] + blocks).reshape(-1)
    H.same_bits(out.numpy(), want, "bf16 shared memory on Julia 1.5.3")


@pytest.mark.julia
def test_half_probe_on_julia153(julia153_engine):
    """TackRuntime's half probe (the engine's check before a half kernel compiles) passes on the
    stand-in's CPU backend for both half types, and reports, not throws, a backend that fails."""
    from tack.runtime.julia.engine import _Session

    jl = _Session.get().jl
    # TackRuntime's plain `import BFloat16s` found the stand-in package on this Julia
    assert jl.seval("TkBFloat16 === TackRuntime.BFloat16s.BFloat16 && "
                    "TackRuntime.BFloat16s.STANDIN")
    for t in ("Float16", "TkBFloat16"):
        assert jl.seval(f"TackRuntime.tk_half_probe(KernelAbstractions.CPU(), {t})") == ""
    jl.seval("struct TkNoHalfBackend <: KernelAbstractions.Backend end")
    jl.seval('KernelAbstractions.allocate(::TkNoHalfBackend, ::Type{Float16}, ::Tuple) = '
             'error("no Float16 on this device")')
    why = jl.seval("TackRuntime.tk_half_probe(TkNoHalfBackend(), Float16)")
    assert "no Float16 on this device" in why
