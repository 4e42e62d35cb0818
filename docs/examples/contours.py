"""Marching squares: the contour f = 0 of a sampled field, as exactly as many segments as it has.

    python docs/examples/contours.py --arch cpu --check
    python docs/examples/contours.py --arch cuda --size 2048 --output contours.png

The field is the circle level set f(x, y) = x^2 + y^2 - 0.7^2 sampled at (n+1) x (n+1) points of
[-1, 1]^2. Three steps, the usual pattern for output of data-dependent size on a GPU:
1. `count_segments`: each of the n x n cells looks up its case (one bit per corner below zero)
   and stores how many segments it holds (0, 1 or 2);
2. `tack.algorithms.exclusive_scan` turns those counts into each cell's first output slot and
   returns the total, so the output array is allocated with exactly `total` segments;
3. `write_segments`: each cell interpolates the crossing point on its edges (two 4-element local
   arrays) and writes its segments from its slot on: no atomics, and a deterministic order.
The case table is a small device array; the corner offsets are `tack.constant` vectors.
--check compares the scan with `np.cumsum`, the counts with a NumPy count of sign changes, and
every endpoint with the circle: linear interpolation of f along an edge of length h puts it at
|p|^2 >= 0.7^2 - h^2 / 4, so |p| is within 0.7 - sqrt(0.7^2 - h^2 / 4) of the radius.
"""
from __future__ import annotations

import sys

import numpy as np
import tack
from _tutorial import Clock, check, close, main, parser, passed, pyplot, save
from tack.algorithms import exclusive_scan

RADIUS = 0.7
# Corner k of a cell, counter-clockwise from its lower-left sample; edge k joins corner k and
# corner k + 1 (mod 4).
CORNER_DX = tack.constant((0, 1, 1, 0))
CORNER_DY = tack.constant((0, 0, 1, 1))


def case_table() -> np.ndarray:
    """For each of the 16 cases, the edges its segments join (two pairs, -1 when unused): the
    edges whose two corners lie on different sides, taken in order and paired."""
    table = np.full((16, 4), -1, np.int32)
    for case in range(16):
        inside = [(case >> k) & 1 for k in range(4)]
        crossed = [k for k in range(4) if inside[k] != inside[(k + 1) % 4]]
        table[case, : len(crossed)] = crossed  # 0, 2 or 4 crossed edges: 0, 1 or 2 segments
    return table


@tack.func
def cell_case(f, cx, cy):
    case = 0
    for k in range(4):
        value = f[cy + CORNER_DY[k], cx + CORNER_DX[k]]
        if value < 0.0:
            case += 1 << k
    return case


@tack.kernel
def count_segments(f, table, counts):
    for c in range(counts.shape[0]):
        n = f.shape[1] - 1
        case = cell_case(f, c % n, c // n)
        segments = 0
        for s in range(2):
            if table[case, 2 * s] >= 0:
                segments += 1
        counts[c] = segments


@tack.kernel
def write_segments(f, table, offsets, segs, x0, h):
    for c in range(offsets.shape[0]):
        n = f.shape[1] - 1
        cx = c % n
        cy = c // n
        case = cell_case(f, cx, cy)
        ex = tack.local_array(tack.f32, 4)  # the crossing point on each edge
        ey = tack.local_array(tack.f32, 4)
        for k in range(4):
            k1 = (k + 1) % 4
            a = f[cy + CORNER_DY[k], cx + CORNER_DX[k]]
            b = f[cy + CORNER_DY[k1], cx + CORNER_DX[k1]]
            t = 0.5
            if (a < 0.0) != (b < 0.0):
                t = a / (a - b)  # linear interpolation of f along the edge
            ex[k] = x0 + h * (cx + CORNER_DX[k] + t * (CORNER_DX[k1] - CORNER_DX[k]))
            ey[k] = x0 + h * (cy + CORNER_DY[k] + t * (CORNER_DY[k1] - CORNER_DY[k]))
        slot = offsets[c]
        for s in range(2):
            e0 = table[case, 2 * s]
            if e0 >= 0:
                e1 = table[case, 2 * s + 1]
                segs[slot, 0] = [ex[e0], ey[e0]]
                segs[slot, 1] = [ex[e1], ey[e1]]
                slot += 1


def sample(n: int):
    """f on (n+1)^2 points of [-1, 1]^2 (rows are y), and the spacing."""
    h = 2.0 / n
    y, x = np.mgrid[0 : n + 1, 0 : n + 1] * h - 1.0
    return (x * x + y * y - RADIUS**2).astype(np.float32), h


def numpy_counts(f: np.ndarray) -> np.ndarray:
    """Segments per cell from sign changes along the cell edges (two per segment)."""
    neg = f < 0
    horizontal = neg[:, 1:] != neg[:, :-1]  # edges along x, (n+1) x n
    vertical = neg[1:, :] != neg[:-1, :]  # edges along y, n x (n+1)
    crossed = (horizontal[:-1].astype(np.int32) + horizontal[1:] + vertical[:, :-1]
               + vertical[:, 1:])
    return (crossed // 2).ravel()


def contour(f_host: np.ndarray, h: float):
    n = f_host.shape[0] - 1
    f, table = tack.array(f_host), tack.array(case_table())
    counts, offsets = tack.zeros(n * n, tack.i32), tack.zeros(n * n, tack.i32)
    count_segments(f, table, counts)
    total = int(exclusive_scan(counts, offsets))
    segs = tack.empty((total, 2), tack.vec2)  # exactly `total` segments
    write_segments(f, table, offsets, segs, -1.0, h)
    return counts.numpy(), offsets.numpy(), segs.numpy()


def run(args, clock: Clock) -> None:
    f, h = sample(args.size)
    for _ in range(3 if args.check else 10):  # timed as a whole: count, scan, allocate, write
        counts, offsets, segs = clock(contour, f, h)
    if args.check:
        check((counts == numpy_counts(f)).all(), "segment counts differ from NumPy's")
        passed("segments per cell equal a NumPy count of sign changes")
        check((offsets == np.cumsum(counts) - counts).all(), "the scan differs from np.cumsum")
        passed(f"exclusive_scan equals np.cumsum; {len(segs)} segments allocated and written")
        check(len(segs) > 0 and segs.shape == (len(segs), 2, 2), f"segment shape {segs.shape}")
        length = np.linalg.norm(segs[:, 1] - segs[:, 0], axis=1)
        check((length > 0).all() and (length <= np.sqrt(2) * h * 1.0001).all(),
              "a segment is empty or longer than a cell diagonal")
        residual = np.abs(np.linalg.norm(segs.reshape(-1, 2), axis=1) - RADIUS)
        close(residual.max(), 0.0, f"circle residual (max {residual.max():.2e})",
              rtol=0.0, atol=RADIUS - np.sqrt(RADIUS**2 - h * h / 4) + 1e-6)
        close(length.sum(), 2 * np.pi * RADIUS, "contour length ~ circumference",
              rtol=2 * h, atol=0.0)
    if args.output:
        plt = pyplot()
        from matplotlib.collections import LineCollection

        fig, ax = plt.subplots(figsize=(4, 4))
        ax.imshow(f, extent=(-1, 1, -1, 1), origin="lower", cmap="coolwarm", alpha=0.6)
        ax.add_collection(LineCollection(segs, colors="k", linewidths=1.2))
        ends = segs.reshape(-1, 2)  # each segment's ends, on the cell edges it crosses
        ax.plot(ends[:, 0], ends[:, 1], "o", ms=2.5, color="k")
        ax.set_title(f"marching squares: {len(segs)} segments")
        save(fig, args.output)


def cli(argv=None) -> int:
    return main(run, parser(__doc__, size=512, check_size=40), argv)


if __name__ == "__main__":
    sys.exit(cli())
