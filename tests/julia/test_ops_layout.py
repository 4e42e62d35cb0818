"""The NumPy ↔ Julia layout mapping of docs/julia.md ("NumPy and Julia layouts"), both
directions, on the Julia 1.5.3 tier: NumPy buffers read by Julia as arrays of the reversed
shape, run through the bridges of julia/kernels/<op>.jl, give what tack.ops gives in Python
on the native CPU engine; and arrays made in Julia, read by NumPy the same way, too."""
import subprocess

import numpy as np
import pytest
import tack
from tack import ops

from tests.engines import julia153
from tests.julia.golden import ROOT
from tests.julia.julia153 import SKIP_REASON

# Julia reads the NumPy buffers as the reversed shapes, runs the bridges, writes its results;
# then makes its own inputs (column-major) and writes them beside its results.
SCRIPT = r"""
include(joinpath("{root}", "julia", "test", "standin", "load.jl"))
using KernelAbstractions, Random
for f in ("softmax", "log_softmax", "layer_norm", "matmul", "attention")
    include(joinpath("{root}", "julia", "kernels", f * ".jl"))
end
dir = "{dir}"
get(name, dims...) = read!(joinpath(dir, name * ".bin"), Array{{Float32}}(undef, dims...))
put(name, a) = write(joinpath(dir, name * ".out"), a)
x = get("x", 37, 5)                       # NumPy (5, 37)
put("softmax_last", tack_softmax!(similar(x), x; dims = 1))
put("softmax_first", tack_softmax!(similar(x), x; dims = 2))
put("layer_norm", tack_layer_norm!(similar(x), x))
a, b = get("a", 19, 7), get("b", 11, 19)  # NumPy a (7, 19), b (19, 11)
put("matmul", tack_matmul!(zeros(Float32, 11, 7), b, a))  # a @ b is B * A here
q = get("q", 16, 9, 2, 3)                 # NumPy (3, 2, 9, 16)
put("attention", tack_attention!(similar(q), q, q, q; causal = true))
xj = randn(MersenneTwister(1), Float32, 37, 5)
put("xj", xj)
put("log_softmax_j", tack_log_softmax!(similar(xj), xj; dims = 1))
aj, bj = randn(MersenneTwister(2), Float32, 6, 4), randn(MersenneTwister(3), Float32, 4, 9)
put("aj", aj); put("bj", bj); put("matmul_j", tack_matmul!(zeros(Float32, 6, 9), aj, bj))
println("TACK_LAYOUT_DONE")
"""


def _out(tmp_path, name, shape):
    return np.fromfile(tmp_path / f"{name}.out", np.float32).reshape(shape)


def _close(got, want):
    np.testing.assert_allclose(got, np.asarray(want), rtol=2e-5, atol=2e-6)


@pytest.mark.julia
def test_numpy_and_julia_layouts_both_ways(tmp_path):
    launcher = julia153()
    if launcher is None:
        pytest.skip(SKIP_REASON)
    tack.set_default_device("cpu")
    rng = np.random.default_rng(0)
    ins = {"x": rng.normal(size=(5, 37)), "a": rng.normal(size=(7, 19)),
           "b": rng.normal(size=(19, 11)), "q": rng.normal(size=(3, 2, 9, 16))}
    ins = {k: v.astype(np.float32) for k, v in ins.items()}
    for k, v in ins.items():
        v.tofile(tmp_path / f"{k}.bin")
    script = tmp_path / "layout.jl"
    script.write_text(SCRIPT.format(root=ROOT, dir=tmp_path))
    r = subprocess.run([launcher, "--startup-file=no", str(script)], capture_output=True,
                       text=True, timeout=1200, check=False)
    assert r.returncode == 0 and "TACK_LAYOUT_DONE" in r.stdout, r.stdout[-3000:] + r.stderr[-3000:]
    x = ins["x"]
    # NumPy → Julia: the last axis is Julia's dims = 1, the first dims = 2
    _close(_out(tmp_path, "softmax_last", x.shape), ops.softmax(x).numpy())
    _close(_out(tmp_path, "softmax_first", x.shape), ops.softmax(x, axis=0).numpy())
    _close(_out(tmp_path, "layer_norm", x.shape), ops.layer_norm(x).numpy())
    _close(_out(tmp_path, "matmul", (7, 11)), ops.matmul(ins["a"], ins["b"]).numpy())
    q = ins["q"]
    _close(_out(tmp_path, "attention", q.shape), ops.attention(q, q, q, causal=True).numpy())
    # Julia → NumPy: a Julia (37, 5) array is NumPy's (5, 37); Julia's A * B is NumPy's b @ a
    xj = np.fromfile(tmp_path / "xj.out", np.float32).reshape(5, 37)
    _close(_out(tmp_path, "log_softmax_j", (5, 37)), ops.log_softmax(xj).numpy())
    aj = np.fromfile(tmp_path / "aj.out", np.float32).reshape(4, 6)
    bj = np.fromfile(tmp_path / "bj.out", np.float32).reshape(9, 4)
    _close(_out(tmp_path, "matmul_j", (9, 6)), ops.matmul(bj, aj).numpy())
