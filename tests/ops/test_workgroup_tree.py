"""The workgroup tree of tack.ops' row statistics two ways: by shared memory alone
(lib.reductions.group_reduce, ten barriers) and with its last five levels by warp shuffles
(lib.warp_reductions.group_reduce_by_warps, two barriers), which CUDA and the simulator take.
Both must give the documented order's bits (slot i takes slot i + s for s = 128, 64, ..., 1),
checked against a NumPy emulation of that order for sums whose result depends on it, the NaN
rules of min/max, f64 and the f32 tree of half rows; `tack.check` finds neither racy."""
import ml_dtypes
import numpy as np
import pytest
import tack
from tack.lib.combine import add, larger, max_or_nan, min_or_nan
from tack.lib.reductions import group_reduce, group_reduce_f32
from tack.lib.warp_reductions import group_reduce_by_warps, group_reduce_by_warps_f32
from tack.ops import _wide

pytestmark = pytest.mark.engines(
    "sim", "cuda", reason="workgroup trees: the CPU engine refuses barriers and shuffles, "
    "and the Julia engine keeps the shared-memory tree (its shuffles go through shared memory)")

GROUPS = 3


@tack.kernel
def both_trees(x, a, b, combine, smem_tree, warp_tree):
    for t in range(x.shape[0]):
        v = x[t]
        a[t] = smem_tree(x, v, combine)
        b[t] = warp_tree(x, v, combine)


@tack.kernel
def both_trees_f32(x, a, b, combine):
    for t in range(x.shape[0]):
        v = tack.f32(x[t])
        a[t] = group_reduce_f32(x, v, combine)
        b[t] = group_reduce_by_warps_f32(x, v, combine)


def _tree(values, combine):
    """The documented order in NumPy: per workgroup, slot i takes slot i + s, s = 128 ... 1."""
    out = []
    for g in values.reshape(-1, 256):
        slots = list(g)
        s = 128
        while s:
            for i in range(s):
                slots[i] = combine(slots[i], slots[i + s])
            s //= 2
        out.append(slots[0])
    return np.repeat(np.array(out, dtype=values.dtype), 256)


def _np_min(a, b):
    return a if np.isnan(a) else b if np.isnan(b) else min(a, b)


def _np_max(a, b):
    return a if np.isnan(a) else b if np.isnan(b) else max(a, b)


def _values(dtype, rng, decades=6):
    """Magnitudes over 2 * decades decades, so a sum in another order rounds differently."""
    scale = 10.0 ** rng.integers(-decades, decades, 256 * GROUPS)
    return (rng.normal(size=256 * GROUPS) * scale).astype(dtype)


def _bits(a):
    return np.asarray(a).view({4: np.uint32, 8: np.uint64}[np.asarray(a).dtype.itemsize])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", ["sum", "max", "min with NaN", "max with NaN"])
def test_both_trees_give_the_documented_orders_bits(engine, dtype, name):
    rng = np.random.default_rng(7)
    x = _values(dtype, rng)
    combine, ref = {"sum": (add, np.add), "max": (larger, max),
                    "min with NaN": (min_or_nan, _np_min),
                    "max with NaN": (max_or_nan, _np_max)}[name]
    if "NaN" in name:
        x[[5, 300, 301]] = np.nan  # NaN in groups 0 and 1; group 2 has none
    want = _tree(x, ref)
    xa, a, b = tack.array(x), tack.zeros(x.size, dtype), tack.zeros(x.size, dtype)
    both_trees(xa, a, b, combine, group_reduce, group_reduce_by_warps)
    assert np.array_equal(_bits(a.numpy()), _bits(want))
    assert np.array_equal(_bits(b.numpy()), _bits(want))
    if name == "sum":  # the order shows: a pairwise order of other pairs gives other bits
        assert not np.array_equal(_bits(want), _bits(np.repeat(
            x.reshape(-1, 256).sum(axis=1, dtype=dtype), 256)))


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16])
def test_half_rows_take_the_f32_tree(engine, dtype):
    rng = np.random.default_rng(3)
    x = _values(np.float32, rng, decades=3).astype(dtype)  # f16 holds 65504
    want = _tree(x.astype(np.float32), np.add)
    xa, a, b = tack.array(x), tack.zeros(x.size, tack.f32), tack.zeros(x.size, tack.f32)
    both_trees_f32(xa, a, b, add)
    assert np.array_equal(_bits(a.numpy()), _bits(want))
    assert np.array_equal(_bits(b.numpy()), _bits(want))


@tack.kernel
def trees_in_a_loop(x, a, rounds, tree):
    """One tree's shared slots reused round after round (its last barrier's reason)."""
    for t in range(x.shape[0]):
        acc = x[t] - x[t]
        for r in range(rounds):
            acc = acc + tree(x, x[t] * (r + 1), add)
        a[t] = acc


def test_check_finds_neither_tree_racy(engine):
    x = tack.array(_values(np.float32, np.random.default_rng(1)))
    a, b = tack.zeros(x.size), tack.zeros(x.size)
    report = tack.check(both_trees, x, a, b, add, group_reduce, group_reduce_by_warps)
    assert report.verdict == "clean", report
    for tree in (group_reduce, group_reduce_by_warps):
        report = tack.check(trees_in_a_loop, x, a, 3, tree)
        assert report.verdict == "clean", (tree, report)
    trees_in_a_loop(x, a, 3, group_reduce)
    trees_in_a_loop(x, b, 3, group_reduce_by_warps)
    assert np.array_equal(_bits(a.numpy()), _bits(b.numpy()))


def test_the_ops_take_the_shuffle_tree_where_warps_exchange_registers(engine):
    """`_wide.funcs` gives the shuffle tree on the device's say-so (CUDA, the simulator), the
    shared-memory tree without a device (the Julia renderer's kernel files) and on Julia."""
    for half, smem, warps in ((False, group_reduce, group_reduce_by_warps),
                              (True, group_reduce_f32, group_reduce_by_warps_f32)):
        dtype = tack.bf16 if half else tack.f32
        assert _wide.funcs(dtype, "reduce", device=engine) == (warps,)
        assert _wide.funcs(dtype, "reduce") == (smem,)
        assert _wide.funcs(dtype, "reduce", device=tack.device("cpu", engine="julia")) == (smem,)
