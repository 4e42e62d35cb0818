"""Min/max reductions on the CPU: which loops passes/minmax.py carries in integer keys, and that
LLVM's loop vectorizer takes them (and the integer ones) as vector reductions, so a scalar row
max cannot come back unnoticed. Their results against references: tests/exec/
test_minmax_reductions.py."""
from __future__ import annotations

import re

import numpy as np
import pytest
import tack
from tack.ir.nodes import For
from tack.ir.ops import Op
from tack.ir.verify import verify
from tack.ir.walk import iter_stmts
from tack.passes.minmax import keyed_minmax_reductions

# an LLVM vector reduction of 2 or more lanes: `llvm.vector.reduce.smax.v16i32` and the like
VECTOR_REDUCE = r"llvm\.vector\.reduce\.{}\.v\d+i(32|64)"


@tack.kernel
def row_max(x, out):
    for i in range(x.shape[0]):
        m = x[i, 0]
        for j in range(1, x.shape[1]):
            m = max(m, x[i, j])
        out[i] = m


@tack.kernel
def row_min_swapped(x, out):
    for i in range(x.shape[0]):
        m = x[i, 0]
        for j in range(1, x.shape[1]):
            m = min(x[i, j], m)
        out[i] = m


@tack.kernel
def softmax(x, out):  # bench/cpu.py's
    for i in range(x.shape[0]):
        mx = x[i, 0]
        for j in range(1, x.shape[1]):
            mx = max(mx, x[i, j])
        s = 0.0
        for j in range(x.shape[1]):
            e = exp(x[i, j] - mx)  # noqa: F821 - a kernel builtin
            out[i, j] = e
            s += e
        inv = 1.0 / s
        for j in range(x.shape[1]):
            out[i, j] = out[i, j] * inv


def _optimized(k, x, out) -> str:
    return tack.inspect(k, tack.array(x, device="cpu"), tack.array(out, device="cpu"),
                        mode="optimized")


@pytest.mark.parametrize("dtype, reduce", [
    (np.float32, "smax"), (np.float64, "smax"), (np.int32, "smax"), (np.int64, "smax"),
    (np.uint32, "umax")])
def test_max_loop_is_a_vector_reduction(dtype, reduce):
    text = _optimized(row_max, np.zeros((4, 1000), dtype), np.zeros(4, dtype))
    assert re.search(VECTOR_REDUCE.format(reduce), text), text


@pytest.mark.parametrize("dtype, reduce", [
    (np.float32, "smin"), (np.float64, "smin"), (np.int32, "smin"), (np.uint32, "umin")])
def test_min_loop_is_a_vector_reduction(dtype, reduce):
    text = _optimized(row_min_swapped, np.zeros((4, 1000), dtype), np.zeros(4, dtype))
    assert re.search(VECTOR_REDUCE.format(reduce), text), text


def test_softmax_row_max_is_a_vector_reduction():
    x = np.zeros((4, 1024), np.float32)
    text = _optimized(softmax, x, x)
    assert re.search(VECTOR_REDUCE.format("smax"), text), text
    assert re.search(r"llvm\.vector\.reduce\.fadd\.v\d+f32", text)  # the in-order sum's


# ---- which loops are rewritten -----------------------------------------------------------------
@tack.kernel
def read_elsewhere(x, out):  # m is read beside its max: a plain loop
    for i in range(x.shape[0]):
        m = x[i, 0]
        for j in range(x.shape[1]):
            m = max(m, x[i, j])
            out[i, j] = m


@tack.kernel
def conditional(x, out):  # the max under an `if`: still one use; a nested loop's own
    for i in range(x.shape[0]):
        m = x[i, 0]
        n = x[i, 0]
        for j in range(x.shape[1]):
            if x[i, j] > 0.5:
                m = max(m, x[i, j])
            for k in range(2):
                n = min(n, x[i, j] + k)
        out[i, 0] = m
        out[i, 1] = n


@tack.kernel
def two_updates(x, out):  # two assignments of m in one body: a plain loop
    for i in range(x.shape[0]):
        m = x[i, 0]
        for j in range(x.shape[1]):
            m = max(m, x[i, j])
            m = max(m, -x[i, j])
        out[i, 0] = m


def _keyed(k, x, out) -> list[str]:
    """The float locals whose reductions the rewrite carries in keys, by their key locals."""
    from tack.compiler import specialize

    args = (tack.array(x, device="cpu"), tack.array(out, device="cpu"))
    kir = specialize(k, args, tack.device("cpu"))
    got = keyed_minmax_reductions(kir)
    if got is kir:
        return []
    verify(got, final=True)  # well-typed final IR, every new local declared
    keys = [n for n in got.locals if ".key" in n]
    assert not any(".key" in n for n in kir.locals)  # the kernel's own IR is left as it was
    loops = [s for s in iter_stmts(got.body) if isinstance(s, For)]
    for key in keys:  # updated by an integer MIN/MAX inside a loop
        assert got.locals[key].is_int
        assert any(getattr(a, "name", None) == key and a.value.op in (Op.MIN, Op.MAX)
                   for s in loops for a in iter_stmts(s.body))
    return sorted(n.split(".key")[0].lstrip(".") for n in keys)


def test_which_loops_are_carried_in_keys():
    x, o = np.zeros((3, 9), np.float32), np.zeros((3, 9), np.float32)
    assert _keyed(row_max, x, o[:, 0]) == ["m"]
    assert _keyed(row_min_swapped, x, o[:, 0]) == ["m"]
    assert _keyed(softmax, x, o) == ["mx"]
    assert _keyed(read_elsewhere, x, o) == []
    assert _keyed(conditional, x, o) == ["m", "n"]
    assert _keyed(two_updates, x, o) == []
    xi = np.zeros((3, 9), np.int32)
    assert _keyed(row_max, xi, xi[:, 0]) == []  # integer max reductions vectorize as they are
