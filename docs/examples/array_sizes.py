"""Array sizes known at compile time: a scratch array sized from an extent of the data.

    python docs/examples/array_sizes.py --arch cpu --check

`tack.local_array_like(data, PAIR * data.shape[1])` declares per-iteration scratch storage whose
size is a compile-time expression: a constant times an extent of an argument. Tack compiles that
extent in, so every distinct width is its own specialization (the IR shows `f32[8]` at width 4
and `f32[14]` at width 7), and the scratch array lives in registers or on the stack. `row_energy`
stores x and x^2 for every column of a row, then sums the scratch array. --check runs widths 4
and 7 on small integers, where every f32 sum is exact, so the result equals NumPy's
`(x + x**2).sum(axis=1)` bit for bit.
"""
from __future__ import annotations

import sys

import numpy as np
import tack
from _tutorial import Clock, check, main, parser, passed, pyplot, save

PAIR = tack.constant(2)  # two scratch entries per column: x and x^2


@tack.kernel
def row_energy(data, out):
    for row in range(data.shape[0]):
        scratch = tack.local_array_like(data, PAIR * data.shape[1])
        for column in range(data.shape[1]):
            x = data[row, column]
            scratch[PAIR * column] = x
            scratch[PAIR * column + 1] = x * x
        total = 0.0
        for column in range(PAIR * data.shape[1]):
            total += scratch[column]
        out[row] = total


def run(args, clock: Clock) -> None:
    results, scratch = {}, {}
    for width in (4, 7):
        # small integers: every partial sum is an exactly representable f32
        host = np.random.default_rng(width).integers(-20, 20, size=(args.size, width))
        host = host.astype(np.float32)
        data, out = tack.array(host), tack.zeros(args.size)
        for _ in range(3):  # timed at the first width; the second compiles its own variant
            (clock if width == 4 else (lambda k, *a: k(*a)))(row_energy, data, out)
        results[width] = out.numpy()
        ir = tack.inspect(row_energy, data, out, mode="ir")
        scratch_line = next(line for line in ir.splitlines() if "scratch:" in line)
        print(f"  width {width}: {scratch_line.strip()}")
        scratch[width] = scratch_line.split("scratch:", 1)[-1].strip()
        if args.check:
            check((results[width] == (host + host * host).sum(axis=1)).all(),
                  f"width {width}: row energies differ from NumPy's")
            check(f"f32[{2 * width}]" in scratch_line,
                  f"width {width}: scratch is not f32[{2 * width}]")
            passed(f"width {width}: equal to NumPy bit for bit, scratch f32[{2 * width}]")
    if args.output:
        plt = pyplot()
        # One specialization per width: the scratch array each compiled to (read from its IR)
        # and the distribution of the row energies it computed, which shifts with the width
        # (each column adds x + x^2, 133 on average for x uniform in -20..19).
        fig, ax = plt.subplots(figsize=(5.5, 3.2), layout="constrained")
        bins = np.linspace(0, max(float(e.max()) for e in results.values()), 60)
        for (width, energy), colour in zip(results.items(), ("#1f77b4", "#ff7f0e")):
            ax.hist(energy, bins=bins, histtype="stepfilled", alpha=0.45, color=colour,
                    label=f"width {width}: scratch {scratch[width]}")
            ax.axvline(energy.mean(), color=colour, lw=1.5, ls="--")
        ax.set(xlabel="row energy: sum of x + x^2 over the row", ylabel="rows",
               title=f"row_energy on {args.size} rows, two specializations")
        ax.legend(frameon=False)
        save(fig, args.output)


def cli(argv=None) -> int:
    return main(run, parser(__doc__, size=100_000, check_size=9), argv)


if __name__ == "__main__":
    sys.exit(cli())
