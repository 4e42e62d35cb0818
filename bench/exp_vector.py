"""The float32 exp that tack.ops' CPU kernels use (`tack.lib.expf.exp_f32`, plain Tack
arithmetic that LLVM's loop vectorizer widens) beside the builtin `exp`, on one thread.

    PYTHONPATH=python python bench/exp_vector.py
    PYTHONPATH=python python bench/exp_vector.py --quick     # one round of 20 calls: a smoke run

The builtin `exp` lowers to `llvm.exp.f32`, which the CPU backend turns into one call of the C
library's scalar `expf` per element even inside a vectorized loop. What was tried:

- the `-vector-library=LIBMVEC` option (through `llvmlite.binding.set_option`): the loop
  vectorizer then emits `llvm.exp.v8f32`, which the backend still splits into eight `expf`
  calls (the pass builder llvmlite creates does not take the option's vector mappings);
- an exp in Tack arithmetic with 2^k built from the binary digits of |k| by selects: vectorized,
  but no faster than `expf` (4.1-4.3 against 3.7-3.8 ns an element). Its `int(kf)` was the
  culprit: LLVM 22's x86 backend turns a vector `llvm.fptosi.sat` into one scalar conversion
  per lane. The CPU renderer now spells the saturation as a conversion and three selects
  (render/llvm/support.py), which vectorizes;
- `exp_f32` (the module's docstring gives the algorithm and accuracy): 2^k from two integer
  shifts, two int->float conversions and squarings, no division and no selects but the NaN one.

Prints the largest error in float32 ulps over the range and the CPU time per element of a loop
over 2^14 elements (in L2, so the arithmetic is timed, not the memory), alternating the kernels.
"""
import argparse
import math
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "python"))
import tack
from tack.lib.expf import exp_f32


@tack.kernel
def copy_kernel(x, out):
    for i in range(x.shape[0]):
        out[i] = x[i]


@tack.kernel
def exp_f32_kernel(x, out):
    for i in range(x.shape[0]):
        out[i] = exp_f32(x[i])


@tack.kernel
def exp_kernel(x, out):
    for i in range(x.shape[0]):
        out[i] = math.exp(x[i])


def max_ulp() -> float:
    x = np.arange(-103.97, 88.72, 2.0**-10).astype(np.float32)
    out = tack.zeros(x.shape)
    exp_f32_kernel(tack.array(x), out)
    exact = np.exp(x.astype(np.float64))
    ulp = np.spacing(exact.astype(np.float32)).astype(np.float64)
    return float((np.abs(out.numpy() - exact) / ulp).max())


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--calls", type=int, default=2000, help="timed calls per kernel and round")
    ap.add_argument("--quick", action="store_true", help="one round of 20 calls (a smoke run)")
    a = ap.parse_args(argv)
    rounds, calls = (1, 20) if a.quick else (a.rounds, a.calls)
    tack.set_default_device("cpu", num_threads=1)
    ulp = max_ulp()
    print(f"exp_f32: max error {ulp:.3f} ulp over every 2^-10 of [-103.97, 88.72]")
    x = np.random.default_rng(0).uniform(-20, 0, 1 << 14).astype(np.float32)  # softmax's range
    xa, out = tack.array(x), tack.zeros(x.shape)
    kernels = (copy_kernel, exp_f32_kernel, exp_kernel)
    per = {k.name: [] for k in kernels}
    for _ in range(rounds):
        for k in kernels:
            k(xa, out)
            t = time.process_time()
            for _ in range(calls):
                k(xa, out)
            per[k.name].append((time.process_time() - t) / calls / x.size * 1e9)
    for name, ts in per.items():
        print(f"{name:15s} {np.median(ts):6.2f} ns/element (CPU time, one thread; rounds "
              f"{min(ts):.2f}-{max(ts):.2f})")
    print(f"exp_f32 / builtin exp speed: "
          f"{np.median(per['exp_kernel']) / np.median(per['exp_f32_kernel']):.2f}x")
    if not ulp <= 1.0:  # the accuracy tack.lib.expf promises (a NaN fails too)
        print(f"WRONG: exp_f32 is {ulp} ulp off")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
