"""tack.algorithms' warp steps on CUDA: the PTX of every kernel that takes them (without a GPU:
shuffles instead of most barriers, assembled by ptxas for sm_80 and sm_90 where it is
installed), and on a GPU the same bits as the simulator, which takes the same steps
(`Capabilities.register_warps`), for float sums, statistics and scans."""
import re
import subprocess

import numpy as np
import pytest
import tack
from tack import algorithms as A
from tack.algorithms import lookback as LB
from tack.algorithms import radix as RX
from tack.algorithms import reduce as R
from tack.algorithms import scans as S
from tack.algorithms import terms as T
from tack.algorithms.settings import Tuning
from tack.algorithms.tiles import TILE, block_inclusive, warp_inclusive
from tack.compiler import specialize
from tack.lib.reductions import group_reduce
from tack.lib.warp_reductions import warp_group_reduce
from tack.toolchain.nvptx import compile_ptx

from tests.algorithms.conftest import data
from tests.cuda import gpu
from tests.cuda.ptxas import PTXAS

N = 20011
CFG = Tuning()  # the look-back scan's default tuning
NAMES = ["reduce_groups", "minmax_groups", "term_groups", "tile_totals", "tile_scan",
         "scan_lookback", "radix_scatter"]


def _kernels(warps: bool) -> dict:
    """kernel name -> (kernel, arguments) with the warp steps or the shared-memory ones."""
    tree = warp_group_reduce if warps else group_reduce
    scan = warp_inclusive if warps else block_inclusive
    pairs = LB.warp_pair_scan if warps else LB.pair_scan
    x, g, tiles = tack.zeros(N), -(-N // 256), -(-N // TILE)
    lt = -(-N // (TILE * CFG.sub))
    u32, i32 = tack.zeros(N, tack.u32), tack.zeros(N, tack.i32)
    low = tack.zeros(1, tack.u32)
    return {
        "reduce_groups": (R.reduce_groups, x, tack.zeros(g), N, *R.GROUP_STEPS["sum"], tree),
        "minmax_groups": (R.minmax_groups, x, tack.zeros(g), tack.zeros(g), N, tree),
        "term_groups": (T.term_groups, x, x, tack.zeros(g), N, 0.0, T.TERMS["square"], tree),
        "tile_totals": (S.tile_totals, x, x, tack.zeros(tiles), N, tree),
        "tile_scan": (S.tile_scan, x, x, tack.zeros(tiles), N, 0, scan),
        "scan_lookback": (LB.scan_kernel("f32", CFG.sub, CFG.lean), x, x,
                          tack.zeros(LB.layout(lt, 32)[0], tack.u64), N, lt, 0, 32,
                          CFG.patience, 1, scan, pairs),
        "radix_scatter": (RX.radix_scatter, u32, low, i32, u32, i32, u32, low,
                          tack.zeros(2048, tack.i32), N, 0, 1, 1, 1, scan),
    }


def _ptx(kernel, args, arch: str) -> str:
    return compile_ptx(specialize(kernel, list(args), library_math=False), arch).ptx


@pytest.fixture
def on_cpu():
    tack.set_default_device("cpu")  # specialize only: nothing launches
    yield


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize("name", NAMES)
def test_warp_steps_shuffle_and_assemble(on_cpu, name, arch, tmp_path):
    """Each kernel's warp variant shuffles (shfl.sync over the full warp) and waits at fewer
    barriers than its shared-memory variant; ptxas accepts it."""
    kernel, *args = _kernels(True)[name]
    ptx = _ptx(kernel, args, arch)
    shared_kernel, *shared_args = _kernels(False)[name]
    shared = _ptx(shared_kernel, shared_args, arch)
    assert re.search(r"shfl\.sync\.(bfly|up|idx)\.b32", ptx)
    assert "shfl.sync" not in shared
    assert ptx.count("bar.sync") < shared.count("bar.sync"), (ptx.count("bar.sync"),
                                                               shared.count("bar.sync"))
    if PTXAS is None:
        pytest.skip("ptxas not found (pip install nvidia-cuda-nvcc, or put it on PATH)")
    src = tmp_path / "k.ptx"
    src.write_text(ptx)
    r = subprocess.run([PTXAS, f"-arch={arch}", str(src), "-o", str(tmp_path / "k.cubin")],
                       capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr


def _f32_results(device: str) -> dict:
    tack.set_default_device(device)
    x = data(N, np.float32)
    a = tack.array(x)
    out = {"sum": a.sum(), "min": a.min(), "max": a.max(), "mean": a.mean(),
           "dot": A.dot(a, a), "norm": A.norm(a), "var": A.var(a)}
    d = tack.zeros(N)
    out["scan total"] = A.inclusive_scan(a, d)
    out["scan"] = d.numpy()
    return {k: np.asarray(v, np.float64 if np.ndim(v) == 0 else np.float32) for k, v in
            out.items()}


def _on_a_gpu(test):
    """The marks of a test that needs a GPU (marker `cuda`, skipped without one)."""
    for mark in gpu.MARKS:
        test = mark(test)
    return test


@_on_a_gpu
@pytest.mark.parametrize("look_back", [False, True])
def test_float_results_have_the_simulators_bits(look_back):
    """CUDA and the simulator run the same warp steps, so their float sums, statistics and
    scans (each scan forced, since the simulator would take the two passes) are the same bits."""
    with A.tuning(scan="look_back" if look_back else "two_pass"):
        on_gpu = _f32_results("cuda")
        sim = _f32_results("sim")
    for k, v in on_gpu.items():
        # (a 0-d result has no byte view in NumPy 2.5: as a 1-element array)
        np.testing.assert_array_equal(np.atleast_1d(v).view(np.uint8),
                                      np.atleast_1d(sim[k]).view(np.uint8), k)
