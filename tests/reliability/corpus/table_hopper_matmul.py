"""`tack.ops.matmul` on the Hopper path (ops/matmul_wgmma.py; docs/ops.md, "Tensor cores"): rows
for each way it can go wrong — the wrong kernel for a device (the simulator asked for sm_90
or not), a result off the documented order or outside its bound, an edge past a tile, a slab
or a 16-byte chunk read as data, an output that overlaps its inputs, a ring that copies further
ahead than its stages hold, a bad simulator option — and for the dynamic shared memory that
the kernel's 128 KiB ring needs on CUDA (render/llvm/ptx_shared.py)."""
from __future__ import annotations

from .case import Case
from .table_tensor_matmul import _ORDER, _SETUP

_HOPPER = _SETUP.format(dev="sim") + "tack.set_default_device('sim', sm=90)\n"

_SPY = ("import tack.ops.matmul_wgmma as mw; seen = []; k0 = mw.KERNELS['half']\n"
        "mw.KERNELS['half'] = lambda *x: seen.append(1) or k0(*x)\n")

_DYNAMIC = '''
from tack.compiler import specialize
from tack.ops import matmul_wgmma
from tack.render.llvm import ptx_shared
from tack.toolchain.nvptx import compile_ptx
with tack.device("cpu"):
    x = tack.zeros(64, tack.bf16)
    kern, args = matmul_wgmma.launch(x, x, x, 1, 300, 200, 100)
    kir = specialize(kern, list(args), library_math=False)
ptx = compile_ptx(kir, "sm_90").ptx
'''


def _cases() -> list[Case]:
    return [
        Case("hopper-matmul/sim-sm90-takes-the-wgmma-kernels",
             _SPY + "a, b = inputs(3, 4, 5, np.float16); got = ops.matmul(a, b)", None, _HOPPER,
             check="mw.KERNELS['half'] = k0; assert seen == [1]; within(got.numpy(), a, b, "
                   "'float16')", quick=True,
             note="tack.device('sim', sm=90) runs the Hopper library kernels, as an H100 does"),
        Case("hopper-matmul/sim-default-keeps-the-mma-kernels",
             _SPY + "a, b = inputs(3, 4, 5, np.float16)\n"
             "with tack.device('sim'):\n    got = ops.matmul(a, b)", None, _HOPPER,
             check="mw.KERNELS['half'] = k0; assert seen == []; within(got.numpy(), a, b, "
                   "'float16')", quick=True,
             note="the default simulator takes the sm_80 warp-MMA kernels"),
        Case("hopper-matmul/edges-are-zeros",
             "a, b = inputs(37, 53, 41, ml_dtypes.bfloat16); got = ops.matmul(a, b)", None,
             _HOPPER, check=_ORDER,
             note="primes: every tile overhangs, k is no multiple of a chunk (A padded); bit "
                  "for bit the documented order"),
        Case("hopper-matmul/ring-turns-and-batches",
             "a, b = inputs(9, 300, 5, np.float16, z=2); got = ops.batched_matmul(a, b)", None,
             _HOPPER, check="within(got.numpy(), a, b, 'float16')",
             note="five slabs through the four stages, two matrices"),
        Case("hopper-matmul/tf32-documented-order",
             "a, b = inputs(5, 70, 3, np.float32); got = ops.matmul(a, b, precision='tf32')\n"
             "bits = lambda x: ((x.view(np.uint32).astype(np.uint64) + 0x1000) & 0xFFFFE000)"
             ".astype(np.uint32).view(np.float32)\n"
             "a, b = bits(a), bits(b)", None, _HOPPER, check=_ORDER,
             note="f32 operands rounded to TF32 in the copies (wgmma truncates: only zeros "
                  "dropped), three slabs of 32"),
        Case("hopper-matmul/out-overlapping-an-input",
             "a, b = inputs(9, 9, 9, np.float16)\n"
             "t = tack.array(a); got = ops.matmul(t, b, out=t)", None, _HOPPER,
             check="assert got is t; within(t.numpy(), a, b, 'float16')",
             note="each element of C reads a row of A: computed apart, then delivered"),
        Case("hopper-matmul/bad-simulator-option", "tack.device('sim', sm=100)",
             "tack.TackValueError", "", mentions=("sm", "80", "90"), quick=True,
             note="the simulator models the library kernels of sm_80 and sm_90 only"),
        Case("hopper-matmul/ring-too-far-ahead",
             "from tack.ops import matmul_wgmma; matmul_wgmma.tile_kernel(False, 4, 4)",
             "tack.TackValueError", "", mentions=("ahead", "4 stages"), quick=True,
             note="copies as many slabs ahead as the ring has stages overwrite the slab in use"),
        Case("hopper-matmul/dynamic-shared-past-48k", "pass", None, _DYNAMIC,
             check=("import re\n"
                    "assert ptx_shared.dynamic_bytes(kir) == 131072\n"
                    "assert '.extern .shared .align 1024 .b8 tack_dynamic_shared[];' in ptx\n"
                    "assert not re.search(r'^\\s*\\.shared ', ptx, re.M)"),
             note="128 KiB of stages: no static array (CUDA caps those at 48 KiB), one "
                  "extern array the launch sizes"),
    ]


CASES = _cases()
