"""Golden files of the native renderers, so that a change to the LLVM IR or PTX Tack emits shows in
review: tests/render/golden/<case>.ll is the CPU engine's LLVM IR (its renderer's text, Ctrl-C
polls included, before LLVM optimizes it) and <case>.ptx the CUDA engine's PTX, for a few
kernels of the shared corpus (tests/kernels/corpus.py) at n = 7.

Both are host-independent: the .ll for the fixed triple x86_64-unknown-linux-gnu (the renderer
names no CPU; `tack.inspect(k, ..., mode="llvm")` shows the host's triple), the .ptx for sm_90
through llvmlite's NVPTX back end, no GPU needed. The PTX also depends on the LLVM that llvmlite
bundles, which its first line records: under another LLVM the comparison is skipped, saying so.

`pytest tests/render/test_golden.py --update-golden` rewrites them; review `git diff
tests/render/golden` before committing (tests/julia/test_golden.py does the same for the Julia
renderer's julia/kernels/*.jl).
"""
from pathlib import Path

import numpy as np
import pytest
import tack
from llvmlite import binding as llvm
from tack.compiler import specialize
from tack.render.llvm.polls import PollingRenderer
from tack.toolchain.nvptx import compile_ptx

from tests.kernels.corpus import CASES, WORKGROUP_CASES

GOLDEN = Path(__file__).parent / "golden"
N = 7
TRIPLE = "x86_64-unknown-linux-gnu"
ARCH = "sm_90"
# elementwise f32 (a multiply-add), Python's integer // and % and wrap-around, selects, a launch
# range with start and step, global atomics; and, in PTX only, a workgroup kernel (shared
# memory, barriers): one of each thing the renderers spell differently, none calling libdevice
LL_CASES = ("saxpy", "int_divmod", "wrap_u8", "chained_select", "stepped_launch", "histogram")
PTX_CASES = LL_CASES + ("block_reduce",)
BY_NAME = {c.name: c for c in CASES + WORKGROUP_CASES}


def _llvm() -> str:
    return "LLVM {}.{}.{}".format(*llvm.llvm_version_info)


def _specialized(name: str, device):
    case = BY_NAME[name]
    host = case.make(np.random.default_rng(0), N)
    args = [tack.array(a) if isinstance(a, np.ndarray) else a for a in host]
    return specialize(case.kernel, args, device)


def cpu_llvm_ir(name: str) -> str:
    renderer = PollingRenderer()
    renderer.triple = TRIPLE
    return renderer.render(_specialized(name, tack.device("cpu")))


def ptx(name: str) -> str:
    module = compile_ptx(_specialized(name, tack.device("cuda")), ARCH)
    assert not module.libdevice, f"{name} calls libdevice: its PTX would depend on the CUDA install"
    return f"// {ARCH}, {_llvm()} (tests/render/test_golden.py)\n{module.ptx}"


def _compare(path: Path, text: str, request) -> None:
    if request.config.getoption("--update-golden"):
        path.write_text(text)
    assert path.is_file(), f"{path} is missing: run pytest {__file__} --update-golden"
    assert path.read_text() == text, f"{path} differs from the renderer: see --update-golden"


@pytest.mark.parametrize("name", LL_CASES)
def test_cpu_llvm_ir_matches_the_golden_file(name, request):
    _compare(GOLDEN / f"{name}.ll", cpu_llvm_ir(name), request)


@pytest.mark.parametrize("name", PTX_CASES)
def test_ptx_matches_the_golden_file(name, request):
    path = GOLDEN / f"{name}.ptx"
    if path.is_file() and not request.config.getoption("--update-golden"):
        made_by = path.read_text().split("\n", 1)[0]
        if _llvm() not in made_by:
            pytest.skip(f"{path.name} was made by {made_by.removeprefix('// ')}; llvmlite here "
                        f"has {_llvm()}, whose PTX may differ (compare with --update-golden)")
    _compare(path, ptx(name), request)


def test_golden_files_are_the_listed_cases():
    want = {f"{n}.ll" for n in LL_CASES} | {f"{n}.ptx" for n in PTX_CASES}
    assert {p.name for p in GOLDEN.iterdir()} == want
    for name in LL_CASES:
        text = (GOLDEN / f"{name}.ll").read_text()
        assert f'target triple = "{TRIPLE}"' in text and "target-cpu" not in text
    for name in PTX_CASES:
        assert f".target {ARCH}\n" in (GOLDEN / f"{name}.ptx").read_text()
