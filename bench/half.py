"""Elements per second of one elementwise kernel (`y = a * x + y`, then `y * y`) in f16, bf16 and
f32 on the CPU engine, alternating the dtypes, each timed by its median of several calls.

    PYTHONPATH=python python bench/half.py                 # 2**22 elements, the host's ISA
    PYTHONPATH=python python bench/half.py --n 16384       # in L2: the arithmetic, not memory
    TACK_CPU_TARGET=x86-64-v2 PYTHONPATH=python python bench/half.py   # no F16C: integer code

A half kernel computes in f32 and rounds once (docs/language.md, "Half precision"): f16 converts
with F16C's vcvtph2ps/vcvtps2ph where the CPU has them (else with integer operations), bf16 with
integer operations; all vectorize, and a half element is half the bytes of an f32 one.
"""
import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "python"))
import tack


@tack.kernel
def axpy_square(a, x, y):
    for i in range(y.shape[0]):
        v = a * x[i] + y[i]
        y[i] = v * v


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1 << 22)
    ap.add_argument("--calls", type=int, default=40)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    data = {}
    for t in (tack.f16, tack.bf16, tack.f32):
        x = tack.array(rng.standard_normal(args.n).astype(t.np))
        y = tack.array(np.zeros(args.n, t.np))
        axpy_square(0.5, x, y)  # compile
        data[t.name] = (x, y, [])
    for _ in range(args.calls):
        for name, (x, y, times) in data.items():
            t0 = time.perf_counter()
            axpy_square(0.5, x, y)
            times.append(time.perf_counter() - t0)
    f32 = statistics.median(data["f32"][2])
    for name, (_, _, times) in data.items():
        med = statistics.median(times)
        print(f"{name:5s} {args.n / med / 1e9:7.3f} G elements/s   {med / f32:5.2f} x f32's time")


if __name__ == "__main__":
    main()
