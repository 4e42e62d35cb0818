"""Scratch arrays, atomics, lane ids, barriers and debug kernels in the Julia renderer.

Barrier kernels are checked three ways, since Julia cannot run here: the rendered text against
KernelAbstractions 0.9's CPU splitting rules (`ka_split_problems`, also applied to every kernel in
test_render.py), the rewritten IR executed the way that CPU backend executes it
(`ka_cpu_model`) against the corpus references, and the rewrites' own invariants.
"""
import re

import numpy as np
import pytest
import tack
from tack import dtypes as dt
from tack.compiler import specialize
from tack.errors import RenderError
from tack.ir import nodes as N
from tack.ir.nodes import Expr, KernelIR, Loc, Param
from tack.ir.ops import Op
from tack.ir.verify import verify
from tack.render.julia import rewrites as R
from tack.render.julia.ka import REWRITES, render_julia, workgroup_size

from tests.julia import ka_cpu_model
from tests.julia.extra_kernels import EXTRA_CASES
from tests.julia.golden import ALL_CASES, case_ir
from tests.julia.jl_checks import (
    ka_split_problems,
    literal_problems,
    parse_problems,
    structure_problems,
)
from tests.julia.ka_cpu_model import rewritten
from tests.kernels.corpus import WORKGROUP_CASES

BARRIER_CASES = WORKGROUP_CASES + [c for c in EXTRA_CASES if "workgroups" in c.tags]


def _host_args(case, n):
    host = case.make(np.random.default_rng(n), n)
    tack.set_default_device("cpu")
    args = [tack.array(a) if isinstance(a, np.ndarray) else a for a in host]
    start, stop, step = case.kernel.parse_for(args).host_range.evaluate(*args)
    return host, args, len(range(start, stop, step))


def _model_run(case, n, rewrites=REWRITES, debug=False):
    host, args, trips = _host_args(case, n)
    kir = rewritten(specialize(case.kernel, args, debug=debug), rewrites)
    extra = []
    if debug:
        from tack.passes.bounds import initial_buffer

        extra = [initial_buffer(len(kir.notes["debug_sites"]))]
    ka_cpu_model.run(kir, host + extra, trips)
    return host, extra


def _matches(case, host, n) -> bool:
    expect = case.expect(case.make(np.random.default_rng(n), n))
    return all(np.allclose(host[k], v, rtol=case.rtol, atol=case.atol) for k, v in expect.items())


# -- barrier kernels under the model of KA's CPU backend -----------------------------------------

@pytest.mark.parametrize("case,n", [(c, n) for c in BARRIER_CASES for n in c.sizes],
                         ids=[f"{c.name}-{n}" for c in BARRIER_CASES for n in c.sizes])
def test_barrier_kernels_compute_the_reference_as_ka_cpu_runs_them(case, n):
    host, _ = _model_run(case, n)
    assert _matches(case, host, n)


def test_the_model_sees_a_value_lost_at_a_barrier():
    """Without the cells, `tid` is a fresh zero in every segment after the first barrier."""
    case = WORKGROUP_CASES[0]
    host, _ = _model_run(case, 4, REWRITES[:-1])
    assert not _matches(case, host, 4)


def test_the_model_refuses_a_per_lane_condition_at_group_level():
    with pytest.raises(ka_cpu_model.GroupLevelRead):
        _model_run(WORKGROUP_CASES[0], 1, REWRITES[:2])


@pytest.mark.parametrize("case", BARRIER_CASES, ids=[c.name for c in BARRIER_CASES])
def test_debug_barrier_kernels_report_nothing_and_compute_the_reference(case):
    host, (dbg,) = _model_run(case, case.sizes[1], debug=True)
    assert dbg[0] == 0 and _matches(case, host, case.sizes[1])


@pytest.mark.parametrize("case", BARRIER_CASES, ids=[c.name for c in BARRIER_CASES])
def test_rewritten_barrier_ir_is_valid_and_keeps_cells_only_where_needed(case):
    before = case_ir(case)
    kir = rewritten(before)
    verify(kir, final=True)
    cells = {s.name for s in kir.scratch.values() if s.space == "local" and s.size == 1}
    assert cells and ("tid" in cells or "tid" not in before.locals)
    if case.name == "block_reduce":  # `i` and the `//` temporaries stay in their one segment
        assert cells == {"tid", "stride"}
    assert not cells & set(kir.locals)
    refs = [R.local_refs(stmts) & set(kir.locals) for stmts, _ in R.segments(kir.body)]
    for k, mine in enumerate(refs):  # every remaining local lives in one segment
        assert not mine & set().union(*refs[:k], *refs[k + 1:])


def test_block_reduce_rendering():
    text = render_julia(case_ir(WORKGROUP_CASES[0]))
    lines = [ln.split("  #")[0].strip() for ln in text.splitlines()]
    for want in ("tk_li = @index(Local, Linear)", "smem = @localmem Float32 (256,)",
                 "tk_u = @localmem Bool (1,)", "tid = @private Int32 (1,)",
                 "stride = @private Int32 (1,)", "tid[1] = (tk_li % Int32) - Int32(1)",
                 "tk_u[1] = stride[1] > Int32(0)", "while tk_u[1]", "@synchronize()",
                 "tk_atomic_add!(partial_sums, 1, smem[1])"):
        assert want in lines, want
    assert "tk_t" not in text and "if tk_t < tk_n" not in text  # KA masks the tail lanes
    assert re.search(r"^TackRuntime\.tk_workgroupsize\(::typeof\(tk_block_reduce_\w+\)\) = 256",
                     text, re.MULTILINE)


# -- scratch arrays and atomics without barriers ----------------------------------------------

def _corpus(name):
    return next(c for c in ALL_CASES if c.name == name)


def test_local_scratch_without_barriers_is_per_work_item():
    # Not KA 0.9's CPU `@private`, a per-group (14, 256) MArray read through views
    kir = case_ir(_corpus("row_energy"))
    text = render_julia(kir)
    assert "    scratch = TackRuntime.tk_private(Float32, Val(14))  #" in text
    assert "@private" not in text
    assert "scratch[(Int64(2) * column) + 1] = x" in text and "if tk_t < tk_n" in text
    assert workgroup_size(kir) is None
    assert workgroup_size(case_ir(_corpus("saxpy"))) is None
    assert "tk_workgroupsize" not in render_julia(case_ir(_corpus("saxpy")))


def test_atomics_return_the_old_value_through_the_runtime():
    text = render_julia(case_ir(_corpus("atomic_returns")))
    for want in ("_old1 = tk_atomic_add!(a, i + 1, Int32(3))",
                 "_old2 = tk_atomic_max!(u, i + 1, v[i + 1])",
                 "_old3 = tk_atomic_min!(lo, i + 1, x[i + 1])",
                 "_old4 = tk_atomic_max!(hi, i + 1, x[i + 1])"):
        assert want in text
    assert "tk_atomic_add!(bins, (idx % Int64) + 1, Int32(1))  #" in render_julia(
        case_ir(_corpus("histogram")))


def test_atomics_on_shared_arrays(jl_parser):
    """ops.py's atomics may target a shared scratch array too: the same helpers, on `@localmem`
    (Atomix takes its `pointer`: an `MArray` on KA's CPU backend, shared memory on GPUs)."""
    add = Expr(Op.ATOMIC_ADD, dt.f32, (c(3, dt.i64), c(1.0, dt.f32)), "sh", L())
    kir = kernel([N.ExprStmt(L(5), add)], {}, [SH])
    verify(kir, final=True)
    text = render_julia(kir)
    assert structure_problems(jl_parser, text) == [] and literal_problems(jl_parser, text) == []
    assert "tk_atomic_add!(sh, 4, 1.0f0)  # k.py:5" in text


def test_runtime_defines_every_helper_the_renderer_emits():
    from tack.render.julia.ka import ATOMICS

    from tests.julia.golden import ROOT

    runtime = (ROOT / "julia" / "src" / "TackRuntime.jl").read_text()
    for name in ATOMICS.values():
        assert re.search(rf"^@inline {re.escape(name)}\(A, i, v", runtime, re.MULTILINE), name
        assert name in runtime.split("export", 1)[1].split("\n\n", 1)[0]
    assert "tk_workgroupsize(kernel) = nothing" in runtime and "import Atomix" in runtime


# -- debug specializations ---------------------------------------------------------------------

@pytest.mark.parametrize("case", ALL_CASES, ids=[c.name for c in ALL_CASES])
def test_debug_specialization_renders_and_parses(case, jl_parser):
    host = case.make(np.random.default_rng(0), 7)
    tack.set_default_device("cpu")
    args = [tack.array(a) if isinstance(a, np.ndarray) else a for a in host]
    kir = specialize(case.kernel, args, debug=True)
    text = render_julia(kir)
    assert parse_problems(jl_parser, text) == []
    assert literal_problems(jl_parser, text) == []
    assert structure_problems(jl_parser, text) == []
    assert "tk_v_dbg::AbstractVector{Int64}" in text
    if kir.notes.get("debug_sites"):
        assert "tk_atomic_add!(tk_v_dbg, 1, Int64(1))" in text
        assert "tk_atomic_min!(tk_v_dbg, " in text and "tk_atomic_max!(tk_v_dbg, " in text


# -- inspect -------------------------------------------------------------------------------------

def test_inspect_renders_workgroup_kernels_on_the_julia_engine():
    case = WORKGROUP_CASES[0]
    tack.set_default_device("cpu", engine="julia")  # no Julia is started by rendering
    host = case.make(np.random.default_rng(0), 1)
    args = [tack.array(a) if isinstance(a, np.ndarray) else a for a in host]
    text = tack.inspect(case.kernel, *args, engine="julia")
    assert "@synchronize()" in text and "@localmem Float32 (256,)" in text
    assert "barrier()" in tack.inspect(case.kernel, *args, mode="ir", engine="julia")


# -- hand-made IR --------------------------------------------------------------------------------

def L(line=3):
    return Loc("k.py", line, 5, line, 6)


def c(v, t=dt.i32):
    return Expr(Op.CONST, t, (), v, L())


def var(name, t=dt.i32):
    return Expr(Op.VAR, t, (), name, L())


def op(o, t, *args):
    return Expr(o, t, args, None, L())


def kernel(body, locals_, scratch=()):
    params = [Param("out", "array", dt.f32, 1, (None,), True), Param("n", "scalar", dt.i32)]
    return KernelIR("k", params, body, dict(locals_), L(1), "k.py",
                    scratch={s.name: s for s in scratch})


SH = N.Scratch("sh", dt.f32, 256, "shared")


def _store_sh(value_var="k"):
    idx = op(Op.CAST, dt.i64, var(value_var))
    return N.Store(L(6), "sh", (idx,), op(Op.CAST, dt.f32, var(value_var)))


def test_a_for_holding_a_barrier_becomes_a_while_over_counters(jl_parser):
    loop = N.For(L(5), "k", c(0), Expr(Op.PARAM, dt.i32, (), "n", L()), None,
                 [_store_sh(), N.Barrier(L(7))])
    kir = kernel([loop], {"k": dt.i32}, [SH])
    text = render_julia(kir)
    assert parse_problems(jl_parser, text) == [] and structure_problems(jl_parser, text) == []
    assert "tk_k1[1] = Int32(0)" in text and "tk_e1[1] = n" in text
    assert "tk_u[1] = tk_k1[1] < tk_e1[1]" in text and "while tk_u[1]" in text
    assert "for " not in text.split("@kernel", 1)[1]
    verify(rewritten(kir), final=True)


def test_an_if_holding_a_barrier_gets_a_barrier_in_each_nonempty_branch(jl_parser):
    cond = op(Op.LT, dt.bool_, Expr(Op.PARAM, dt.i32, (), "n", L()), c(3))
    store = N.Store(L(8), "out", (c(0, dt.i64),), c(1.0, dt.f32))
    kir = kernel([N.If(L(5), cond, [store, N.Barrier(L(7))], [store])], {}, [SH])
    body = rewritten(kir).body
    assert isinstance(body[0], N.Store) and body[0].array == R.SLOTS
    assert isinstance(body[1], N.Barrier) and isinstance(body[2], N.If)
    assert [type(s) for s in body[2].orelse] == [N.Store, N.Barrier]
    text = render_julia(kir)
    assert structure_problems(jl_parser, text) == []
    assert "elseif" not in text


def test_a_while_without_a_top_level_barrier_starts_with_one():
    flag = op(Op.LT, dt.bool_, var("k"), c(3))
    inner = N.If(L(6), flag, [N.Barrier(L(7))], [])
    w = N.While(L(5), flag, [inner, N.Assign(L(8), "k", op(Op.ADD, dt.i32, var("k"), c(1)))])
    body = rewritten(kernel([N.Assign(L(4), "k", c(0)), w], {"k": dt.i32})).body
    loop = next(s for s in body if isinstance(s, N.While))
    assert isinstance(loop.body[0], N.Barrier)
    assert [type(s) for s in loop.body[-2:]] == [N.Store, N.Barrier]


@pytest.mark.parametrize("exit_", [N.Break, N.Continue])
def test_exits_of_a_loop_holding_a_barrier_are_render_errors(exit_):
    cond = op(Op.LT, dt.bool_, var("k"), c(3))
    loop = N.While(L(5), cond, [N.Barrier(L(6)), N.If(L(7), cond, [exit_(L(8))], [])])
    with pytest.raises(RenderError, match=f"{exit_.__name__.lower()} of a loop that contains a "
                                          "barrier") as info:
        render_julia(kernel([loop], {"k": dt.i32}))
    assert str(info.value).startswith("k.py:8:5:")


def test_continue_of_the_parallel_loop_with_barriers_is_a_render_error():
    cond = op(Op.LT, dt.bool_, Expr(Op.PARAM, dt.i32, (), "n", L()), c(3))
    body = [N.If(L(4), cond, [N.Continue(L(5))], []), N.Barrier(L(6))]
    with pytest.raises(RenderError, match="continue` of the parallel loop in a kernel with "
                                          "barriers"):
        render_julia(kernel(body, {}))


def test_a_for_over_a_cell_loops_over_a_fresh_local(jl_parser):
    """`k` is read after the barrier, so it is a cell; the `for` inside the first segment
    iterates a fresh `tk_f1` and stores it into the cell."""
    loop = N.For(L(5), "k", c(0), c(4), None, [_store_sh()])
    read = N.Store(L(9), "out", (c(0, dt.i64),), op(Op.CAST, dt.f32, var("k")))
    kir = kernel([loop, N.Barrier(L(8)), read], {"k": dt.i32}, [SH])
    text = render_julia(kir)
    assert structure_problems(jl_parser, text) == []
    assert "for outer tk_f1 in Int32(0):Int32(3)" in text and "k[1] = tk_f1" in text
    assert "out[1] = Float32(k[1])" in text


# -- the split checker itself ------------------------------------------------------------------

SPLIT_BAD = {
    "plain local across a sync": """
@kernel function f(a)
    x = a[1]
    @synchronize()
    a[2] = x
end""",
    "per-lane condition": """
@kernel function f(a)
    p = @private Int32 (1,)
    p[1] = Int32(1)
    @synchronize()
    while p[1] > Int32(0)
        p[1] = Int32(0)
        @synchronize()
    end
end""",
    "branch without a sync": """
@kernel function f(a)
    u = @localmem Bool (1,)
    if u[1]
        a[1] = 1.0f0
        @synchronize()
    else
        a[2] = 2.0f0
        a[3] = 2.0f0
    end
end""",
    "nested allocation": """
@kernel function f(a)
    if true
        s = @localmem Float32 (4,)
    end
end""",
}


@pytest.mark.parametrize("what", SPLIT_BAD)
def test_the_split_checker_finds(what, jl_parser):
    assert ka_split_problems(jl_parser, SPLIT_BAD[what]) != []


def test_generated_names_never_meet_user_names(jl_parser):
    """A user local called `tk_u` (printed `tk_v_tk_u`) and the slot array (then `tk_u_2`)."""
    cond = op(Op.LT, dt.bool_, var("tk_u"), c(3))
    body = [N.Assign(L(4), "tk_u", c(1)),
            N.If(L(5), cond, [_store_sh("tk_u"), N.Barrier(L(7))], [])]
    kir = rewritten(kernel(body, {"tk_u": dt.i32}, [SH]))
    assert kir.scratch["tk_u_2"].dtype is dt.bool_ and kir.scratch["tk_u"].space == "local"
    text = render_julia(kernel(body, {"tk_u": dt.i32}, [SH]))
    assert structure_problems(jl_parser, text) == []
    assert "tk_u_2 = @localmem Bool (1,)" in text and "tk_u_2[1] = tk_v_tk_u[1] < Int32(3)" in text


@pytest.mark.parametrize("case", BARRIER_CASES, ids=[c.name for c in BARRIER_CASES])
def test_every_barrier_kernel_needs_its_cells(case):
    """Without `barrier_cells` every barrier kernel goes wrong under the model: a wrong result,
    or a loop whose condition reads a lost value and never ends (`Unending`, in Julia a hang)."""
    n = case.sizes[0]
    try:
        host, _ = _model_run(case, n, REWRITES[:-1])
    except ka_cpu_model.Unending:
        return
    assert not _matches(case, host, n)
