"""`ops.attention` on tensor cores (ops/flash_attention.py): f16 and bf16, head_dim 64 and 128,
against the float64 definition within the declared half bound (tack.testing.bounds,
HALF_OP_BOUNDS["attention"]: eps of the half type times sum_j p_j |v_j|), over sequence lengths
that are 1, primes, and one past a block, several batches and heads, causal and not, inputs
that are not contiguous, and the op's options; the kernels under tack.check; which path runs
where."""
import math

import ml_dtypes
import numpy as np
import pytest
import tack
from tack import ops
from tack.ops import flash_attention as fa
from tack.testing.bounds import HALF_OP_BOUNDS

from tests.ops import refs

HALVES = [np.float16, ml_dtypes.bfloat16]
BOUND = HALF_OP_BOUNDS["attention"][0]

pytestmark = pytest.mark.engines("sim", "cuda",
                                 reason="tensor-core kernels: the simulator (the exact model of "
                                        "the MMA kernels) and a GPU; the CPU engine refuses MMAs")


def _name(d) -> str:
    return np.dtype(d).name


def _inputs(shape, dtype, seed, size=1.0):
    rng = np.random.default_rng(seed)
    q = (rng.standard_normal(shape) * size).astype(dtype)
    return q, rng.standard_normal(shape).astype(dtype), rng.standard_normal(shape).astype(dtype)


def error(got, q, k, v, scale, causal, dtype) -> float:
    """The largest error in units of eps * sum_j p_j |v_j| (the declared bound's unit)."""
    q64, k64, v64 = (np.asarray(a, np.float64) for a in (q, k, v))
    s = np.einsum("bhid,bhjd->bhij", q64, k64) * scale
    if causal:
        s = np.where(np.tril(np.ones(s.shape[-2:], bool)), s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    g = got.numpy() if isinstance(got, tack.Array) else got
    assert g.dtype == np.dtype(dtype) and g.shape == q.shape
    eps = float(ml_dtypes.finfo(dtype).eps) / 2
    want, size = p @ v64, p @ np.abs(v64)
    return float((np.abs(g.astype(np.float64) - want) / (eps * size)).max())


SHAPES = [(1, 1, 1, 64), (1, 2, 17, 64), (2, 3, 67, 64), (1, 1, 129, 128), (2, 1, 31, 128)]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", HALVES, ids=_name)
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_within_the_half_bound(device, shape, dtype, causal):
    q, k, v = _inputs(shape, dtype, shape[2] + causal, size=2.0)
    got = ops.attention(q, k, v, causal=causal)
    assert error(got, q, k, v, 1 / math.sqrt(shape[-1]), causal, dtype) <= BOUND


def test_a_long_causal_sequence(device):
    """1025 keys: 9 query blocks, 33 key tiles, the last tile holding one key; the causal
    workgroups stop at their diagonal."""
    shape = (1, 1, 1025, 64)
    q, k, v = _inputs(shape, np.float16, 5)
    got = ops.attention(q, k, v, causal=True)
    assert error(got, q, k, v, 1 / 8, True, np.float16) <= BOUND


@pytest.mark.parametrize("d", [64, 128])
def test_non_contiguous_inputs(device, d):
    """(batch, seq, heads, head_dim) storage seen as (batch, heads, seq, head_dim)."""
    raw = [a.swapaxes(1, 2) for a in _inputs((2, 23, 3, d), ml_dtypes.bfloat16, d)]
    assert not raw[0].flags.c_contiguous
    got = ops.attention(*raw, causal=True)
    assert error(got, *raw, 1 / math.sqrt(d), True, ml_dtypes.bfloat16) <= BOUND


@pytest.mark.parametrize("scale", [-0.4, 0.0, 2.5])
def test_explicit_scales(device, scale):
    """A negative scale (the largest score is the most negative product), zero (equal
    weights) and a large one (scores of tens: every weight but a few is 0)."""
    q, k, v = _inputs((1, 2, 41, 64), np.float16, 3)
    got = ops.attention(q, k, v, scale=scale)
    assert error(got, q, k, v, scale, False, np.float16) <= BOUND


def test_out_that_is_an_input(device):
    q, k, v = _inputs((1, 2, 19, 64), np.float16, 4)
    t = tack.array(q)
    assert ops.attention(t, k, v, causal=True, out=t) is t
    assert error(t, q, k, v, 1 / 8, True, np.float16) <= BOUND


def test_the_op_runs_the_tensor_core_kernel(device):
    """ops.attention gives the bits of the tensor-core kernel called directly (its weights are
    rounded to the half type, which the f32 kernels never do, so the two paths differ)."""
    q, k, v = (tack.array(a) for a in _inputs((1, 2, 37, 64), np.float16, 6))
    direct = tack.zeros(q.shape, tack.f16)
    fa.attention(q, k, v, direct, 0.125, True)
    assert np.array_equal(ops.attention(q, k, v, causal=True).numpy(), direct.numpy())
    widened = ops.attention(q, k, v, causal=True, precision="tf32")  # the f32 kernels
    assert not np.array_equal(widened.numpy(), direct.numpy())


@pytest.mark.parametrize("d", [32, 96])
def test_other_head_dims_keep_the_f32_kernels(device, d):
    q, k, v = _inputs((1, 1, 20, d), np.float16, d)
    assert not fa.supported(tack.array(q), "ieee")
    got = ops.attention(q, k, v, causal=True)
    refs_want = refs.attention(q, k, v, 1 / math.sqrt(d), True)
    assert np.abs(got.numpy().astype(np.float64) - refs_want).max() <= 2e-2


@pytest.mark.engines("cpu", "sim",
                     reason="which path serves: none on the CPU engine (no tensor cores), the MMA "
                            "kernels on the simulator")
def test_where_the_tensor_core_kernels_serve(device):
    sim = tack.default_device().capabilities.tensor_cores
    half = tack.array(np.zeros((1, 1, 2, 64), np.float16))
    assert fa.supported(half, "ieee") is sim
    assert not fa.supported(half, "tf32")  # tf32 keeps the f32 kernels' operand rounding
    assert not fa.supported(tack.array(np.zeros((1, 1, 2, 64), np.float32)), "ieee")


@pytest.mark.engines("sim", reason="tack.check runs kernels on the simulator")
@pytest.mark.parametrize("d, dtype, causal", [(64, np.float16, 1), (128, ml_dtypes.bfloat16, 0)])
def test_the_kernels_check_clean(device, d, dtype, causal):
    """No race, no pipeline finding (a tile read before its copy is waited for, a stage
    refilled while read), no uninitialized read, no partial-warp collective, at a sequence of
    two query blocks and five key tiles, the last partial."""
    s = 130
    q, k, v = (tack.array(a.reshape(s, d)) for a in _inputs((1, 1, s, d), dtype, 7))
    out = tack.zeros((s, d), tack.f16 if dtype == np.float16 else tack.bf16)
    kernel = fa.flash64 if d == 64 else fa.flash128
    narrow = fa.to_f16 if dtype == np.float16 else fa.to_bf16
    report = tack.check(kernel, q, k, v, out, 512, s, 0.18, causal, narrow)
    assert report.verdict == "clean", report.text()


@pytest.mark.engines("sim",
                     reason="runs the Julia engine's rewritten IR on the simulator's own kernel "
                            "runner")
def test_the_warp_operations_through_shared_memory_give_the_same_bits(device):
    """passes/warps_shared.py (each MMA as an exchange through shared memory and f32 fused
    multiply-adds, each shuffle of the row reductions as one: the Julia engine's form) run on
    the simulator: the kernel's bits do not depend on how its warp operations are carried out."""
    from tack.compiler import specialize
    from tack.passes.warps_shared import warps_through_shared
    from tack.runtime.sim.engine import SimKernel

    s, d = 40, 64
    q, k, v = (a.reshape(s, d) for a in _inputs((1, 1, s, d), np.float16, 8))
    args = [tack.array(q), tack.array(k), tack.array(v), tack.zeros((s, d), tack.f16), 256, s,
            0.18, 1, fa.to_f16]
    fa.flash64(*args)
    lowered = warps_through_shared(specialize(fa.flash64, args))
    out = np.zeros((s, d), np.float16)
    SimKernel(lowered).launch([q, k, v, out, 256, s, 0.18, 1], 256)
    np.testing.assert_array_equal(out.view(np.uint16), args[3].numpy().view(np.uint16))
