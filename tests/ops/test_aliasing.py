"""`out=` sharing memory with an input: every op gives what it gives into a fresh array, as
NumPy does (docs/ops.md, "Outputs that overlap inputs"): in place where its kernels allow it
(element-wise and row-wise ops with out exactly an input), else through a copy."""
import math

import numpy as np
import pytest
import tack
from tack import ops

from tests.ops import refs

pytestmark = pytest.mark.engines("cpu", "sim",
                                 reason="the CPU engine and the simulator (a GPU's workgroup "
                                        "paths), the engines CI runs")


def _close(got, want, dtype=np.float32, scale=4):
    """`got` (a Tack array, or the NumPy storage views write into) matches the float64 `want`."""
    refs.close(tack.array(got) if isinstance(got, np.ndarray) else got, want, dtype, scale)


@pytest.mark.parametrize("m,k,n", [(1, 1, 1), (5, 5, 5), (17, 17, 17), (64, 64, 64)])
def test_matmul_into_an_input(device, m, k, n):
    """matmul(a, b, out=a) and out=b (square): NumPy's matmul gives a @ b."""
    a0, b0 = refs.rand((m, k), np.float32, 1, 1.0), refs.rand((k, n), np.float32, 2, 1.0)
    want = refs.matmul(a0, b0)
    a, b = tack.array(a0), tack.array(b0)
    assert ops.matmul(a, b, out=a) is a
    _close(a, want)
    a = tack.array(a0)
    ops.matmul(a, b, out=b)
    _close(b, want)
    sq = tack.array(a0)
    ops.matmul(sq, sq, out=sq)  # a @ a, in place
    _close(sq, refs.matmul(a0, a0))


def test_batched_matmul_into_an_input(device):
    a0, b0 = refs.rand((3, 6, 6), np.float64, 1, 1.0), refs.rand((3, 6, 6), np.float64, 2, 1.0)
    a = tack.array(a0)
    ops.batched_matmul(a, tack.array(b0), out=a)
    _close(a, refs.matmul(a0, b0), np.float64)


def _shifted(n: int, shift: int, dtype=np.float32):
    """(base, x, out): two Tack views of n elements of one NumPy buffer, out `shift` after x."""
    base = refs.rand(n + shift, dtype, 3, 1.0)
    return base, tack.from_dlpack(base[:n]), tack.from_dlpack(base[shift:])


UNARY = [("relu", lambda x: np.maximum(x, 0)),
         ("silu", lambda x: x / (1 + np.exp(-x))),
         ("gelu", lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi)
                                                   * (x + 0.044715 * x ** 3))))]


@pytest.mark.parametrize("name,ref", UNARY, ids=[u[0] for u in UNARY])
@pytest.mark.parametrize("n", [3, 257, 4099])
def test_unary_in_place_and_overlapping(device, name, ref, n):
    x0 = refs.rand(n, np.float32, 1, 2.0)
    x = tack.array(x0)
    getattr(ops, name)(x, out=x)  # in place: allowed, no copy needed
    _close(x, ref(x0.astype(np.float64)))
    base, x, out = _shifted(n, 1)
    want = ref(base[:n].astype(np.float64))
    getattr(ops, name)(x, out=out)
    _close(base[1:], want)


@pytest.mark.parametrize("n", [2, 300])
def test_add_out_overlapping_either_input(device, n):
    base, x, out = _shifted(n, 1)
    y0 = refs.rand(n, np.float32, 5, 1.0)
    want = base[:n].astype(np.float64) + 2 * y0
    ops.add(x, tack.array(y0), alpha=2.0, out=out)
    _close(base[1:], want)
    base, y, out = _shifted(n, 1)
    x0 = refs.rand(n, np.float32, 6, 1.0)
    want = x0 + 0.5 * base[:n].astype(np.float64)
    ops.add(tack.array(x0), y, alpha=0.5, out=out)
    _close(base[1:], want)


@pytest.mark.parametrize("name,ref", [("softmax", refs.softmax), ("log_softmax", refs.log_softmax)])
@pytest.mark.parametrize("shape,axis", [((3, 7), -1), ((2, 300), -1), ((4, 5, 3), 1)])
def test_softmax_in_place(device, name, ref, shape, axis):
    x0 = refs.rand(shape, np.float32, 1, 3.0)
    x = tack.array(x0)
    getattr(ops, name)(x, axis=axis, out=x)
    _close(x, ref(x0, axis))


def test_softmax_into_a_shifted_view(device):
    base = refs.rand(4 * 9 + 9, np.float32, 1, 3.0)
    x = tack.from_dlpack(base[:36]).reshape(4, 9)
    out = tack.from_dlpack(base[9:]).reshape(4, 9)
    want = refs.softmax(base[:36].reshape(4, 9), -1)
    ops.softmax(x, out=out)
    _close(base[9:].reshape(4, 9), want)


@pytest.mark.parametrize("rows,n", [(1, 5), (3, 8), (2, 513)])
def test_norms_in_place_and_over_their_weight(device, rows, n):
    x0 = refs.rand((rows, n), np.float32, 1, 2.0)
    w0, b0 = refs.rand(n, np.float32, 2, 1.0), refs.rand(n, np.float32, 3, 1.0)
    x = tack.array(x0)
    ops.layer_norm(x, tack.array(w0), tack.array(b0), out=x)
    _close(x, refs.layer_norm(x0, w0, b0, 1e-5)[0])
    x = tack.array(x0)
    ops.rms_norm(x, tack.array(w0), out=x)
    _close(x, refs.rms_norm(x0, w0, 1e-6))
    # the weight is the output's first row: every row reads it while rows are written
    buf = np.concatenate([w0, x0.ravel()])
    out = tack.from_dlpack(buf[:rows * n]).reshape(rows, n)
    ops.rms_norm(tack.array(x0), tack.from_dlpack(buf[:n]), out=out)
    _close(buf[:rows * n].reshape(rows, n), refs.rms_norm(x0, w0, 1e-6))


@pytest.mark.parametrize("which", ["q", "k", "v"])
@pytest.mark.parametrize("shape", [(1, 1, 5, 4), (2, 2, 9, 3), (1, 1, 4, 300)], ids=str)
def test_attention_into_an_input(device, which, shape):
    q0, k0, v0 = (refs.rand(shape, np.float32, s, 1.5) for s in (1, 2, 3))
    want = refs.attention(q0, k0, v0, 1 / math.sqrt(shape[-1]), True)
    args = {"q": tack.array(q0), "k": tack.array(k0), "v": tack.array(v0)}
    ops.attention(args["q"], args["k"], args["v"], causal=True, out=args[which])
    _close(args[which], want, scale=8)
