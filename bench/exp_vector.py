"""Experiment: a float32 `exp` in plain Tack arithmetic, so that LLVM's loop vectorizer can widen
the loops that call it, measured against the builtin.

    PYTHONPATH=python python bench/exp_vector.py

The builtin `exp` lowers to `llvm.exp.f32`, which the CPU backend turns into one call
of libm's `expf` per element even inside a vectorized loop (llvmlite's LLVM is built without a
vector math library mapping; setting `-vector-library=LIBMVEC-X86` through
`llvmlite.binding.set_option` changed nothing in the code generated here). The builtin `exp` lowers to `llvm.exp.f32`, which the CPU backend turns into one call
of libm's `expf` per element even inside a vectorized loop (llvmlite's LLVM is built without a
vector math library mapping; setting `-vector-library=LIBMVEC-X86` through
`llvmlite.binding.set_option` changed nothing in the code generated here).

Algorithm: x = k ln2 + r with k = round(x / ln2) and |r| <= ln2/2, ln2 split in two parts
(Cody and Waite) so that r is exact to float32; exp(r) by its Taylor polynomial of degree 7
(truncation error r^8/8! < 6e-9 relative, a tenth of float32's half-ulp); 2^k assembled from
the binary digits of |k| by multiplications with exact powers of two (the language has no
bit casts). Accuracy: within 2 ulp of the correctly rounded exp for x in [-87.3, 88.7] (the
tests check 2^20 points); below -87.3 (results under the smallest normal float32) it gives 0;
above 88.72 +inf; NaN gives NaN. For float32 only: a float64 argument computes with float64
arithmetic but keeps float32's accuracy.

Result (2-core x86-64 with AVX2, one thread): the loop is vectorized 8-wide, but 2^k costs
~30 vector operations without a bit cast, and the function runs at about the speed of glibc's
scalar expf (4.1-4.3 against 3.7-3.8 ns per element), so tack.ops keeps the builtin. An
`ldexp` builtin (or a float<->int bit cast) would turn _pow2 into two integer operations.
"""
import math
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "python"))
import tack
from tack import func, select


@func
def _pow2(k):
    """2^k for an integer k in [-127, 127], exactly."""
    a = abs(k)
    s = select((a & 1) != 0, 2.0, 1.0)
    s = s * select((a & 2) != 0, 4.0, 1.0)
    s = s * select((a & 4) != 0, 16.0, 1.0)
    s = s * select((a & 8) != 0, 256.0, 1.0)
    s = s * select((a & 16) != 0, 65536.0, 1.0)
    s = s * select((a & 32) != 0, 4294967296.0, 1.0)
    s = s * select((a & 64) != 0, 18446744073709551616.0, 1.0)
    return select(k < 0, 1.0 / s, s)


@func
def vexp(x):
    t = min(max(x, -87.3), 88.72)
    kf = floor(t * 1.4426950408889634 + 0.5)  # noqa: F821 - a kernel builtin
    r = (t - kf * 0.693145751953125) - kf * 1.4286068203094172e-06  # ln2 = hi + lo
    p = 1.0 + r * (1.0 + r * (0.5 + r * (0.16666666666666666 + r * (
        0.041666666666666664 + r * (0.008333333333333333 + r * (
            0.001388888888888889 + r * 0.0001984126984126984))))))
    k = int(kf)
    big = k > 127  # 2^128 is not a float32: take one factor 2 into p
    v = p * select(big, 2.0, 1.0) * _pow2(k - select(big, 1, 0))
    v = select(x < -87.3, 0.0, select(x > 88.72, math.inf, v))
    return select(x != x, x, v)  # noqa: PLR0124 - NaN in, NaN out


@tack.kernel
def vexp_kernel(x, out):
    for i in range(x.shape[0]):
        out[i] = vexp(x[i])


@tack.kernel
def copy_kernel(x, out):
    for i in range(x.shape[0]):
        out[i] = x[i]


@tack.kernel
def exp_kernel(x, out):
    for i in range(x.shape[0]):
        out[i] = exp(x[i])  # noqa: F821 - a kernel builtin


def main():
    tack.set_default_device("cpu", num_threads=1)
    x = np.random.default_rng(0).uniform(-87.3, 88.72, 1 << 20).astype(np.float32)
    xa, out = tack.array(x), tack.zeros(x.shape)
    vexp_kernel(xa, out)
    exact = np.exp(x.astype(np.float64))
    ulp = np.abs(out.numpy() - exact) / np.spacing(exact.astype(np.float32)).astype(np.float64)
    print(f"vexp: max error {ulp.max():.3f} ulp over {x.size} points in [-87.3, 88.72]")
    # softmax's range, 2^14 elements: in L2, so the arithmetic is timed, not the memory
    x = np.random.default_rng(0).uniform(-20, 0, 1 << 14).astype(np.float32)
    xa, out = tack.array(x), tack.zeros(x.shape)
    for k in (copy_kernel, vexp_kernel, exp_kernel, vexp_kernel, exp_kernel):
        k(xa, out)
        t = time.process_time()
        for _ in range(2000):
            k(xa, out)
        print(f"{k.name:12s} {(time.process_time() - t) / 2000 / x.size * 1e9:6.2f} ns/element "
              f"(CPU time, one thread)")


if __name__ == "__main__":
    main()
