"""Wrong dtypes, shapes and arguments raise TypeError/ValueError naming the op and the argument,
before any launch."""
import numpy as np
import pytest
import tack
from tack import ops

F = np.zeros((2, 3), np.float32)
Q = np.zeros((1, 1, 2, 2), np.float32)


@pytest.mark.parametrize("call,match", [
    (lambda: ops.relu(np.zeros(3, np.int32)), r"relu: argument 'x' must be float16, bfloat16, float32 or float64"),
    (lambda: ops.softmax("abc"), r"softmax: argument 'x'"),
    (lambda: ops.add(F, F.astype(np.float64)), r"add: argument 'y' is tack.f64"),
    (lambda: ops.matmul(F, np.zeros((3, 2), np.float64)), r"matmul: argument 'b'"),
    (lambda: ops.softmax(F, axis=1.0), r"softmax: argument 'axis' must be an int"),
    (lambda: ops.attention(Q, Q, Q.astype(np.float16)), r"attention: argument 'v' is tack.f16"),
    (lambda: ops.attention(Q, Q.astype(np.float64), Q), r"attention: argument 'k' is tack.f64"),
    (lambda: ops.layer_norm(F, eps="x"), r"layer_norm: argument 'eps' must be a number"),
    (lambda: ops.attention(Q, Q, Q, causal=1),
     r"attention: argument 'causal' must be a bool"),
])
def test_type_errors(call, match):
    with pytest.raises(TypeError, match=match):
        call()


@pytest.mark.parametrize("call,match", [
    (lambda: ops.add(F, np.zeros((3, 2), np.float32)), r"add: argument 'y' must have shape"),
    (lambda: ops.softmax(F, axis=2), r"softmax: argument 'axis' is 2, out of range"),
    (lambda: ops.softmax(np.float32(1.0)), r"softmax: argument 'x' must have at least one"),
    (lambda: ops.layer_norm(F, weight=np.ones(4, np.float32)),
     r"layer_norm: argument 'weight' must have shape \(3,\)"),
    (lambda: ops.rms_norm(np.zeros((2, 0), np.float32)), r"rms_norm: argument 'x' needs a non-empty"),
    (lambda: ops.matmul(F, F), r"matmul: argument 'b' of shape \(2, 3\) does not fit"),
    (lambda: ops.matmul(np.zeros((1, 2, 3), np.float32), F), r"matmul: argument 'a' must have 2"),
    (lambda: ops.batched_matmul(np.zeros((2, 2, 3), np.float32), np.zeros((3, 3, 2), np.float32)),
     r"batched_matmul: argument 'b'"),
    (lambda: ops.attention(F, F, F), r"attention: argument 'q' must have 4 dimensions"),
    (lambda: ops.attention(np.zeros((1, 1, 2, 2), np.float32), np.zeros((1, 1, 3, 2), np.float32),
                           np.zeros((1, 1, 2, 2), np.float32)), r"attention: argument 'k' must"),
    (lambda: ops.gelu(F, approximate="erf"), r"gelu: argument 'approximate'"),
])
def test_value_errors(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_errors_come_before_any_launch(monkeypatch):
    """A bad argument stops the op before a kernel is called (launches are counted)."""
    calls = []
    monkeypatch.setattr(tack.Kernel, "__call__", lambda self, *a: calls.append(self.name))
    with pytest.raises(ValueError):
        ops.layer_norm(F, bias=np.ones(5, np.float32))
    with pytest.raises(TypeError):
        ops.attention(Q, Q, Q.astype(np.int64))
    assert calls == []


@pytest.mark.engines("cpu", "sim", "cuda", "julia",
                     reason="every engine: the CPU's kernels, the workgroup ones (simulator, GPU) "
                            "and Julia's")
def test_out_is_written_and_returned(device):
    x = np.arange(6, dtype=np.float32).reshape(2, 3) - 2
    out = tack.full((2, 3), 9.0)
    assert ops.relu(x, out=out) is out
    assert (out.numpy() == np.maximum(x, 0)).all()
    c = tack.full((2, 2), 5.0)
    ops.matmul(np.ones((2, 3), np.float32), np.ones((3, 2), np.float32), out=c)
    assert (c.numpy() == 3).all()  # the accumulating CPU kernel starts from zero
    ops.softmax(x, out=out)
    np.testing.assert_allclose(out.numpy().sum(-1), 1, rtol=1e-6)


@pytest.mark.parametrize("out,err,match", [
    (np.zeros((2, 3), np.float32), TypeError, r"relu: argument 'out' must be a tack.Array"),
    (tack.zeros((2, 3), tack.f64), TypeError, r"relu: argument 'out' must be tack.f32"),
    (tack.zeros((3, 2)), ValueError, r"relu: argument 'out' must have shape \(2, 3\)"),
])
def test_bad_out(device, out, err, match):
    with pytest.raises(err, match=match):
        ops.relu(F, out=out)
