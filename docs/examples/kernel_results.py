"""Kernels that return a value: counts, extremes and sums come back as Python numbers.

    python docs/examples/kernel_results.py --arch cpu --check

A kernel whose signature names a result type (`-> int`, `-> float`, `-> tack.f64`, any dtype)
may end with `return expr` after its parallel loop. The call then returns a Python number,
computed once after the launch; `expr` may read arrays, arguments and constants. Here the loop
accumulates with atomics into a one-element array, and the return reads it:
`count_positive` (an exact integer count), `max_abs` (`tack.atomic_max` on f32, exact) and
`sum_squares` (an f64 sum; atomics add in execution order, so its last bits vary between runs).
--check compares each with NumPy: the count and the maximum exactly, the sum to 1e-12.
"""
from __future__ import annotations

import sys

import numpy as np
import tack
from _tutorial import Clock, check, close, main, parser, passed, pyplot, save


@tack.kernel
def count_positive(x, count) -> int:
    for i in range(x.shape[0]):
        if x[i] > 0.0:
            tack.atomic_add(count, 0, 1)
    return count[0]


@tack.kernel
def max_abs(x, best) -> tack.f32:
    for i in range(x.shape[0]):
        tack.atomic_max(best, 0, abs(x[i]))
    return best[0]


@tack.kernel
def sum_squares(x, acc) -> tack.f64:
    for i in range(x.shape[0]):
        v = tack.f64(x[i])
        tack.atomic_add(acc, 0, v * v)
    return acc[0]


def run(args, clock: Clock) -> None:
    host = np.random.default_rng(3).normal(size=args.size).astype(np.float32)
    x = tack.array(host)
    for _ in range(3):
        count = clock(count_positive, x, tack.zeros(1, tack.i32))
    largest = max_abs(x, tack.zeros(1))
    total = sum_squares(x, tack.zeros(1, tack.f64))
    print(f"  count_positive -> {count!r}, max_abs -> {largest!r}, sum_squares -> {total!r}")
    if args.check:
        check(isinstance(count, int) and count == int((host > 0).sum()),
              f"count_positive gave {count!r}, NumPy {(host > 0).sum()}")
        check(isinstance(largest, float) and largest == float(np.abs(host).max()),
              f"max_abs gave {largest!r}, NumPy {np.abs(host).max()!r}")
        passed("count_positive and max_abs equal NumPy's exactly")
        close(total, (host.astype(np.float64) ** 2).sum(), "sum_squares (f64)", 1e-12, 0.0)
    if args.output:
        plt = pyplot()
        fig, ax = plt.subplots(figsize=(5, 3))
        ax.hist(host, bins=60, color="#555")
        ax.axvline(largest, color="r")
        ax.axvline(-largest, color="r")
        ax.set_title(f"{count} of {len(host)} positive, max |x| = {largest:.3f}")
        save(fig, args.output)


def cli(argv=None) -> int:
    return main(run, parser(__doc__, size=1_000_000, check_size=10_007), argv)


if __name__ == "__main__":
    sys.exit(cli())
