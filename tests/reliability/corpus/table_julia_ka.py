"""The Julia engine against KernelAbstractions 0.10 and its backends: what a kernel in half
precision meets there (docs/julia.md, "Half precision" and "KernelAbstractions 0.10").

Each row is a class of failure that would show only on a backend this machine cannot run: a half
kernel sent to a backend without Float16 (or bfloat16) support, which KA cannot be asked about
(it has `supports_float64`, no `supports_float16`), so the engine probes and must refuse before
the kernel compiles; a half value given to printf-`@print` at a width printf has no specifier
for; a tack.ops file without the Float16 kernels a Julia caller's half arrays need, or passing
their Float32 `eps` as Float16."""
from __future__ import annotations

from .case import Case

# A juliacall whose Julia answers the engine's questions as a oneAPI device whose half probe
# fails would (the engine's session is replaced, so each row runs in its own process).
_FAKE = '''
import sys, types
from tack.compiler import specialize
from tack.runtime.julia import engine as rj

class FakeJulia:
    def seval(self, code):
        if code.startswith("b -> TackRuntime.tk_half_probe(b, "):
            return lambda backend: "InvalidIRError: unsupported use of half"
        if code.startswith(("Base.find_package", "Base.pkgversion")) or \\
                code.endswith(".functional()"):
            return True
        if code == "KernelAbstractions.supports_float64":
            return lambda backend: True
        if code.startswith("# Tack kernel"):
            raise AssertionError("a refused kernel was sent to Julia")
        return lambda *args: None

sys.modules["juliacall"] = types.SimpleNamespace(newmodule=lambda name: FakeJulia(),
                                                 JuliaError=RuntimeError)
rj._Session._current = rj._Session._failure = None

@tack.kernel
def scale(x, out):
    for i in range(x.shape[0]):
        out[i] = x[i] * 2.0

kir = specialize(scale, [tack.zeros(4, tack.{dtype}), tack.zeros(4, tack.{dtype})])
'''

_PRINT = '''
@tack.kernel
def k(a, n):
    for i in range(n):
        print("v", a[i])

a = tack.zeros(3, tack.{dtype})
line = next(ln for ln in tack.inspect(k, a, 3, engine="julia").splitlines() if "@print(" in ln)
'''


def _probe(dtype: str, jl: str) -> Case:
    return Case(f"julia-ka/half-probe-{dtype}", 'rj.JuliaEngine("level_zero").compile(kir)',
                "tack.UnsupportedSyntaxError", _FAKE.replace("{dtype}", dtype),
                mentions=("scale", f"tack.{dtype}", "level_zero", jl, "InvalidIRError"),
                isolate=True, quick=dtype == "f16",
                note="a half kernel reached a backend without half support (KA has no "
                     "supports_float16) and failed in its compiler instead of being refused")


def _print(dtype: str, want: str) -> Case:
    return Case(f"julia-ka/print-{dtype}", "line", None, _PRINT.replace("{dtype}", dtype),
                check=f"assert {want!r} in line and 'Float16(' not in line, line",
                note="a half value given to KA 0.10's printf @print, which has no half specifier")


_OPS = '''
from tack.julia import render_file
text = render_file("rms_norm")
'''

CASES = [
    _probe("f16", "Float16"),
    _probe("bf16", "TkBFloat16"),
    _print("f16", "Float32(a["),
    _print("bf16", "tk_f32(a["),
    Case("julia-ka/ops-float16-kernels", "text", None, _OPS,
         check="assert '(:rows, Float16, 0) =>' in text and '(:long, Float16, 0) =>' in text\n"
               "assert 'tk_ops_float(T)(eps)' in text and 'T(eps)' not in text",
         note="a Julia caller's Float16 arrays found no Float16 kernel in a tack.ops file whose "
              "Python op runs half rows natively, or handed the Float32 eps as Float16"),
]
