"""Warp operations (docs/language.md, "Warps") against a NumPy model of 32-lane lockstep warps:
every shuffle, vote and reduction on every scalar dtype, f16/bf16 included, on the simulator
(tests/cuda/test_warps_cuda.py runs these on a GPU), and their refusals before launch."""
import numpy as np
import pytest
import tack
from tack.errors import CapabilityError, TackTypeError, TackValueError

from tests.kernels.warps import (
    DTYPES,
    W,
    _data,
    block_sum_by_warps,
    ids,
    model_reduce,
    model_shuffle,
    reductions,
    shuffles,
    votes,
)

pytestmark = pytest.mark.engines("sim", "cuda",
                                 reason="the CPU engine refuses warps (tested below); the tests "
                                        "marked for julia run there too")
JULIA_DTYPES = (tack.i32, tack.u8, tack.f16, tack.f64)


def _julia_dtype(engine, dtype):
    if engine.engine_name == "julia" and dtype not in JULIA_DTYPES:
        pytest.skip("not run on the Julia tier: it runs the warp tests in "
                    + ", ".join(t.name for t in JULIA_DTYPES))

@pytest.mark.engines("sim", "cuda", "julia",
                     reason="the CPU engine refuses warps; the Julia 1.5.3 tier runs them through "
                            "shared memory, in four dtypes (each compile there takes seconds)")
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda t: t.name)
def test_shuffles_match_the_lockstep_model(engine, dtype):
    _julia_dtype(engine, dtype)
    n = 512
    x = _data(dtype, n)
    # lane operands: in range, past 31, negative (only the low 5 bits count, as in PTX)
    s = np.random.default_rng(1).integers(-70, 70, n).astype(np.int32)
    outs = [tack.zeros(n, dtype) for _ in range(4)]
    shuffles(tack.array(x), tack.array(s), *outs, n)
    for op, out in zip(("shfl", "shfl_xor", "shfl_up", "shfl_down"), outs):
        want = model_shuffle(op, x, s)
        np.testing.assert_array_equal(out.numpy().view(np.uint8), want.view(np.uint8), op)


@pytest.mark.engines("sim", "cuda", "julia",
                     reason="the CPU engine refuses warps; the Julia 1.5.3 tier runs them through "
                            "shared memory, in four dtypes (each compile there takes seconds)")
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda t: t.name)
def test_reductions_match_the_butterfly(engine, dtype):
    _julia_dtype(engine, dtype)
    n = 768
    x = _data(dtype, n, 2)
    outs = [tack.zeros(n, dtype) for _ in range(3)]
    reductions(tack.array(x), *outs, n)
    for op, out in zip(("warp_sum", "warp_min", "warp_max"), outs):
        want = model_reduce(op, x)
        np.testing.assert_array_equal(out.numpy().view(np.uint8), want.view(np.uint8), op)
    if not dtype.is_float:  # integer sums wrap: the plain per-warp sum, modulo 2**bits
        wrapped = x.reshape(-1, W).astype(np.uint64).sum(1).astype(x.dtype)
        np.testing.assert_array_equal(outs[0].numpy().reshape(-1, W)[:, 0], wrapped)


@pytest.mark.engines("sim", "cuda", "julia",
                     reason="the CPU engine refuses warps; the Julia 1.5.3 tier runs them through "
                            "shared memory, in four dtypes (each compile there takes seconds)")
def test_a_nan_loses_in_warp_min_and_max(engine):
    x = np.arange(256, dtype=np.float32)
    x[::3] = np.nan
    outs = [tack.zeros(256) for _ in range(3)]
    reductions(tack.array(x), *outs, 256)
    rows = x.reshape(-1, W)
    np.testing.assert_array_equal(outs[1].numpy().reshape(-1, W)[:, 0], np.nanmin(rows, 1))
    np.testing.assert_array_equal(outs[2].numpy().reshape(-1, W)[:, 0], np.nanmax(rows, 1))


@pytest.mark.engines("sim", "cuda", "julia",
                     reason="the CPU engine refuses warps; the Julia 1.5.3 tier runs them through "
                            "shared memory, in four dtypes (each compile there takes seconds)")
@pytest.mark.parametrize("dtype", [tack.i32, tack.f16, tack.f64], ids=lambda t: t.name)
def test_votes(engine, dtype):
    n = 256 * 3
    x = _data(dtype, n, 3)
    x[:W] = 1  # a warp where every lane holds
    x[W:2 * W] = 0  # and one where none does
    outs = [tack.zeros(n, tack.i32), tack.zeros(n, tack.i32), tack.zeros(n, tack.u32)]
    votes(tack.array(x), 0, *outs, n)
    p = (x > 0).reshape(-1, W)
    bits = (p.astype(np.uint64) << np.arange(W, dtype=np.uint64)).sum(1).astype(np.uint32)
    np.testing.assert_array_equal(outs[0].numpy(), np.repeat(p.any(1), W))
    np.testing.assert_array_equal(outs[1].numpy(), np.repeat(p.all(1), W))
    np.testing.assert_array_equal(outs[2].numpy(), np.repeat(bits, W))
    assert outs[2].numpy()[0] == 0xFFFFFFFF and outs[2].numpy()[W] == 0


@pytest.mark.engines("sim", "cuda", "julia",
                     reason="the CPU engine refuses warps; the Julia 1.5.3 tier runs them through "
                            "shared memory, in four dtypes (each compile there takes seconds)")
def test_lane_and_warp_ids(engine):
    n = 256 * 2 + 37  # no collective: a partial workgroup is allowed
    lane, warp = tack.zeros(n, tack.i32), tack.zeros(n, tack.i32)
    ids(lane, warp, n)
    t = np.arange(n)
    np.testing.assert_array_equal(lane.numpy(), t % 32)
    np.testing.assert_array_equal(warp.numpy(), t % 256 // 32)
    assert W == 32


@pytest.mark.engines("sim", "cuda", "julia",
                     reason="the CPU engine refuses warps; the Julia 1.5.3 tier runs them through "
                            "shared memory, in four dtypes (each compile there takes seconds)")
def test_a_block_sum_from_warp_sums(engine):
    n = 256 * 5
    x = np.random.default_rng(4).standard_normal(n).astype(np.float32)
    out = tack.zeros(n)
    block_sum_by_warps(tack.array(x), out, n)
    warp = model_reduce("warp_sum", x).reshape(-1, 8, W)[:, :, 0]
    want = np.zeros(len(warp), np.float32)
    for w in range(8):  # the kernel's order, in f32
        want = want + warp[:, w]
    np.testing.assert_array_equal(out.numpy().reshape(-1, 256)[:, 0], want)
    np.testing.assert_allclose(want, x.reshape(-1, 256).sum(1, dtype=np.float64), rtol=1e-5)


# ---- refusals before launch ---------------------------------------------------------------------
def test_cpu_refuses_warp_operations():
    x, out = tack.zeros(256, device="cpu"), tack.zeros(256, device="cpu")
    with pytest.raises(RuntimeError, match="Kernel 'reductions' failed on CPUBackend: CPU backend "
                                           "does not support workgroup execution required by "
                                           "warp_max, warp_min, warp_sum"):
        reductions(x, out, tack.zeros(256, device="cpu"), tack.zeros(256, device="cpu"), 256)
    with pytest.raises(RuntimeError, match="required by lane_id, warp_id"):
        ids(tack.zeros(256, tack.i32, device="cpu"), tack.zeros(256, tack.i32, device="cpu"),
            256)
    assert not out.numpy().any()


def test_an_engine_without_warps_refuses_them_before_compiling():
    import dataclasses

    from tack.capabilities import check
    from tack.compiler import specialize

    kir = specialize(reductions, [tack.zeros(256)] * 4 + [256])
    caps = dataclasses.replace(tack.device("sim").capabilities, warps=False)
    dev = type("D", (), {"capabilities": caps, "engine_name": "other", "arch": "gpu"})()
    with pytest.raises(CapabilityError, match="tack.warp_sum is a warp operation, which the "
                                              "other:gpu engine does not run") as e:
        check(kir, dev)
    assert e.value.loc.line == reductions.source.first_line + 3  # the warp_sum
    check(kir, tack.device("sim"))  # the simulator has warps


@tack.kernel
def diverged(x, out, n):
    for i in range(n):
        v = x[i]
        if tack.lane_id() < 16:
            v = tack.shfl_down(x[i], 16)
        out[i] = v


@tack.kernel
def lazy(x, out, n):
    for i in range(n):
        out[i] = tack.warp_sum(x[i]) if x[i] > 0.0 else 0.0


def test_a_collective_under_a_lane_dependent_branch_is_refused(engine):
    x, out = tack.zeros(256), tack.zeros(256)
    with pytest.raises(TackValueError, match=r"warp collective tack.shfl_down at .*:\d+:\d+ "
                                             r"requires uniform workgroup participation: its "
                                             r"condition"):
        diverged(x, out, 256)
    with pytest.raises(TackValueError, match="warp collective tack.warp_sum .*conditional "
                                             "expression"):
        lazy(x, out, 256)


def test_collectives_need_complete_workgroups(engine):
    with pytest.raises(TackValueError, match="complete 256-lane groups"):
        reductions(*[tack.zeros(300)] * 4, 300)


def test_a_bool_warp_sum_is_a_type_error(engine):
    @tack.kernel
    def bool_sum(x, out, n):
        for i in range(n):
            out[i] = tack.warp_sum(x[i] > 0.0)

    with pytest.raises(TackTypeError, match="warp_sum\\(\\) of bool"):
        bool_sum(tack.zeros(256), tack.zeros(256, tack.i32), 256)


@pytest.mark.engines("sim", reason="the simulator runs the rewritten IR itself")
# ---- the shared-memory form (passes/warps_shared.py, the Julia engine's) on the simulator -------
@pytest.mark.parametrize("kernel, make", [
    (shuffles, lambda t: [tack.array(_data(t, 512)), tack.array(
        np.random.default_rng(5).integers(-70, 70, 512).astype(np.int32))]
     + [tack.zeros(512, t) for _ in range(4)] + [512]),
    (reductions, lambda t: [tack.array(_data(t, 512, 6))] + [tack.zeros(512, t)
                                                           for _ in range(3)] + [512]),
    (votes, lambda t: [tack.array(_data(t, 512, 7)), 0, tack.zeros(512, tack.i32),
                       tack.zeros(512, tack.i32), tack.zeros(512, tack.u32), 512]),
    (ids, lambda t: [tack.zeros(512, tack.i32), tack.zeros(512, tack.i32), 512]),
    (block_sum_by_warps, lambda t: [tack.array(_data(tack.f32, 512, 8)), tack.zeros(512),
                                    512])])
@pytest.mark.parametrize("dtype", [tack.i8, tack.u32, tack.i64, tack.f16, tack.bf16, tack.f64],
                         ids=lambda t: t.name)
def test_the_shared_memory_form_computes_the_same_bits(engine, kernel, make, dtype):
    """The rewrite the Julia renderer declares gives, run on the simulator, the warp ops' own
    results bit for bit (and tack.check finds no race in it)."""
    from tack.compiler import specialize
    from tack.passes.warps_shared import warps_through_shared
    from tack.runtime.sim.engine import SimKernel

    args = make(dtype)
    kir = specialize(kernel, args)
    kernel(*args)
    want = [a.numpy() for a in args if isinstance(a, tack.Array)]
    values = [(np.zeros_like(a.numpy()) if p.written else a.numpy())
              if p.kind == "array" else a for p, a in zip(kir.params, args)]
    lowered = warps_through_shared(kir)
    assert not any(x.op.name.startswith(("SHFL", "WARP", "BALLOT", "LANE"))
                   for x in _exprs(lowered))
    SimKernel(lowered).launch(values, args[-1])
    for got, w in zip([v for v in values if isinstance(v, np.ndarray)], want):
        np.testing.assert_array_equal(got.view(np.uint8), w.view(np.uint8))


def _exprs(kir):
    from tack.ir.walk import iter_stmts, stmt_exprs

    return [x for s in iter_stmts(kir.body) for x in stmt_exprs(s)]
