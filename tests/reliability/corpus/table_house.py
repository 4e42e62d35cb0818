"""Launch values handed straight to an engine that runs on NumPy arrays (the simulator, the Julia
engine's host arrays): a scalar parameter given something that is not a number (a string, None,
a list, an array) is refused with the kernel's and the parameter's names before anything runs,
the same way on both, instead of whatever NumPy made of it (the string "2" read as 2.0, None
as NaN, an array broadcast over the lanes)."""
from __future__ import annotations

from .case import Case

_SETUP = '''
from tack.compiler import specialize


@tack.kernel
def scale(x, out, a):
    for i in range(out.shape[0]):
        out[i] = a * x[i]


x = np.arange(4, dtype=np.float32)
out = np.full(4, 7.0, np.float32)
kir = specialize(scale, [tack.zeros(4), tack.zeros(4), 2.0], tack.device("cpu"))
'''
_ENGINES = {
    "sim": "from tack.runtime.sim.engine import SimEngine\nk = SimEngine().compile(kir)\n",
    # checked before Julia is needed: no session starts
    "julia": "from tack.runtime.julia.engine import JuliaKernel\n"
             "k = JuliaKernel(None, kir, None, '')\n",
}
_VALUES = {"string": '"2"', "none": "None", "list": "[2.0]", "array": "np.ones(4, np.float32)"}

CASES = [
    Case(f"house/host-scalar/{engine}/{what}", f"k.launch([x, out, {value}], 4)",
         "tack.TackTypeError", _SETUP + make, mentions=("'scale'", "'a'", "scalar"),
         unchanged=("out",), quick=what == "string",
         note="one check of a host launch's scalars for the simulator and the Julia engine")
    for engine, make in _ENGINES.items() for what, value in _VALUES.items()
]
