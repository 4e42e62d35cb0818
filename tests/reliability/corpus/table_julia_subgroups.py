"""The Julia engine's two texts of a warp kernel: the `@localmem` emulation, and the KI form that
calls KernelAbstractions' sub-group `shfl_down` (render/julia/subgroups.py,
docs/design/003-julia-rendering.md "Warps and KI sub-groups").

Each row is a backend this machine cannot run, answered by a stand-in juliacall: the KI form must
be compiled only where KA is 0.10 or later, has the sub-group functions, and the backend's
sub-groups are linear, 32 or 64 wide and shuffle the kernel's type; everywhere else the emulation.
A KI text on KA 0.9 calls a function that does not exist; on a 16-lane sub-group or one whose
lanes are not consecutive it reads the wrong lane, silently."""
from __future__ import annotations

from .case import Case

# A juliacall whose Julia answers as KA {version} with the sub-groups {answer} would (the
# engine's session is replaced, so each row runs in its own process).
_FAKE = '''
import sys, types
import numpy as np
from tack.compiler import specialize
from tack.runtime.julia import engine as rj

class FakeJulia:
    def seval(self, code):
        if code == "TackRuntime.tk_ka_version()":
            return "{version}"
        if code == "TackRuntime.tk_subgroups":
            return lambda backend: "{answer}"
        if code.startswith(("Base.find_package", "Base.pkgversion")) or \\
                code.endswith(".functional()"):
            return True
        if code == "KernelAbstractions.supports_float64":
            return lambda backend: True
        return lambda *args: None

sys.modules["juliacall"] = types.SimpleNamespace(newmodule=lambda name: FakeJulia(),
                                                 JuliaError=RuntimeError)
rj._Session._current = rj._Session._failure = None

@tack.kernel
def down(x, out, n):
    for i in range(n):
        out[i] = tack.shfl_down(x[i], 1)

kir = specialize(down, [tack.zeros(256, tack.{dtype}, device="sim"),
                        tack.zeros(256, tack.{dtype}, device="sim"), 256], library_math=False)
'''


def _row(name: str, device: str, version: str, answer: str, ki: bool, dtype: str = "f32",
         note: str = "") -> Case:
    setup = _FAKE.replace("{version}", version).replace("{answer}", answer).replace(
        "{dtype}", dtype)
    want = "the KI form" if ki else "the emulation"
    return Case(f"julia-subgroups/{name}", f'k = rj.JuliaEngine("{device}").compile(kir)', None,
                setup, check=f"assert ('tk_shfl_down(' in k.source) is {ki}, '{want} expected'",
                isolate=True, quick=name == "cuda-ka010", note=note)


CASES = [
    _row("cuda-ka09", "cuda", "0.9.41", "32 Float32", False,
         note="KA 0.9 has no KernelIntrinsics: a KI text would call an undefined function"),
    _row("cuda-ka010", "cuda", "0.10.0", "32 Float32 Int32", True,
         note="KA 0.10 with CUDA's 32-lane sub-groups: the sub-group shuffle, no exchange"),
    _row("hip-wave64", "hip", "0.10.2", "64 Float32", True,
         note="a 64-lane wavefront holds two Tack warps: the segment select keeps them apart"),
    _row("hip-16", "hip", "0.10.0", "16 Float32", False,
         note="a sub-group narrower than Tack's 32-lane warp cannot hold one"),
    _row("metal-not-linear", "metal", "0.10.0", "32 Float32", False,
         note="which lanes form a sub-group is not documented as consecutive local ids"),
    _row("pocl-not-linear", "cpu", "0.10.0", "32 Float32", False,
         note="OpenCL (PoCL) leaves the work-item to sub-group mapping to the implementation"),
    _row("ka-without-shfl", "cuda", "0.10.0", "", False,
         note="a KA 0.10 without the sub-group functions"),
    _row("type-not-shuffled", "cuda", "0.10.0", "32 Float32", False, dtype="f64",
         note="a shuffle of a type the backend's shfl_down_types does not list"),
]
