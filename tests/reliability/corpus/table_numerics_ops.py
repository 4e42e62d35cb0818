"""The numerics contract for tack.ops and the float64 and half math (docs/numerics.md). The
classes: a half softmax that rounded its exps to half before summing and scaling them (two
roundings, a quarter of the elements off the once-rounded result); softmax rows whose sum order
was the engine's (eight lanes on the CPU, the workgroup tree elsewhere: last bits differed); the
float64 math builtins (the C library's on the CPU, NumPy's on the simulator), sin and cos of
huge arguments and at the edges of exp's range among them."""
# ruff: noqa: ISC004 - rows hold source text split over lines
from __future__ import annotations

from .case import Case

_BOTH = '''
import ml_dtypes
from tack import ops

def both(f, x):
    """f(x)'s bits on the CPU engine and on the simulator."""
    got = []
    for dev in ("cpu", "sim"):
        tack.set_default_device(dev)
        got.append(f(x).numpy())
    tack.set_default_device("cpu")
    return got
'''

_SAME = '''
a, b = result
assert a.tobytes() == b.tobytes(), (a, b)
'''

_ONCE = '''
half, wide = result
assert half.tobytes() == wide.astype(half.dtype).tobytes(), "not the f32 result rounded once"
'''

_ONCE = '''
def once(f, x):
    """f on a half row and f on its f32 widening, each on the CPU engine and the simulator."""
    got = []
    for dev in ("cpu", "sim"):
        tack.set_default_device(dev)
        got.append((f(x).numpy(), f(x.astype(np.float32)).numpy()))
    tack.set_default_device("cpu")
    return got
'''

_ONCE_CHECK = '''
for half, wide in result:
    assert half.tobytes() == wide.astype(half.dtype).tobytes(), "not rounded once"
'''

_MATH64 = '''
@tack.kernel
def k(x, out):
    for i in range(x.shape[0]):
        v = x[i]
        out[i] = exp(v) + log(abs(v)) + sin(v) * cos(v) - tanh(v)

def math64(x):
    got = []
    for dev in ("cpu", "sim"):
        tack.set_default_device(dev)
        out = tack.zeros(x.size, tack.f64)
        k(tack.array(x), out)
        got.append(out.numpy())
    tack.set_default_device("cpu")
    return got
'''

_ROWS = "(np.random.default_rng(4).standard_normal((3, {n})) * 3).astype({dt})"

CASES = [
    Case(f"numerics-ops/half-softmax-rounds-once/{dt}-{n}",
         f"result = once(ops.softmax, {_ROWS.format(n=n, dt=dt)})", None, _BOTH + _ONCE,
         check=_ONCE_CHECK, quick=(dt, n) == ("np.float16", 257),
         note="a half softmax kept its exps in half before summing and scaling: two roundings")
    for dt in ("np.float16", "ml_dtypes.bfloat16") for n in (7, 257, 9001)
] + [
    Case(f"numerics-ops/softmax-same-bits/{op}-{dt}-{n}",
         f"result = both(ops.{op}, {_ROWS.format(n=n, dt=dt)})", None, _BOTH,
         check=_SAME, quick=(op, dt, n) == ("softmax", "np.float32", 1000),
         note="the CPU's portable softmax summed in eight lanes, the workgroup kernels by the tree")
    for op in ("softmax", "log_softmax") for dt in ("np.float32", "np.float64", "np.float16")
    for n in (1, 256, 1000, 8192)
] + [
    Case(f"numerics-ops/math-f64-same-bits/{name}", f"result = math64(np.array({args}))", None,
         _BOTH + _MATH64, check=_SAME, quick=name == "dense",
         note="float64 exp/log/sin/cos/tanh were the C library's on the CPU and NumPy's on the "
              "simulator: last bits differed")
    for name, args in (
        ("dense", "np.linspace(-40, 40, 4099)"),
        ("huge-and-tiny", "[1e22, 5.319372648326541e255, 1.7976931348623157e308, "
                          "6381956970095103.0 * 2.0**797, 5e-324, -5e-324, 1e-300, 0.0, -0.0]"),
        ("range-edges", "[709.782712893384, 709.7827128933841, -745.1332191019411, -745.14, "
                        "22.0, -22.0, 0.34657359027997264, 0.7853981633974483, float('nan'), "
                        "float('inf'), float('-inf')]"),
    )
]
