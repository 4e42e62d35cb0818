"""Elementwise ops: `add` (x + alpha*y), `relu`, `gelu` (tanh form as NNlib's `gelu`, or the
exact erf form) and `silu` (NNlib's `swish`), over the flat elements of any shape.

Every loop runs over an array extent, so its index is 64-bit: the CUDA engine then gives the
cheap kernels (`add`, `relu`) several consecutive indices per thread with 16-byte accesses
(docs/design/004-cuda-engine.md, "Elementwise coarsening"). A kernel calling library math
(`exp`, in gelu and silu) is not coarsened there, so on an engine with workgroups its `_spread`
form runs a step of `STEP` = 8 consecutive elements per iteration (ops/_steps.py): on CUDA,
where the arrays start 16 bytes aligned, the NVPTX printer's aligned entry makes the step one
16-byte load and store of a half array (two of an f32 one), where 8 elements `n / 8` apart
were 8 scalar accesses; a GPU thread keeps the step's loads in flight. The
portable form (one element per iteration) serves the CPU, where LLVM vectorizes it; in float32
it takes `tack.lib.expf.exp_f32` for exp, which vectorizes too. Each element is computed by the
same expression in the flat and the spread form, so the results are the same bits."""
from __future__ import annotations

import math

from ..dtypes import f64
from ..frontend.inline import func
from ..intrinsics import local_array_like, select, unroll
from ..kernel import kernel
from ..lib.expf import exp_f32
from . import _args, _wide
from ._erf import erf, erf_f32
from ._steps import STEP, put, take


@kernel
def _add(x, y, out, alpha):
    for i in range(out.shape[0]):
        out[i] = x[i] + alpha * y[i]


@kernel
def _relu(x, out):
    for i in range(out.shape[0]):
        v = x[i]  # a select, not a conditional expression: the kernel stays free of branches
        # NNlib's relu, ifelse(x < 0, 0, x): NaN and -0.0 stay as they are
        # (https://github.com/FluxML/NNlib.jl/blob/master/src/activations.jl)
        out[i] = select(v < 0.0, 0.0, v)


def _scalar_functions(expf, erf) -> dict:
    """gelu (both forms) and silu on one element, with `expf` for exp and `erf` for erf."""

    @func
    def gelu_tanh(v):
        inner = 0.7978845608028654 * (v + 0.044715 * v * v * v)  # sqrt(2/pi)
        # 0.5 v (1 + tanh(u)) = v / (1 + exp(-2u)): the same function, one exp instead of a
        # tanh (several times dearer in the C library), and no cancellation for u << 0
        return v / (1.0 + expf(-2.0 * inner))

    @func
    def gelu_erf(v):
        return 0.5 * v * (1.0 + erf(v * 0.7071067811865476))  # 1/sqrt(2)

    @func
    def silu(v):
        return v / (1.0 + expf(-v))
    return {"gelu_tanh": gelu_tanh, "gelu_erf": gelu_erf, "silu": silu}


def _kernels(f, name: str):
    """The portable and the spread kernel of the scalar function `f` (a `@tack.func`), named
    `_<name>` and `_<name>_spread` (the names the Julia files and `tack.inspect` show)."""

    def flat(x, out, wide):  # wide: f32 math for half elements (ops/_wide.py)
        for i in range(out.shape[0]):
            out[i] = f(wide(x[i]))

    def spread(x, out, q, n, wide):  # n a parameter: an extent used in the body is compiled in
        for t in range(q):
            vals = local_array_like(x, STEP)
            at = t * STEP
            take(vals, 0, x, at, n - at, 0.0)  # every load first: one 16-byte step where aligned
            for k in unroll(range(STEP)):
                vals[k] = f(wide(vals[k]))  # rounded to x's dtype once, as the store would
            put(out, at, n - at, vals, 0)
    flat.__name__, spread.__name__ = f"_{name}", f"_{name}_spread"
    return kernel(flat), kernel(spread)


_UNARY = {name: _kernels(fn, name)
          for name, fn in _scalar_functions(math.exp, erf).items()}
# float32 on engines without workgroups (the CPU): the same expressions with exp_f32, an exp in
# plain arithmetic that LLVM vectorizes (the builtin's `expf` runs one lane at a time)
_UNARY_F32 = {name: _kernels(fn, name)[0]
              for name, fn in _scalar_functions(exp_f32, erf_f32).items()}


def _flat(a):
    return _args.view(a, (a.size,))


def _unary(op, kernels, x, out, cpu_f32=None):
    dev = _args.device()
    xa = _args.as_array(op, "x", x, dev)
    out = _args.output(op, out, xa)
    if xa.size == 0:
        return out
    res = _args.apart(out, {"x": xa}, in_place=("x",))
    if not isinstance(kernels, tuple):
        kernels(_flat(xa), _flat(res))
        return _args.deliver(res, out)
    wide = _wide.funcs(xa.dtype, "wide")  # a half element's math in f32, rounded once
    flat, spread = kernels
    if _args.workgroups(dev):
        q = -(-xa.size // int(STEP))
        spread(_flat(xa), _flat(res), *_args.sizes(xa.size, q, xa.size), *wide)
        return _args.deliver(res, out)
    k = cpu_f32 if xa.dtype != f64 else flat  # f32 math: exp_f32, which vectorizes
    k(_flat(xa), _flat(res), *wide)
    return _args.deliver(res, out)


def add(x, y, alpha=1.0, out=None, deterministic=None):
    """x + alpha * y, elementwise, for x and y of one shape and one float dtype. `deterministic`:
    True or False runs in that mode (`tack.deterministic`), None in the caller's."""
    with _args.mode(deterministic):
        dev = _args.device()
        a = _args.number("add", "alpha", alpha)
        xa = _args.as_array("add", "x", x, dev)
        ya = _args.as_array("add", "y", y, dev)
        _args.same_dtype("add", xa, y=ya)
        _args.need_shape("add", "y", ya, xa.shape)
        out = _args.output("add", out, xa)
        if xa.size:
            res = _args.apart(out, {"x": xa, "y": ya}, in_place=("x", "y"))
            _add(_flat(xa), _flat(ya), _flat(res), a)
            _args.deliver(res, out)
        return out


def relu(x, out=None, deterministic=None):
    """max(x, 0) elementwise (NaN propagates); `deterministic` as for `add`."""
    with _args.mode(deterministic):
        return _unary("relu", _relu, x, out)


def gelu(x, approximate="tanh", out=None, deterministic=None):
    """GELU: approximate="tanh" is 0.5x(1 + tanh(sqrt(2/pi)(x + 0.044715x^3))), NNlib's `gelu`;
    approximate="none" is the exact 0.5x(1 + erf(x/sqrt(2))). `deterministic` as for `add`."""
    if approximate not in ("tanh", "none"):
        raise _args.TackValueError(f"tack.ops.gelu: argument 'approximate' must be 'tanh' or "
                                   f"'none', got {approximate!r}")
    key = "gelu_tanh" if approximate == "tanh" else "gelu_erf"
    with _args.mode(deterministic):
        return _unary("gelu", _UNARY[key], x, out, _UNARY_F32[key])


def silu(x, out=None, deterministic=None):
    """x * sigmoid(x), NNlib's `swish`; `deterministic` as for `add`."""
    with _args.mode(deterministic):
        return _unary("silu", _UNARY["silu"], x, out, _UNARY_F32["silu"])
