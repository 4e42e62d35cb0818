"""The workgroup kernels (the GPU paths), run in the model of a workgroup CPU backend
(tests/ops/model.py) against the same float64 references. The model interprets every lane in
Python, so the sizes are tiny: one row or tile each, yet every path's structure (per-lane
registers over one and several slots, the online rescaling, the long-row sweeps, attention's 32-key
shared tiles) runs; the matmul tile runs on the simulator."""
import importlib
import math

import numpy as np
import pytest
import tack
from tack import ops

from tests.ops import model, refs

softmax_mod = importlib.import_module("tack.ops.softmax")
norms_mod = importlib.import_module("tack.ops.norms")
_wide = importlib.import_module("tack.ops._wide")


@pytest.fixture
def wg(monkeypatch):
    with model.workgroups(monkeypatch):
        yield


def _softmax_with(kernel, x, want_log):
    xa, out = tack.array(x), tack.zeros(x.shape, tack.f32)
    start = softmax_mod.start_func(x.shape[1])
    funcs = (start, *_wide.funcs(tack.f32, "reduce")) if kernel is softmax_mod._online else \
        softmax_mod.cached_funcs(tack.f32, start)
    kernel(xa, out, x.shape[0], x.shape[1], want_log, *funcs)
    return out


@pytest.mark.parametrize("path", ["one step", "two steps", "online"])
def test_softmax_paths(wg, path):
    n = 3001 if path == "two steps" else 7  # 3001: lanes 0..119 take two steps of 8
    x = refs.rand((1, n), np.float32, scale=4.0)
    if path == "online":  # increasing values: the running sum is rescaled at every element
        x = np.sort(x, axis=1)
    k = softmax_mod._online if path == "online" else softmax_mod._cached(
        softmax_mod._per_lane(n))
    refs.close(_softmax_with(k, x, 0), refs.softmax(x, -1), np.float32)
    refs.close(_softmax_with(k, x, 1), refs.log_softmax(x, -1), np.float32, scale=4)


@pytest.mark.parametrize("long", [False, True], ids=["registers", "long"])
def test_norm_paths(wg, long):
    x = refs.rand((1, 6), np.float64, shift=2.0)
    w, b = refs.rand((6,), np.float64, 1), refs.rand((6,), np.float64, 2)
    args = [tack.array(a) for a in (x, w, b)]
    y, mean, rstd = tack.zeros((1, 6), tack.f64), tack.zeros(1, tack.f64), tack.zeros(1, tack.f64)
    per, start = softmax_mod._per_lane(6), softmax_mod.start_func(6)
    layer = norms_mod._layer_long if long else \
        norms_mod._cached(norms_mod._layer_cached_kernel, per)
    layer(*args, y, mean, rstd, 1, 6, 1e-5, start, *_wide.funcs(tack.f64, "reduce"))
    for got, want in zip((y, mean, rstd), refs.layer_norm(x, w, b, 1e-5)):
        refs.close(got, want.reshape(got.shape), np.float64)
    rms = norms_mod._rms_long if long else norms_mod._cached(norms_mod._rms_cached_kernel, per)
    rms(args[0], args[1], y, 1, 6, 1e-6, start, *_wide.funcs(tack.f64, "reduce", "wide"))
    refs.close(y, refs.rms_norm(x, w, 1e-6), np.float64)


def test_norm_wrappers_choose_workgroup_kernels(wg):
    x = refs.rand((2, 3), np.float32)
    y, mean, rstd = ops.layer_norm(x, return_stats=True)
    want = refs.layer_norm(x, np.ones(3), np.zeros(3), 1e-5)
    for got, exp in zip((y, mean, rstd), want):
        refs.close(got, exp, np.float32, scale=4)


@pytest.mark.parametrize("shape", [(3, 13, 5), (130, 20, 129), (2, 7, 9, 1025)], ids=str)
def test_matmul_tile(shape):
    """The 128 x 128 tile (8 x 8 results per lane, double-buffered 8-deep k slabs) with ragged
    edges, several tiles and slabs, and a batch: on the simulator, which runs the workgroup
    kernel as a GPU does (the model interprets each lane's 512 multiply-adds per slab slowly)."""
    tack.set_default_device("sim")
    *z, m, k, n = shape
    a = refs.rand((*z, m, k), np.float32, 1, 1.0)
    b = refs.rand((*z, k, n), np.float32, 2, 1.0)
    got = ops.batched_matmul(a, b) if z else ops.matmul(a, b)
    refs.close(got, refs.matmul(a, b), np.float32, scale=4)


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_attention_tiles(wg, causal):
    q, k, v = (refs.rand((1, 1, 33, 2), np.float64, s, 1.5) for s in (1, 2, 3))
    want = refs.attention(q, k, v, 1 / math.sqrt(2), causal)
    refs.close(ops.attention(q, k, v, causal=causal), want, np.float64, scale=8)



@pytest.fixture
def sim():
    """The simulator engine: a workgroup engine on the CPU (docs/design/008-simulator.md)."""
    dev = tack.set_default_device("cpu", engine="sim")
    return dev


@pytest.mark.parametrize("path", ["one step", "two steps", "online"])
def test_softmax_paths_plus_inf(wg, path):
    """NNlib's result for a row holding +inf on each workgroup path: +inf first in one lane,
    after a finite element in another (n = 3001: lanes 0..119 take two steps of 8)."""
    n = 7 if path == "one step" else 3001
    x = refs.rand((1, n), np.float32, scale=4.0)
    x[0, [5, n - 1]] = np.inf
    k = softmax_mod._online if path == "online" else softmax_mod._cached(
        softmax_mod._per_lane(n))
    refs.close(_softmax_with(k, x, 0), refs.softmax_with_inf(x, -1), np.float32)
    refs.close(_softmax_with(k, x, 1), refs.softmax_with_inf(x, -1, log=True), np.float32)


@pytest.mark.parametrize("shape", [(3, 7), (2, 300), (1, 9001)], ids=str)
def test_softmax_plus_inf_on_the_simulator(sim, shape):
    """ops.softmax/log_softmax with +inf rows on the simulator (one-read and online paths)."""
    x = refs.rand(shape, np.float32, scale=4.0)
    x[0, 1] = np.inf
    x[-1, [0, shape[1] - 1]] = np.inf
    refs.close(ops.softmax(x), refs.softmax_with_inf(x, -1), np.float32)
    refs.close(ops.log_softmax(x), refs.softmax_with_inf(x, -1, log=True), np.float32, scale=4)


def test_masked_long_rows_on_the_simulator(sim):
    """Rows past 8192 with -inf elements on the online kernel (the workgroup engines'), as
    NumPy: masked elements weigh 0, never NaN."""
    x = refs.rand((2, 9001), np.float32, scale=4.0)
    x[0, :300] = -np.inf
    x[1, ::3] = -np.inf
    got = ops.softmax(x)
    assert not np.isnan(got.numpy()).any()
    refs.close(got, refs.softmax(x, -1), np.float32)
    refs.close(ops.log_softmax(x), refs.log_softmax(x, -1), np.float32, scale=4)


@pytest.mark.parametrize("n", [1, 5, 1037])
def test_elementwise_spread_path(sim, n):
    """gelu and silu on an engine with workgroups: a step of 8 consecutive elements per
    iteration, the last step guarded (n not a multiple of 8)."""
    x = refs.rand((n,), np.float32, scale=4.0)
    refs.close(ops.gelu(x), refs.gelu_tanh(x), np.float32)
    refs.close(ops.gelu(x, approximate="none"), refs.gelu_erf(x), np.float32)
    refs.close(ops.silu(x), refs.silu(x), np.float32)
    refs.close(ops.relu(x), refs.relu(x), np.float32)
    z = np.array([-0.0, 0.0, np.nan], np.float32)  # NNlib's relu: -0.0 and NaN unchanged
    assert [str(v) for v in ops.relu(z).numpy()] == ["-0.0", "0.0", "nan"]
    refs.close(ops.add(x, x, alpha=0.5), refs.add(x, x, 0.5), np.float32)
