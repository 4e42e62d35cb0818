"""Which Tack kernels of `tack.ops` each `julia/kernels/<op>.jl` holds, specialized how.

A file is one op's kernels in Float32 and Float64 (and Float16 where tack.ops runs half rows
natively: elementwise, softmax, the norms; matmul and attention take half through an f32 copy in
Python, so their files do not), every tier the Python wrapper can pick (the
portable kernel, the workgroup kernel per `PER` constant, the long-row kernel) with 32-bit
sizes, plus the op's bridge functions (`bridges/<op>.jl`). An op whose kernels another file
already holds (`log_softmax`, `batched_matmul`) includes that file instead of repeating them.
Each entry is keyed by (tier, element type, parameter) in the file's kernel table, the
parameter being the `PER` constant of a one-read kernel or the head dimension of attention.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import import_module

import numpy as np

from ..arrays import array
from ..dtypes import f16, f32, f64

# the op modules (`tack.ops.softmax` as an attribute is the function, so by import_module)
EW, SM, NM, MM, AT, W, P = (import_module(f"tack.ops.{m}") for m in
                            ("elementwise", "softmax", "norms", "matmul", "attention", "_wide",
                             "_precision"))

DTYPES = (f32, f64)
HALF = (f32, f64, f16)  # a half op's Float16 kernels take Float32 scalars (eps, alpha)
# every PER the wrappers pick (softmax._per_lane): the powers of two from STEP to MAX_PER_LANE
PERS = tuple(2**i for i in range(int(SM.STEP).bit_length() - 1, SM.MAX_PER_LANE.bit_length()))
HEAD_DIMS = (16, 32, 64, 128)  # attention's head dimensions (the kernels bake it)


@dataclass(frozen=True)
class Entry:
    """A tier's specializations: `make(param)` is the Tack kernel, called with
    `args(dtype, param)` (arrays and Python scalars: ints become Int32 sizes, floats take the
    arrays' precision), once per parameter."""
    tier: str
    make: Callable
    args: Callable
    params: tuple = (0,)


def fixed(tier: str, kernel, args, params: tuple = (0,)) -> Entry:
    return Entry(tier, lambda _: kernel, args, params)


@dataclass(frozen=True)
class OpFile:
    name: str  # julia/kernels/<name>.jl, bridges/<name>.jl, julia/test/test_<name>.jl
    module: str  # the tack.ops module whose kernels these are
    entries: tuple = ()
    includes: tuple = ()  # op files whose kernels and bridges this one builds on
    bridges: tuple = field(default=())  # the bridge functions a Julia user calls
    dtypes: tuple = DTYPES  # the element types its kernels are rendered in


def _vec(dtype):
    return array(np.zeros(8, dtype.np))


def _unary(t, _):
    return [_vec(t), _vec(t)]  # x, out (the extent is the arrays')


def _with(*names):
    """An args function plus the op's compile-time functions for the dtype (tack.ops._wide:
    the f32/f64 kernels take the row loop and the tree of their own dtype)."""
    def wrap(args):
        return lambda t, p: args(t, p) + list(W.funcs(t, *names))
    return wrap


def _softmax_row(t, _):
    return [_vec(t), _vec(t), 1, 8, 0]  # x, out, rows, n, want_log


def _softmax_funcs(funcs):
    """softmax's row arguments plus its compile-time functions for the dtype."""
    return lambda t, p: _softmax_row(t, p) + list(funcs(t))


def _softmax_column(t, _):
    return [_vec(t), _vec(t), 1, 8, 1, 0]  # x, out, columns, n, inner, want_log


def _layer_args(t, _):
    return [_vec(t) for _ in range(6)] + [1, 8, 1e-5]  # x, w, b, y, mean, rstd, rows, n, eps


def _rms_args(t, _):
    return [_vec(t) for _ in range(3)] + [1, 8, 1e-6]  # x, w, y, rows, n, eps


def _mm_args(t, _):
    return [_vec(t) for _ in range(3)] + [1, 2, 2, 2]  # a, b, c, batch, m, k, n


# The kernels that take their softmax weights through a precision's rounding (tack.ops'
# `precision`, ops/_precision.py), here "ieee": the Julia bridges multiply float32 exactly
def _ieee(args):
    return lambda t, p: args(t, p) + [P.OPERAND["ieee"]]


def _attn_args(t, d):  # q, k, v, out as (rows, head_dim), rows (or batch*heads), seq, scale, causal
    return [array(np.zeros((4, d), t.np)) for _ in range(4)] + [4, 4, 0.5, 0]


def _norm_cached(make):
    return lambda per: NM._cached(make, per)


def _row_start(args, k: int):
    """A workgroup row kernel's arguments with its rows' start (`softmax.row_start`: any n)
    after the first k (the arrays and sizes)."""
    return lambda t, p: args(t, p)[:k] + [SM.row_start] + args(t, p)[k:]


OP_FILES = (
    OpFile("add", "elementwise", (fixed("map", EW._add, lambda t, _: [_vec(t)] * 3 + [1.0]),),
           bridges=("tack_add!",), dtypes=HALF),
    OpFile("relu", "elementwise", (fixed("map", EW._relu, _unary),), bridges=("tack_relu!",),
           dtypes=HALF),
    OpFile("gelu", "elementwise", (fixed("tanh", EW._UNARY["gelu_tanh"][0], _with("wide")(_unary)),
                                   fixed("none", EW._UNARY["gelu_erf"][0], _with("wide")(_unary))),
           bridges=("tack_gelu!",), dtypes=HALF),
    OpFile("silu", "elementwise", (fixed("map", EW._UNARY["silu"][0], _with("wide")(_unary)),),
           bridges=("tack_silu!",), dtypes=HALF),
    OpFile("softmax", "softmax", (fixed("rows", SM._rows, _softmax_funcs(SM.row_funcs)),
                                  fixed("columns", SM._columns, _softmax_column),
                                  Entry("cached", SM._cached, _softmax_funcs(SM.cached_funcs),
                                        PERS),
                                  fixed("online", SM._online,
                                        _row_start(_with("reduce")(_softmax_row), 5))),
           bridges=("tack_softmax!",), dtypes=HALF),
    OpFile("log_softmax", "softmax", includes=("softmax",), bridges=("tack_log_softmax!",)),
    OpFile("layer_norm", "norms", (fixed("rows", NM._layer_rows, _with("fold")(_layer_args)),
                                   Entry("cached", _norm_cached(NM._layer_cached_kernel),
                                         _row_start(_with("reduce")(_layer_args), 9), PERS),
                                   fixed("long", NM._layer_long,
                                         _row_start(_with("reduce")(_layer_args), 9))),
           bridges=("tack_layer_norm!", "tack_layer_norm_stats!"), dtypes=HALF),
    OpFile("rms_norm", "norms", (fixed("rows", NM._rms_rows, _with("fold")(_rms_args)),
                                 Entry("cached", _norm_cached(NM._rms_cached_kernel),
                                       _row_start(_with("reduce", "wide")(_rms_args), 6), PERS),
                                 fixed("long", NM._rms_long,
                                       _row_start(_with("reduce", "wide")(_rms_args), 6))),
           bridges=("tack_rms_norm!",), dtypes=HALF),
    OpFile("matmul", "matmul", (fixed("rows4", MM._rows4, _mm_args),
                                fixed("tiled", MM._tiled, _mm_args)),
           bridges=("tack_matmul!",)),
    OpFile("batched_matmul", "matmul", includes=("matmul",), bridges=("tack_batched_matmul!",)),
    OpFile("attention", "attention", (fixed("rows", AT._rows, _ieee(_attn_args), HEAD_DIMS),
                                      fixed("blocked", AT._blocked, _ieee(_attn_args),
                                            HEAD_DIMS)),
           bridges=("tack_attention!",)),
)
OPS = {f.name: f for f in OP_FILES}

