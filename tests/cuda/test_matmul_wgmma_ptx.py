"""The Hopper matmul kernels (ops/matmul_wgmma.py) in PTX, checked without a GPU (NVPTX is part
of llvmlite): for sm_90a, per slab each warpgroup's four `wgmma.mma_async` of its shape, one
commit, a `wgmma.wait_group 1` in the loop and a `0` after it; the slabs as 16-byte
`cp.async.cg` (four chunks of A and four of Bᵀ a lane, in the two-slab prologue and in the
loop), no other global loads but the copies' own fallback for a misaligned address; the ring's
128 KiB as dynamic shared memory (render/llvm/ptx_shared.py), the only shared array; and, where
`ptxas` is installed, the PTX assembles for sm_90a without spills in at most 168 registers (the
accumulator alone takes 64 a lane; one 256-lane block a SM, as its shared memory allows)."""
import functools
import re
import subprocess

import numpy as np
import pytest
import tack
from tack.compiler import specialize
from tack.ops import matmul_wgmma
from tack.render.llvm import ptx_shared
from tack.toolchain.nvptx import compile_ptx

from tests.cuda.ptxas import PTXAS

CASES = {"f16": (tack.f16, "m64n128k16.f32.f16.f16"),
         "bf16": (tack.bf16, "m64n128k16.f32.bf16.bf16"),
         "tf32": (tack.f32, "m64n128k8.f32.tf32.tf32")}


@pytest.fixture(autouse=True)
def cpu():
    tack.set_default_device("cpu")  # specialization only: nothing runs
    yield


@functools.cache
def _kir(name: str, width=int):
    x = tack.zeros(64, CASES[name][0])
    kern, args = matmul_wgmma.launch(x, x, x, 1, 4096, 4096, 4096,
                                     lambda *v: [width(i) for i in v])
    return specialize(kern, list(args), library_math=False)


@functools.cache
def _ptx(name: str, width=int) -> str:
    return compile_ptx(_kir(name, width), "sm_90").ptx


@pytest.mark.parametrize("width", [int, np.int64], ids=["i32", "i64"])  # ops._args.sizes
@pytest.mark.parametrize("name", CASES)
def test_each_slab_is_four_wgmmas_in_one_group(name, width):
    ptx = _ptx(name, width)
    assert re.search(r"^\.target sm_90a$", ptx, re.MULTILINE)
    shape = re.escape(CASES[name][1])
    assert len(re.findall(rf"wgmma\.mma_async\.sync\.aligned\.{shape} ", ptx)) == 4
    assert len(re.findall(r"wgmma\.mma_async", ptx)) == 4
    assert len(re.findall(r"wgmma\.commit_group\.sync\.aligned;", ptx)) == 1
    waits = re.findall(r"wgmma\.wait_group\.sync\.aligned (\d+);", ptx)
    assert sorted(waits) == ["0", "1"]
    copies = re.findall(r"cp\.async\.cg\.shared\.global \[%rd\d+\], \[%rd\d+\], 16;", ptx)
    assert len(copies) == 3 * 8  # two prologue slabs and the loop's, 4 + 4 chunks each
    per = 4 if name == "tf32" else 8  # the fallback of a misaligned copy, element by element
    assert len(re.findall(r"ld\.global", ptx)) == 24 * per
    assert re.findall(r"cp\.async\.wait_group (\d+);", ptx) == ["1", "0"]
    # every barrier of a wgmma kernel fences the generic stores (the lanes' zeros) for the MMAs
    assert ptx.count("fence.proxy.async.shared::cta;") == ptx.count("bar.sync") == 3


@pytest.mark.parametrize("name", CASES)
def test_the_ring_is_dynamic_shared_memory(name):
    ptx = _ptx(name)
    assert ".extern .shared .align 1024 .b8 tack_dynamic_shared[];" in ptx
    assert not re.search(r"^\s*\.shared ", ptx, re.MULTILINE)  # no static array beside it
    assert ptx_shared.dynamic_bytes(_kir(name)) == 128 * 1024


@pytest.mark.skipif(PTXAS is None, reason="ptxas is not installed")
@pytest.mark.parametrize("width", [int, np.int64], ids=["i32", "i64"])
@pytest.mark.parametrize("name", CASES)
def test_ptxas_assembles_it_without_spills(tmp_path, name, width):
    src = tmp_path / "k.ptx"
    src.write_text(_ptx(name, width))
    run = subprocess.run([PTXAS, "-arch=sm_90a", "-v", str(src), "-o", str(tmp_path / "k.cubin")],
                         check=False, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    info = run.stderr
    assert int(re.search(r"Used (\d+) registers", info).group(1)) <= 168, info
    assert "0 bytes spill stores, 0 bytes spill loads" in info, info
    assert "bytes smem" not in info, info  # no static shared memory


@pytest.mark.skipif(PTXAS is None, reason="ptxas is not installed")
@pytest.mark.parametrize("tile", [(256, 4, 2), (128, 3, 1)], ids=str)
@pytest.mark.parametrize("name", ["bf16", "tf32"])
def test_ptxas_assembles_the_other_tiles(tmp_path, name, tile):
    """The tiles bench/ops.py compares (matmul_wgmma.tile_kernel(width, stages, ahead)): the
    256-wide one (128 accumulator registers a lane, 192 KiB of stages) within the 255
    registers a lane of a 256-lane block may hold, without spills; the three-stage one (96 KiB)
    in at most 128, so that two blocks share an SM."""
    width, stages, ahead = tile
    x = tack.zeros(64, CASES[name][0])
    kern = matmul_wgmma.tile_kernel(name == "tf32", stages, ahead, width)
    kir = specialize(kern, [x, x, x, 1, 4096, 4096, 4096], library_math=False)
    assert ptx_shared.dynamic_bytes(kir) == stages * (128 + width) * 128
    src = tmp_path / "k.ptx"
    src.write_text(compile_ptx(kir, "sm_90").ptx)
    run = subprocess.run([PTXAS, "-arch=sm_90a", "-v", str(src), "-o", str(tmp_path / "k.cubin")],
                         check=False, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    regs = int(re.search(r"Used (\d+) registers", run.stderr).group(1))
    assert regs <= (255 if width == 256 else 128), run.stderr
    assert "0 bytes spill stores, 0 bytes spill loads" in run.stderr, run.stderr



def _tma_ptx(name: str) -> tuple:
    dtype = CASES[name][0]
    a, bt, c = tack.zeros((256, 512), dtype), tack.zeros((384, 512), dtype), tack.zeros(64, dtype)
    kir = specialize(matmul_wgmma.tma_tile_kernel(name == "tf32"), [a, bt, c, 1, 256, 512, 384],
                     library_math=False)
    return kir, compile_ptx(kir, "sm_90").ptx


@pytest.mark.parametrize("name", CASES)
def test_the_tma_tile_copies_boxes_through_two_maps(tmp_path, name):
    """The tile whose slabs come by tensor copies (matmul_wgmma.tma_tile_kernel): A's and Bᵀ's
    boxes by `cp.async.bulk.tensor.2d` through the two maps passed by value, lane 0's
    `expect_tx`, full and empty barriers waited on by `try_wait.parity`; no lane copies or
    loads global memory itself, and the ring is dynamic shared memory. Where `ptxas` is
    installed, it assembles for sm_90a without spills in at most 168 registers."""
    kir, ptx = _tma_ptx(name)
    assert re.search(r"^\.target sm_90a$", ptx, re.MULTILINE)
    maps = re.findall(r"\.param \.align 64 \.b8 (\w+)\[128\]", ptx)
    assert len(maps) == 2
    tensor = re.findall(r"mov\.b64 tk_map, (\w+); cvta\.param\.u64 tk_map, tk_map; "
                        r"cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global\.mbarrier::"
                        r"complete_tx::bytes", ptx)
    assert sorted(set(tensor)) == sorted(maps) and len(tensor) % 2 == 0
    assert "mbarrier.arrive.expect_tx.shared::cta.b64" in ptx
    assert "mbarrier.try_wait.parity.shared::cta.b64" in ptx
    assert "mbarrier.arrive.shared.b64" in ptx
    assert "cp.async.cg" not in ptx and "ld.global" not in ptx
    # the ring, then the two barrier arrays, each at a 1024-byte offset (render/llvm/ptx_shared.py)
    assert ptx_shared.dynamic_bytes(kir) == 128 * 1024 + 2 * 1024
    if PTXAS is None:
        pytest.skip("ptxas is not installed")
    src = tmp_path / "k.ptx"
    src.write_text(ptx)
    run = subprocess.run([PTXAS, "-arch=sm_90a", "-v", str(src), "-o", str(tmp_path / "k.cubin")],
                         check=False, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert int(re.search(r"Used (\d+) registers", run.stderr).group(1)) <= 168, run.stderr
    assert "0 bytes spill stores, 0 bytes spill loads" in run.stderr, run.stderr
