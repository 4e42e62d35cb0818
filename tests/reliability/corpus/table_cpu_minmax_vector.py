"""Float min/max reductions on the CPU engine: a loop `m = max(m, x[i, j])` runs as a vector
reduction (passes/minmax.py carries it in integer keys) and gives every bit of the scalar fold,
with NaNs (which lose), ±0.0 (max gives +0.0, min -0.0, in either order) and ±inf anywhere in
the row. It was a scalar compare-and-select chain: bench/cpu.py's softmax spent its row max
one element at a time."""
from __future__ import annotations

from .case import Case

_SETUP = '''
import math, re

@tack.kernel
def row_max(x, out):
    for i in range(x.shape[0]):
        m = x[i, 0]
        for j in range(1, x.shape[1]):
            m = max(m, x[i, j])
        out[i] = m

@tack.kernel
def row_min(x, out):
    for i in range(x.shape[0]):
        m = x[i, 0]
        for j in range(1, x.shape[1]):
            m = min(x[i, j], m)
        out[i] = m

def fold(op, r):
    m = float(r[0])
    for v in map(float, r[1:]):
        if math.isnan(v):
            continue
        if math.isnan(m) or (v > m if op == "max" else v < m):
            m = v
        elif v == m == 0:
            neg = (math.copysign(1, v) < 0) and (math.copysign(1, m) < 0) if op == "max" \\
                else (math.copysign(1, v) < 0) or (math.copysign(1, m) < 0)
            m = -0.0 if neg else 0.0
    return m

rng = np.random.default_rng(7)
n = 1025
rows = []
for sign in (-1.0, 1.0):
    for p in (0, n // 2, n - 1):
        for s in (math.nan, 0.0, -0.0, math.inf, -math.inf):
            r = sign * (1 + rng.random(n))
            r[rng.random(n) < 0.3] = -0.0 if s == 0.0 else 0.0
            r[p] = s
            rows.append(r)
rows.append(np.full(n, math.nan))
x = np.array(rows, np.float32)
'''

_BITS = '''
for got, op in ((hi.numpy(), "max"), (lo.numpy(), "min")):
    want = np.array([fold(op, r) for r in x], np.float32)
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(got), nan), (op, got, want)
    assert np.array_equal(got[~nan].view(np.uint32), want[~nan].view(np.uint32)), (op, got, want)
'''

_VECTOR = '''
for k in (row_max, row_min):
    assert re.search(r"llvm\\.vector\\.reduce\\.s(max|min)\\.v\\d+i32", text[k.__name__]), k
'''


def _cases() -> list[Case]:
    return [
        Case("cpu-minmax/reduction-bits-with-nan-zeros-inf",
             "hi, lo = tack.zeros(len(x), device='cpu'), tack.zeros(len(x), device='cpu'); "
             "row_max(tack.array(x, device='cpu'), hi); row_min(tack.array(x, device='cpu'), lo)",
             None, _SETUP, check=_BITS, quick=True,
             note="the row max of a float loop, vectorized, keeps the scalar fold's bits: a NaN "
                  "loses, +0.0 beats -0.0 whatever their lanes"),
        Case("cpu-minmax/reduction-is-a-vector-reduction",
             "text = {k.__name__: tack.inspect(k, tack.array(x, device='cpu'), "
             "tack.zeros(len(x), device='cpu'), mode='optimized') for k in (row_max, row_min)}",
             None, _SETUP, check=_VECTOR, quick=True,
             note="float max/min reductions stayed scalar compare-and-select chains (softmax's "
                  "row max at 0.7x NumPy)"),
    ]


CASES = _cases()
