"""Attention on tensor cores (ops/flash_attention.py) and what it needed of the language:
arithmetic on accumulator-shaped fragments with row reductions and two accumulators as an A
fragment (the online softmax in registers), and the group number `t // 256` as a uniform value
(a causal workgroup's key loop stops at its diagonal). Each row is a class of fault: an op whose
half result leaves the declared bound, a kernel tack.check would flag, a refusal that must
stay (A fragments have no arithmetic; an integer accumulator never reaches tack.mma; a lane
division stays lane-varying), or a uniform loop that must be accepted."""
from __future__ import annotations

from .case import Case

_SETUP = '''
import math
import ml_dtypes
from tack import ops
from tack.ops import flash_attention as fa
from tack.testing.bounds import HALF_OP_BOUNDS

tack.set_default_device("sim")

@tack.kernel
def online(A, K, M, T, n):
    for i in range(n):
        r = tack.warp_id() * 16
        s = tack.mma(tack.mma_load_a(A, r, 0), tack.mma_load_bt(K, r, 0), tack.mma_zeros())
        m = tack.mma_row_max(s)
        tack.mma_store(m, M, r, 0)
        tack.mma_store(tack.mma_row_sum(exp(s - m)), T, r, 0)

@tack.kernel
def a_scaled(A, K, M, T, n):
    for i in range(n):
        a = tack.mma_load_a(A, 0, 0) * 0.5
        tack.mma_store(tack.mma(a, tack.mma_load_bt(K, 0, 0), tack.mma_zeros()), M, 0, 0)

@tack.kernel
def int_accumulator(A, K, M, T, n):
    for i in range(n):
        acc = tack.mma(tack.mma_load_a(A, 0, 0), tack.mma_load_bt(K, 0, 0), tack.mma_cols())
        tack.mma_store(acc, M, 0, 0)

@tack.kernel
def per_group(x, out, n, s):
    for i in range(n):
        acc = 0.0
        for j in range(i // 256 * s + 1):
            acc += tack.block_sum(x[i])
        out[i] = acc

@tack.kernel
def per_half_group(x, out, n, s):
    for i in range(n):
        acc = 0.0
        for j in range(i // 128 * s + 1):
            acc += tack.block_sum(x[i])
        out[i] = acc

rng = np.random.default_rng(1)
a, k = (rng.standard_normal((128, 16)).astype(np.float16) for _ in range(2))
A, K = tack.array(a), tack.array(k)
M, T = tack.zeros((128, 8)), tack.zeros((128, 8))
x = tack.array(np.ones(768, np.float32))
out = tack.zeros(768)

def attention_error(shape, dtype, causal, **kw):
    q, kk, v = (rng.standard_normal(shape).astype(dtype) for _ in range(3))
    got = ops.attention(q, kk, v, causal=causal, **kw).numpy().astype(np.float64)
    q64, k64, v64 = (t.astype(np.float64) for t in (q, kk, v))
    s = q64 @ np.swapaxes(k64, -1, -2) * kw.get("scale", 1 / math.sqrt(shape[-1]))
    if causal:
        s = np.where(np.tril(np.ones(s.shape[-2:], bool)), s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    eps = float(ml_dtypes.finfo(dtype).eps) / 2
    return float((np.abs(got - p @ v64) / (eps * (p @ np.abs(v64)))).max())
'''


def _cases() -> list[Case]:
    bound = "HALF_OP_BOUNDS['attention'][0]"
    return [
        Case("flash/online-softmax-in-registers", "online(A, K, M, T, 256)", None, _SETUP,
             check=("s = a.astype(np.float64) @ k.astype(np.float64).T\n"
                    "for w in range(8):\n"
                    "    t = s[16*w:16*w+16, 16*w:16*w+8]\n"
                    "    assert np.abs(M.numpy()[16*w:16*w+16, 0] - t.max(1)).max() < 1e-5\n"
                    "    e = np.exp(t - t.max(1, keepdims=True)).sum(1)\n"
                    "    assert np.abs(T.numpy()[16*w:16*w+16, 0] - e).max() < 1e-5"),
             quick=True,
             note="row maxima and sums of an accumulator tile, and arithmetic on it, without "
                  "a trip through shared memory"),
        Case("flash/a-fragment-arithmetic", "a_scaled(A, K, M, T, 256)", "tack.TackTypeError",
             _SETUP, position=True, mentions=("a_scaled", "A fragment", "used as a vector"),
             unchanged=("M",), note="an A fragment's layout is not the accumulator's"),
        Case("flash/integer-accumulator", "int_accumulator(A, K, M, T, 256)",
             "tack.TackTypeError", _SETUP, position=True,
             mentions=("int_accumulator", "accumulates into f32"), unchanged=("M",),
             note="an accumulator-shaped i32 fragment (tack.mma_cols) is no MMA accumulator"),
        Case("flash/group-number-loop", "per_group(x, out, 768, 2)", None, _SETUP,
             check="assert list(out.numpy()[::256]) == [256.0, 768.0, 1280.0], out.numpy()",
             quick=True,
             note="a collective in a loop whose trip count is the group number t // 256"),
        Case("flash/half-group-loop", "per_half_group(x, out, 768, 2)", "tack.TackValueError",
             _SETUP, position=True,
             mentions=("per_half_group", "uniform workgroup participation"),
             unchanged=("out",), note="t // 128 differs between the two halves of a group"),
        Case("flash/f16-causal-within-bound",
             "err = attention_error((2, 1, 67, 64), np.float16, True)", None, _SETUP,
             check=f"assert err <= {bound}, err", quick=True,
             note="weights rounded to f16 before P V: within the declared half bound"),
        Case("flash/bf16-head-128-within-bound",
             "err = attention_error((1, 2, 33, 128), ml_dtypes.bfloat16, False, scale=-0.3)",
             None, _SETUP, check=f"assert err <= {bound}, err",
             note="head_dim 128, a negative scale: the running maximum of the scaled scores"),
        Case("flash/backward-gradients",
             "qkvd = [rng.standard_normal((1, 2, 11, 8)).astype(np.float32) for _ in range(4)]\n"
             "dq, dk, dv = (x.numpy() for x in ops.attention_backward(*qkvd, causal=True))",
             None, _SETUP,
             check=("assert not dq[:, :, 0].any()  # the first query sees one key: ds = 0\n"
                    "assert np.allclose(dv.sum(2), qkvd[3].sum(2), atol=1e-5)  # rows of p sum to 1\n"
                    "assert np.abs(dk.sum(2)).max() < 1e-5  # each row of ds sums to 0"),
             quick=True, note="the gradients of attention, on an engine with workgroups too"),
        Case("flash/kernel-checks-clean",
             "r = tack.check(fa.flash64, *(tack.array(rng.standard_normal((130, 64))"
             ".astype(np.float16)) for _ in range(3)), tack.zeros((130, 64), tack.f16), 512, "
             "130, 0.18, 1, fa.to_f16)", None, _SETUP,
             check="assert r.verdict == 'clean', r.text()",
             note="no race, pipeline finding or uninitialized read in the two-stage pipeline"),
    ]


CASES = _cases()
