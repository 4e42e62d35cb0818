"""Fast-math kernels on the GPU flush f32 subnormals (PTX `.ftz`), as CUDA's `--use_fast_math`
does; every other kernel keeps them. Checked on the PTX text, no GPU needed."""
from __future__ import annotations

import numpy as np
import pytest
import tack
from tack.compiler import specialize
from tack.toolchain.nvptx import compile_ptx, find_libdevice


def _inv_norm(x, out):
    for i in range(x.shape[0]):
        out[i] = rsqrt(x[i] * x[i] + 1.0) + exp(x[i])  # noqa: F821 - kernel builtins


strict = tack.kernel(_inv_norm)
fast = tack.kernel(fastmath=True)(_inv_norm)


def _module(k):
    if find_libdevice() is None:
        pytest.skip("libdevice not found (pip install nvidia-nvvm, or set CUDA_HOME)")
    x = tack.array(np.ones(64, np.float32))
    return compile_ptx(specialize(k, [x, tack.zeros(64)]), "sm_90")


def test_fastmath_kernels_flush_f32_subnormals():
    m = _module(fast)
    assert "rsqrt.approx.ftz.f32" in m.ptx
    assert "denormal-fp-math-f32" in m.llvm_ir  # the attribute NVPTX reads
    assert '!"nvvm-reflect-ftz", i32 1' in m.llvm_ir  # libdevice's FTZ paths as well
    arith = [ln for ln in m.ptx.splitlines() if ln.strip().startswith(("add.", "mul.", "fma."))]
    assert arith and all(".ftz" in ln for ln in arith if ".f32" in ln)


def test_strict_kernels_keep_subnormals():
    m = _module(strict)
    assert "denormal-fp-math" not in m.llvm_ir
    assert '!"nvvm-reflect-ftz", i32 0' in m.llvm_ir
