"""The numerics contract (docs/numerics.md): the same inputs give the same bits on the CPU engine
and the simulator. The classes: a float32 math builtin (the C library's on the CPU, NumPy's on
the simulator; now tack.lib's on both), a math builtin where its library code cannot be bound to
locals (a `while` condition, a lazy arm, beside an atomic: it grew to millions of nodes), a
float64 multiply-add (the simulator rounded twice), and a fused accumulation in a loop (LLVM's
vectorizer split `llvm.fmuladd` into a product and a sum)."""
# ruff: noqa: ISC004 - rows hold source text split over lines
from __future__ import annotations

from .case import Case

_COMPARE = '''
def both(kernel, *arrays):
    """The arrays' bits after `kernel` on the CPU engine and after it on the simulator."""
    got = []
    for dev in ("cpu", "sim"):
        tack.set_default_device(dev)
        args = [tack.array(a) if isinstance(a, np.ndarray) else a for a in arrays]
        kernel(*args)
        got.append([a.numpy().copy() for a in args if isinstance(a, tack.Array)])
    tack.set_default_device("cpu")
    return got
'''

_CHECK = '''
for a, b in zip(*result):
    assert a.tobytes() == b.tobytes(), (a, b)
'''

_KERNELS = [  # (name, kernel source, call, note)
    ("math-f32", '''
@tack.kernel
def k(x, out):
    for i in range(x.shape[0]):
        v = x[i]
        out[i] = exp(v) + log(abs(v) + 1.0) + sin(v) * cos(v) - tanh(v)
''', "both(k, np.linspace(-30, 30, 4099, dtype=np.float32), np.zeros(4099, np.float32))",
     "the C library's expf/sinf/... on the CPU, NumPy's on the simulator: last bits differed"),
    ("math-in-while", '''
@tack.kernel
def k(x, out):
    for i in range(x.shape[0]):
        n = 0
        while n < 3 and sin(x[i] + n) < 2.0:
            n += 1
        out[i] = sin(x[i]) if x[i] > -1e30 else 0.0
''', "both(k, np.linspace(-9, 9, 257, dtype=np.float32), np.zeros(257, np.float32))",
     "sin's library DAG in a while condition and a lazy arm, printed as a tree: GBs of memory"),
    ("muladd-f64", '''
@tack.kernel
def k(a, b, c, out):
    for i in range(a.shape[0]):
        out[i] = a[i] * b[i] + c[i]
''', "both(k, *(np.random.default_rng(s).standard_normal(20000) for s in (1, 2)), "
     "-(np.random.default_rng(1).standard_normal(20000) * np.random.default_rng(2)"
     ".standard_normal(20000)) * (1 + 2.0**-50), np.zeros(20000))",
     "the simulator's float64 multiply-add rounded twice; the CPU's FMA once"),
    ("fused-accumulation", '''
@tack.kernel
def k(x, out):
    for i in range(x.shape[0]):
        acc = 0.0
        for j in range(x.shape[1]):
            acc += x[i, j] * x[i, (j + 1) % x.shape[1]]
        out[i] = acc
''', "both(k, np.random.default_rng(3).standard_normal((33, 250)).astype(np.float32), "
     "np.zeros(33, np.float32))",
     "with in-order reductions vectorized, LLVM split `acc += a * b` (llvm.fmuladd) into a "
     "product and a sum"),
]


CASES = [Case(f"numerics/same-bits/{name}", f"result = {call}", None, _COMPARE + src,
              check=_CHECK, quick=name == "math-f32", note=note)
         for name, src, call, note in _KERNELS]
