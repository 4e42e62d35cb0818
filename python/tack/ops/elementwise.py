"""Elementwise ops: `add` (x + alpha*y), `relu`, `gelu` (tanh form as NNlib's `gelu`, or the
exact erf form) and `silu` (NNlib's `swish`). One flat parallel loop over every element: the
same kernels serve every engine and every shape (a flat index reads any rank row-major)."""
from __future__ import annotations

from ..kernel import kernel
from . import _args
from ._erf import erf


@kernel
def _add(x, y, out, alpha, n):
    for i in range(n):
        out[i] = x[i] + alpha * y[i]


@kernel
def _relu(x, out, n):
    for i in range(n):
        v = x[i]
        out[i] = v if v > 0.0 or v != v else 0.0  # noqa: PLR0124 - NaN stays NaN; -0.0 gives 0


@kernel
def _gelu_tanh(x, out, n):
    for i in range(n):
        v = x[i]
        inner = 0.7978845608028654 * (v + 0.044715 * v * v * v)  # sqrt(2/pi)
        # 0.5 v (1 + tanh(u)) = v / (1 + exp(-2u)): the same function, one exp instead of a
        # tanh (several times dearer in the C library), and no cancellation for u << 0
        out[i] = v / (1.0 + exp(-2.0 * inner))  # noqa: F821 - a kernel builtin


@kernel
def _gelu_erf(x, out, n):
    for i in range(n):
        v = x[i]
        out[i] = 0.5 * v * (1.0 + erf(v * 0.7071067811865476))  # 1/sqrt(2)


@kernel
def _silu(x, out, n):
    for i in range(n):
        v = x[i]
        out[i] = v / (1.0 + exp(-v))  # noqa: F821 - a kernel builtin


def _unary(op, k, x, out):
    dev = _args.device()
    xa = _args.as_array(op, "x", x, dev)
    out = _args.output(op, out, xa)
    k(xa, out, xa.size)
    return out


def add(x, y, alpha=1.0, out=None):
    """x + alpha * y, elementwise, for x and y of one shape and one float dtype."""
    dev = _args.device()
    a = _args.number("add", "alpha", alpha)
    xa = _args.as_array("add", "x", x, dev)
    ya = _args.as_array("add", "y", y, dev)
    _args.same_dtype("add", xa, y=ya)
    _args.need_shape("add", "y", ya, xa.shape)
    out = _args.output("add", out, xa)
    _add(xa, ya, out, a, xa.size)
    return out


def relu(x, out=None):
    """max(x, 0) elementwise (NaN propagates)."""
    return _unary("relu", _relu, x, out)


def gelu(x, approximate="tanh", out=None):
    """GELU: approximate="tanh" is 0.5x(1 + tanh(sqrt(2/pi)(x + 0.044715x^3))), NNlib's `gelu`;
    approximate="none" is the exact 0.5x(1 + erf(x/sqrt(2)))."""
    if approximate not in ("tanh", "none"):
        raise _args.TackValueError(f"tack.ops.gelu: argument 'approximate' must be 'tanh' or "
                                   f"'none', got {approximate!r}")
    return _unary("gelu", _gelu_tanh if approximate == "tanh" else _gelu_erf, x, out)


def silu(x, out=None):
    """x * sigmoid(x), NNlib's `swish`."""
    return _unary("silu", _silu, x, out)

