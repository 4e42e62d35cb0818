"""Elements per second of one elementwise kernel (`y = (a * x + y) * 0.5`) in f16, bf16 and
f32 on the CPU engine, beside NumPy computing the same in float16 and float32, alternating the
cases, each timed by its median of several calls.

    PYTHONPATH=python python bench/half.py                 # 2**22 elements, the host's ISA
    PYTHONPATH=python python bench/half.py --n 16384       # in L2: the arithmetic, not memory
    PYTHONPATH=python python bench/half.py --quick         # small sizes: a smoke test
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
        y[i] = (a * x[i] + y[i]) * 0.5  # stays within the range of x: no infinities


def _numpy_case(dtype, n, rng):
    x = rng.standard_normal(n).astype(dtype)
    y = np.zeros(n, dtype)
    a = half = dtype(0.5)

    def run():
        np.multiply(x, a, out=tmp)
        np.add(tmp, y, out=tmp)
        np.multiply(tmp, half, out=y)

    tmp = np.empty(n, dtype)
    return run


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1 << 22)
    ap.add_argument("--calls", type=int, default=40)
    ap.add_argument("--quick", action="store_true", help="small sizes (smoke test)")
    args = ap.parse_args()
    if args.quick:
        args.n, args.calls = 4096, 3
    rng = np.random.default_rng(0)
    cases = {}
    for t in (tack.f16, tack.bf16, tack.f32):
        x = tack.array(rng.standard_normal(args.n).astype(t.np))
        y = tack.array(np.zeros(args.n, t.np))
        axpy_square(0.5, x, y)  # compile
        cases[f"tack {t.name}"] = (lambda x=x, y=y: axpy_square(0.5, x, y), [])
    for dtype in (np.float16, np.float32):
        cases[f"numpy {np.dtype(dtype).name}"] = (_numpy_case(dtype, args.n, rng), [])
    for _ in range(args.calls):
        for run, times in cases.values():
            # an untimed call first: the case before may have let the engine's worker threads
            # sleep (NumPy's float16 loops take long), and waking them is not this case's cost
            run()
            t0 = time.perf_counter()
            run()
            times.append(time.perf_counter() - t0)
    f32 = statistics.median(cases["tack f32"][1])
    print(f"{args.n} elements, median of {args.calls} calls, this machine's CPU engine")
    for name, (_, times) in cases.items():
        med = statistics.median(times)
        peer = cases.get(f"numpy {'float16' if 'f16' in name else 'float32'}")
        vs = "" if name.startswith("numpy") or peer is None else \
            f"   {statistics.median(peer[1]) / med:6.2f}x numpy's speed"
        print(f"{name:14s} {args.n / med / 1e9:7.3f} G elements/s   {med / f32:5.2f} x tack f32's "
              f"time{vs}")


if __name__ == "__main__":
    main()
