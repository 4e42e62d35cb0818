"""Half precision in the library (tack.ops, tack.algorithms) and the harness: float16 and
bfloat16 data are taken, the result keeps the input's dtype, and every statistic and
accumulation is f32 (docs/ops.md, docs/algorithms.md, "Half precision").

Each row is a class of wrong half result: an op refusing half inputs, a half sum accumulated in
an integer type (the accumulator table had no half row: `a.sum()` of float16 data was read back
as a u64 bit pattern), running sums kept in the half type (a bfloat16 prefix sum stops growing at
256 times its step), a row statistic over rows with a large common offset, float16 squares
taken in float16 (overflow past 256), and the harness refusing half kernels."""
from __future__ import annotations

from .case import Case

_SETUP = '''
import math
import ml_dtypes
from tack import algorithms as A, ops

BF16 = ml_dtypes.bfloat16
rng = np.random.default_rng(0)

def rows(dtype, shift=100.0, shape=(3, 1000)):
    return (rng.standard_normal(shape) * 3 + shift).astype(dtype)

def close(got, want, tol):
    g, w = np.asarray(got, np.float64), np.asarray(want, np.float64)
    err = np.max(np.abs(g - w) / (1 + np.abs(w)))
    assert err <= tol, err
'''

_REF = '''
x64 = x.astype(np.float64)
z = x64 - x64.max(-1, keepdims=True)
SOFTMAX = np.exp(z) / np.exp(z).sum(-1, keepdims=True)
mu = x64.mean(-1, keepdims=True)
LAYER = (x64 - mu) / np.sqrt(((x64 - mu) ** 2).mean(-1, keepdims=True) + 1e-5)
'''


_LABEL = {"np.float16": "float16", "BF16": "bfloat16"}


def _op(name, dtype, engine, call, want):
    return Case(f"half_ops/{name}/{_LABEL[dtype]}/{engine}",
                f"with tack.device({engine!r}):\n    got = {call}",
                None, _SETUP + f"x = rows({dtype})\n" + _REF,
                check=f"assert got.dtype.np == np.dtype({dtype})\nclose(got.numpy(), {want}, 2e-2)",
                quick=engine == "cpu", note="f32 statistics of mean-100 rows, rounded once")


def _sum(dtype, engine):
    return Case(f"half_ops/sum/{_LABEL[dtype]}/{engine}",
                f"with tack.device({engine!r}):\n    got = tack.array(x).sum()", None,
                _SETUP + f"x = rows({dtype}, shape=(4097,))\n",
                check="exact = math.fsum(x.astype(np.float64))\n"
                      "assert abs(got - exact) <= 4097 * 2**-24 * math.fsum(abs(x.astype(float)))",
                quick=engine == "cpu", note="a half sum accumulated as u64: garbage")


def _scan(dtype, engine):
    return Case(f"half_ops/scan/{_LABEL[dtype]}/{engine}",
                f"with tack.device({engine!r}):\n    d = tack.array(np.zeros(4097, {dtype}))\n"
                "    A.inclusive_scan(tack.array(x), d)", None,
                _SETUP + f"x = rows({dtype}, shift=10.0, shape=(4097,))\n",
                check="close(d.numpy()[-1], np.cumsum(x.astype(np.float64))[-1], 1e-2)",
                quick=engine == "cpu", note="running sums kept in the half type")


_ENGINES = ("cpu", "sim")
_DTYPES = ("np.float16", "BF16")
CASES = [
    *(_op("softmax", t, e, "ops.softmax(x)", "SOFTMAX") for t in _DTYPES for e in _ENGINES),
    *(_op("layer_norm", t, e, "ops.layer_norm(x)", "LAYER") for t in _DTYPES for e in _ENGINES),
    *(Case(f"half_ops/rms_norm-squares/float16/{e}",
           f"with tack.device({e!r}):\n    got = ops.rms_norm(x)", None,
           _SETUP + "x = rows(np.float16, shift=1000.0, shape=(2, 300))\n"
                    "x64 = x.astype(np.float64)\n",
           check="close(got.numpy(), x64 / np.sqrt((x64 * x64).mean(-1, keepdims=True) + 1e-6),"
                 " 2e-2)", quick=e == "cpu",
           note="float16 squares of values near 1000 taken in float16 overflow to inf")
      for e in _ENGINES),
    *(_sum(t, e) for t in _DTYPES for e in _ENGINES),
    *(_scan(t, e) for t in _DTYPES for e in _ENGINES),
    Case("half_ops/harness-kernel/bfloat16",
         "rec = tack.testing.test(k, reference=lambda x: x * 2, signature='(n)->(n)', "
         "dtypes=['float16', 'bfloat16'], records_dir=False, baseline=False, tier='fast')",
         None, _SETUP + "import tack.testing\n@tack.kernel\ndef k(x, out):\n"
                        "    for i in range(x.shape[0]):\n        out[i] = x[i] * 2\n",
         check="assert rec.passed, rec.summary()", quick=True,
         note="the harness refused half kernel subjects"),
]
