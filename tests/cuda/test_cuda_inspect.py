"""`tack.inspect` on a real GPU: "resources" agrees with the engine's own occupancy numbers for
the tiled n-body of bench/gpu.py, "sass" is the kernel's machine code, and `outdir` writes every
CUDA stage (ptx, sass, resources.json)."""
import json
import re

import numpy as np
import pytest
import tack
from tack.toolchain import sass

from bench.gpu import nbody_tiled
from tests.cuda import gpu
from tests.kernels.corpus import saxpy

pytestmark = [*gpu.MARKS, pytest.mark.usefixtures("cuda_device")]
N = 1024


def nbody_args():
    rng = np.random.default_rng(0)
    pos = np.c_[rng.normal(size=(N, 3)), rng.uniform(0.5, 1, N)].astype(np.float32)
    return tack.array(pos), tack.zeros((N, 3)), N, np.float32(0.01)


def need_disassembler():
    try:
        sass.disassembler()
    except sass.MissingToolError as exc:
        pytest.skip(str(exc))


def test_resources_of_the_tiled_nbody_agree_with_the_engines_occupancy():
    args = nbody_args()
    v = gpu.loaded_variant(nbody_tiled, *args)
    res = json.loads(tack.inspect(nbody_tiled, *args, mode="resources"))
    assert res["kernel"] == "tack_nbody_tiled" and res["arch"] == v.engine.arch
    assert res["registers"] == v.registers
    assert res["max_registers"] == v.max_registers
    assert res["blocks_per_sm"] == v.blocks_per_sm > 0
    assert res["threads_per_sm"] == v.engine.threads_per_sm
    assert res["occupancy"] == pytest.approx(v.blocks_per_sm * 256 / v.engine.threads_per_sm)
    assert 0 < res["occupancy"] <= 1
    assert res["shared_bytes"] >= 1024 * 4  # the 1024-float tile
    assert res["local_bytes"] == 0  # no spills in this kernel
    assert res["max_threads_per_block"] >= 256
    assert res["limited_by"], res  # some resource's limit is the driver's answer
    assert min(x for x in res["limits"].values() if x is not None) == res["blocks_per_sm"]


def test_sass_is_the_kernels_machine_code():
    need_disassembler()
    args = nbody_args()
    text = tack.inspect(nbody_tiled, *args, mode="sass")
    assert "tack_nbody_tiled" in text
    assert re.search(r"\bFFMA\b", text) and re.search(r"\bBAR\.SYNC", text), text[:2000]
    assert re.search(r"\bLDS\b", text)  # the tile is read from shared memory


def test_outdir_writes_ptx_sass_and_resources(tmp_path):
    need_disassembler()
    x = tack.zeros(1000)
    paths = tack.inspect(saxpy, 2.0, x, x, tack.zeros(1000), outdir=tmp_path)
    assert {k: p.name for k, p in paths.items()} == {
        "ir": "saxpy.ir.txt", "source": "saxpy.ptx", "resources": "saxpy.resources.json",
        "sass": "saxpy.sass"}
    assert ".visible .entry tack_saxpy(" in paths["source"].read_text()
    assert "tack_saxpy" in paths["sass"].read_text()
    res = json.loads(paths["resources"].read_text())
    assert res["kernel"] == "tack_saxpy" and res["registers"] > 0 and res["shared_bytes"] == 0


def test_inspecting_leaves_the_kernel_runnable():
    x = tack.array(np.arange(1000, dtype=np.float32))
    out = tack.zeros(1000)
    tack.inspect(saxpy, 2.0, x, x, out, mode="resources")
    saxpy(2.0, x, x, out)
    np.testing.assert_allclose(out.numpy(), 3 * np.arange(1000, dtype=np.float32))


def test_a_one_block_kernel_gets_a_second_block_without_spills():
    """The matmul tile (ptxas: ~150 registers, one 256-lane block per SM) is loaded again at
    `.maxnreg 128` and kept only with two blocks per SM and no local memory (cuda_occupancy)."""
    from tack.ops import _args
    from tack.ops.matmul import _tiled

    a, b, c = tack.zeros((256, 256)), tack.zeros((256, 256)), tack.zeros((256, 256))
    args = (a, b, c) + _args.sizes(256 * 256 + 64 * 768, 1, 256, 256, 256)
    v = gpu.loaded_variant(_tiled, *args)
    res = json.loads(tack.inspect(_tiled, *args, mode="resources"))
    assert res["blocks_per_sm"] == v.blocks_per_sm
    assert v.max_registers == 128 and v.registers <= 128, res
    assert v.blocks_per_sm >= 2 and res["local_bytes"] == 0, res
