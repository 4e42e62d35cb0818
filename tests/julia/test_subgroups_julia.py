"""The KernelAbstractions sub-group form of warp kernels (render/julia/subgroups.py), without
Julia: the choice between it and the `@localmem` emulation over KA versions and backends, the
engine asking (a fake juliacall) and compiling the text it chose, the KI texts against their
goldens (tests/julia/ki_golden/, rewritten by `pytest tests/julia/test_subgroups_julia.py
--update-golden`) and the checks every rendered kernel passes, the IR the KI text is printed from
run by the simulator to the original kernel's bits, and the emulated text left the default."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
import tack
from tack.compiler import specialize
from tack.dtypes import bool_
from tack.errors import TackRuntimeError
from tack.ir.nodes import Expr
from tack.ir.ops import Op
from tack.ir.walk import map_body
from tack.passes.warps_shared import warps_through_shared
from tack.render.julia.ka import FORMS, render_julia
from tack.render.julia.rewrites import warps_to_ki
from tack.render.julia.subgroups import (
    EMULATED,
    KI,
    SubGroups,
    choose_form,
    ki_shuffle,
    ki_shuffle_types,
)
from tack.runtime.julia import engine as rj
from tack.runtime.sim.engine import SimEngine

from tests.julia import ki_kernels as K
from tests.julia.jl_checks import (
    ka_split_problems,
    literal_problems,
    parse_problems,
    structure_problems,
)
from tests.kernels import warps as W

GOLDEN_DIR = Path(__file__).resolve().parent / "ki_golden"
F32 = frozenset({"Float32"})
CUDA_LIKE = SubGroups(32, True, frozenset({"Float32", "Int32", "Float16", "UInt8"}))


def _kir(kernel, dtype):
    args = [tack.array(a, device="sim") if isinstance(a, np.ndarray) else a
            for a in K.args(kernel, dtype)]
    return specialize(kernel, args, library_math=False)


# ---- the choice ----------------------------------------------------------------------------

@pytest.mark.parametrize("version,sub,needs,want", [
    ((0, 9, 41), CUDA_LIKE, F32, EMULATED),  # 0.9: no KernelIntrinsics
    ((0, 10, 0), CUDA_LIKE, F32, KI),
    ((0, 11, 2), CUDA_LIKE, F32, KI),
    ((1, 0, 0), SubGroups(64, True, F32), F32, KI),  # wave64: two warps per sub-group
    ((0, 10, 0), None, F32, EMULATED),  # KA without the sub-group functions
    ((0, 10, 0), CUDA_LIKE, frozenset(), EMULATED),  # nothing to shuffle: the texts are equal
    ((0, 10, 0), SubGroups(16, True, F32), F32, EMULATED),  # narrower than a warp
    ((0, 10, 0), SubGroups(8, True, F32), F32, EMULATED),
    ((0, 10, 0), SubGroups(128, True, F32), F32, EMULATED),  # not known to hold whole warps
    ((0, 10, 0), SubGroups(1, True, F32), F32, EMULATED),  # PoCL's answer without sub-groups
    ((0, 10, 0), SubGroups(32, False, F32), F32, EMULATED),  # which lanes form one: unknown
    ((0, 10, 0), SubGroups(64, False, F32), F32, EMULATED),
    ((0, 10, 0), CUDA_LIKE, frozenset({"Float32", "Float64"}), EMULATED),  # a type it lacks
    ((0, 10, 0), CUDA_LIKE, frozenset({"TkBFloat16"}), EMULATED),
    ((0, 10, 0), SubGroups(32, True, frozenset()), F32, EMULATED),  # shuffles no type
])
def test_choose_form(version, sub, needs, want):
    assert choose_form(version, sub, needs) == want


@pytest.mark.parametrize("text,want", [("0.10.0-dev", (0, 10, 0)), ("0.9.41", (0, 9, 41)),
                                       ("0.10.3+0", (0, 10, 3)), (" 1.2.3 ", (1, 2, 3))])
def test_release_reads_julia_versions(text, want):
    assert rj._release(text) == want


def test_an_unreadable_version_is_a_runtime_error():
    with pytest.raises(TackRuntimeError, match="KernelAbstractions version"):
        rj._release("nothing")


# ---- which shuffles the KI form spells -------------------------------------------------------

def _shfl_down(x, s):
    return Expr(Op.SHFL_DOWN, x.dtype, (x, s), None, x.loc)


def test_only_shuffles_down_by_a_constant_of_a_pure_operand_are_ki_shuffles():
    kir = _kir(K.down_const, tack.f32)
    loc = kir.loc
    x = Expr(Op.VAR, tack.f32, (), "v", loc)
    one = Expr(Op.CONST, tack.i32, (), 1, loc)
    lane_var = Expr(Op.VAR, tack.i32, (), "s", loc)
    atomic = Expr(Op.ATOMIC_ADD, tack.f32, (Expr(Op.CONST, tack.i64, (), 0, loc), x), "a", loc)
    assert ki_shuffle(_shfl_down(x, one))
    assert not ki_shuffle(_shfl_down(x, lane_var))  # a per-lane offset
    assert not ki_shuffle(_shfl_down(atomic, one))  # evaluated by both arms of the select
    assert not ki_shuffle(_shfl_down(_shfl_down(x, one), one))  # the inner one is, not this
    assert not ki_shuffle(Expr(Op.SHFL_UP, tack.f32, (x, one), None, loc))
    assert ki_shuffle_types(kir) == {tack.f32}
    assert ki_shuffle_types(_kir(K.down_by_lane, tack.f32)) == set()


# ---- the texts -----------------------------------------------------------------------------

@pytest.mark.parametrize("name,kernel,dtype", K.GOLDEN, ids=[g[0] for g in K.GOLDEN])
def test_ki_text_matches_its_golden(name, kernel, dtype, request):
    path = GOLDEN_DIR / f"{name}.jl"
    kir = _kir(kernel, dtype)
    text = K.ki_file(name, kir, render_julia(kir, KI))
    if request.config.getoption("--update-golden"):
        path.write_text(text)
    assert path.is_file(), f"{path} is missing: run pytest {__file__} --update-golden"
    assert path.read_text() == text, f"{path} differs from the renderer: see --update-golden"


def test_no_stale_ki_goldens():
    names = {g[0] for g in K.GOLDEN}
    assert {p.stem for p in GOLDEN_DIR.glob("*.jl")} == names


def test_ki_goldens_validate():
    """`python -m tack.julia validate`: names only Base, KA and TackRuntime (`tk_shfl_down` is
    TackRuntime's), typed literals, no Float64 where the signature has none."""
    from tack.julia.validate import findings, parser

    jl = parser()
    for path in sorted(GOLDEN_DIR.glob("*.jl")):
        assert findings(path, path.read_text(), jl) == [], path.name


@pytest.mark.parametrize("name,kernel,dtype", K.GOLDEN, ids=[g[0] for g in K.GOLDEN])
def test_ki_text_passes_the_checks_of_every_rendered_kernel(jl_parser, name, kernel, dtype):
    kir = _kir(kernel, dtype)
    text = render_julia(kir, KI)
    assert "tk_shfl_down(" in text and "tk_workgroupsize" in text
    for check in (parse_problems, literal_problems, structure_problems, ka_split_problems):
        assert check(jl_parser, text) == [], (name, check.__name__)
    if kernel is not K.mixed:  # nothing left to emulate: no exchange, no barrier
        assert "@localmem" not in text and "@synchronize" not in text
    emulated = render_julia(kir)
    assert text != emulated and "tk_shfl_down" not in emulated


def test_a_kernel_without_ki_shuffles_has_one_text():
    for kernel, host in [(K.down_by_lane, K.args(K.down_by_lane, tack.f32))] + [
            (k, h) for k, h in _warp_corpus(tack.f32)]:
        args = [tack.array(a, device="sim") if isinstance(a, np.ndarray) else a for a in host]
        kir = specialize(kernel, args, library_math=False)
        assert render_julia(kir, KI) == render_julia(kir), kernel.name


def _warp_corpus(dtype):
    from tests.kernels.warps import host_cases
    return host_cases(dtype)


def test_the_forms_differ_in_their_warp_rewrite_only():
    assert FORMS[EMULATED][1:] == FORMS[KI][1:]
    assert FORMS[KI][0] is warps_to_ki


# ---- the KI text's IR computes the simulator's bits -----------------------------------------

KI_DTYPES = [tack.i8, tack.u16, tack.i32, tack.u64, tack.f16, tack.bf16, tack.f32, tack.f64]


@pytest.mark.parametrize("dtype", KI_DTYPES, ids=lambda t: t.name)
@pytest.mark.parametrize("kernel", [K.down_const, K.suffix_sums, K.mixed, K.down_by_lane],
                         ids=lambda k: k.name)
def test_the_ki_forms_ir_gives_the_simulators_bits(kernel, dtype):
    """The KI text prints `warps_to_ki`'s IR (every later rewrite is the emulated text's too),
    in which each KI shuffle is `ifelse(lane + s <= 31, shfl_down(x, s), x)` of Tack's own
    `shfl_down`: run by the simulator, it must give the original kernel's bits, and so must the
    sub-group call wherever the select takes it (lanes inside their warp, docs/design/003)."""
    host = K.args(kernel, dtype)
    kir = _kir(kernel, dtype)
    want = [a.copy() if isinstance(a, np.ndarray) else a for a in host]
    SimEngine().compile(kir).launch(want, K.N)
    ki_ir = warps_to_ki(kir)
    assert ki_ir is not kir or kernel is K.down_by_lane
    got = [a.copy() if isinstance(a, np.ndarray) else a for a in host]
    SimEngine().compile(ki_ir).launch(got, K.N)
    for g, w in zip(got, want):
        if isinstance(g, np.ndarray):
            np.testing.assert_array_equal(g.view(np.uint8), w.view(np.uint8))


def _subgroup_model(kir):
    """Each KI shuffle of `kir` as a sub-group `shfl_down` of which only the warp's own lanes are
    known: where the source lane is past the lane's 32-lane warp, a 64-lane sub-group gives the
    next warp's value and PoCL's `sub_group_shuffle` an undefined one, modelled as a 7."""
    def model(e):
        if not ki_shuffle(e):
            return e
        loc, i32 = e.loc, tack.i32
        lane = Expr(Op.AND_, i32, (Expr(Op.THREAD_ID, i32, (), None, loc),
                                   Expr(Op.CONST, i32, (), 31, loc)), None, loc)
        inside = Expr(Op.LE, bool_, (Expr(Op.ADD, i32, (lane, e.args[1]), None, loc),
                                          Expr(Op.CONST, i32, (), 31, loc)), None, loc)
        seven = Expr(Op.CONST, e.dtype, (), 7, loc)
        return Expr(Op.SELECT, e.dtype, (inside, e, seven), None, loc)
    return dataclasses.replace(kir, body=map_body(kir.body, model))


def _run(kir, host):
    vals = [a.copy() if isinstance(a, np.ndarray) else a for a in host]
    SimEngine().compile(kir).launch(vals, K.N)
    return [v for v in vals if isinstance(v, np.ndarray)]


@pytest.mark.parametrize("dtype", [tack.i8, tack.f32, tack.bf16], ids=lambda t: t.name)
@pytest.mark.parametrize("kernel", [K.down_const, K.suffix_sums, K.mixed], ids=lambda k: k.name)
def test_the_sub_group_call_is_used_only_inside_the_warp(kernel, dtype):
    """The KI text reads KA's `shfl_down` only on lanes whose source is in their own warp: with
    every other lane's result garbage, the KI form still gives the original bits; without the
    renderer's select (a bare sub-group call) the garbage shows where the kernel reads it, so the
    model can tell (`suffix_sums` itself discards what lanes past the warp read)."""
    host = K.args(kernel, dtype)
    kir = _kir(kernel, dtype)
    want = _run(kir, host)
    for g, w in zip(_run(_subgroup_model(warps_to_ki(kir)), host), want):
        np.testing.assert_array_equal(g.view(np.uint8), w.view(np.uint8))
    if kernel is K.suffix_sums:
        return
    bare = warps_through_shared(kir, "tk_w", keep=ki_shuffle)
    got = _run(_subgroup_model(bare), host)
    assert any(not np.array_equal(g.view(np.uint8), w.view(np.uint8)) for g, w in zip(got, want))


def test_suffix_sums_against_numpy():
    """An independent reference for the scan the goldens hold: lane l's sum of lanes l..31."""
    x, out, n = K.args(K.suffix_sums, tack.i32)
    kir = warps_to_ki(_kir(K.suffix_sums, tack.i32))
    SimEngine().compile(kir).launch([x, out, n], n)
    rows = x.reshape(-1, 32).astype(np.int64)
    want = np.cumsum(rows[:, ::-1], axis=1)[:, ::-1].astype(np.int32).reshape(-1)
    np.testing.assert_array_equal(out, want)


def test_shuffles_down_by_constants_against_the_warp_model():
    x, a, b, c, n = K.args(K.down_const, tack.i32)
    SimEngine().compile(warps_to_ki(_kir(K.down_const, tack.i32))).launch([x, a, b, c, n], n)
    np.testing.assert_array_equal(a, W.model_shuffle("shfl_down", x, 1))
    np.testing.assert_array_equal(b, W.model_shuffle("shfl_down", x, 33))
    np.testing.assert_array_equal(c, W.model_shuffle("shfl_down", x, 31) + x)


# ---- the engine's choice, against a fake juliacall -------------------------------------------

def _compile(fake, device, kernel=K.down_const, dtype=tack.f32):
    fake.packages = {"CUDA", "AMDGPU", "Metal", "oneAPI"}
    return rj.JuliaEngine(device).compile(_kir(kernel, dtype))


def test_engine_compiles_the_ki_text_where_ka_has_sub_groups(fake):
    fake.ka_version = "0.10.0"
    fake.subgroups = {"<CUDA.CUDABackend()>": "32 Float32 Int32 Float64"}
    k = _compile(fake, "cuda")
    assert k.source == render_julia(_kir(K.down_const, tack.f32), KI)
    assert k.source in fake.evals


@pytest.mark.parametrize("device,version,answer", [
    ("cuda", "0.9.41", "32 Float32"),  # KA 0.9
    ("cuda", "0.10.0", ""),  # KA without KernelIntrinsics.shfl_down
    ("cuda", "0.10.0", "32 Float64"),  # not for Float32
    ("hip", "0.10.0", "16 Float32"),
    ("metal", "0.10.0", "32 Float32"),  # linear sub-groups not documented
    ("cpu", "0.10.0", "32 Float32"),  # PoCL: OpenCL leaves the mapping to the implementation
    ("level_zero", "0.10.0", "32 Float32"),
])
def test_engine_compiles_the_emulation_elsewhere(fake, device, version, answer):
    fake.ka_version = version
    fake.subgroups = {f"<{rj.BACKENDS[device][2]}>": answer}
    k = _compile(fake, device)
    assert k.source == render_julia(_kir(K.down_const, tack.f32))
    asked = "TackRuntime.tk_subgroups" in fake.evals
    assert asked == version.startswith("0.10")  # never on 0.9, which has no KernelIntrinsics


def test_hip_wave64_gets_the_ki_text(fake):
    fake.ka_version = "0.10.1"
    fake.subgroups = {"<AMDGPU.ROCBackend()>": "64 Int32 Float32"}
    assert "tk_shfl_down(" in _compile(fake, "hip", K.suffix_sums, tack.i32).source


def test_julia_is_not_asked_for_a_kernel_with_one_text(fake):
    fake.ka_version = "0.10.0"
    _compile(fake, "cuda", K.down_by_lane)
    assert "TackRuntime.tk_subgroups" not in fake.evals
    assert "TackRuntime.tk_ka_version()" not in fake.evals


def test_the_sub_groups_are_asked_once_per_device(fake):
    fake.ka_version = "0.10.0"
    fake.subgroups = {"<CUDA.CUDABackend()>": "32 Float32"}
    _compile(fake, "cuda")
    _compile(fake, "cuda", K.mixed)
    assert fake.evals.count("TackRuntime.tk_subgroups") == 1


def test_ki_kernels_launch_over_complete_groups_only():
    """Every lane of a sub-group must reach KA's `shfl_down`: a kernel with one is refused for a
    count that would leave a group partial, before any engine (call/plan.py), as for barriers."""
    z = [tack.zeros(100, device="sim") for _ in range(4)]
    with pytest.raises(ValueError, match="complete 256-lane groups"):
        K.down_const(*z, 100)
