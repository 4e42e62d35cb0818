"""RGB dye advected by a rotating flow: a first-order semi-Lagrangian step on a 3-vector field.

    python docs/examples/dye.py --arch cpu --check
    python docs/examples/dye.py --arch sim --output dye.png

The dye is an array of `tack.vec3` (one RGB colour per cell). The velocity is an analytic rigid
rotation about the centre, v = omega * (-(y - cy), x - cx). Each step traces every cell back along
the velocity, p = x - dt * v(x), and samples the old dye there by bilinear interpolation with
clamped loads (indices outside the grid read the nearest edge cell). Bilinear weights are
non-negative and sum to one, so colours stay within the range they started in. --check compares
several steps with a separate NumPy implementation and checks that the colours stay in [0, 1].
"""
from __future__ import annotations

import sys

import numpy as np
import tack
from _tutorial import Clock, check, close, main, parser, passed, pyplot, save


@tack.func
def load(src, i, j):
    """src[i, j] with both indices clamped into the grid."""
    return src[min(max(i, 0), src.shape[0] - 1), min(max(j, 0), src.shape[1] - 1)]


@tack.func
def bilinear(src, y, x):
    y0 = floor(y)  # noqa: F821 - kernel builtins need no import
    x0 = floor(x)  # noqa: F821
    fy = y - y0
    fx = x - x0
    i = int(y0)  # floor first: int() truncates towards zero
    j = int(x0)
    top = load(src, i, j) * (1.0 - fx) + load(src, i, j + 1) * fx
    bottom = load(src, i + 1, j) * (1.0 - fx) + load(src, i + 1, j + 1) * fx
    return top * (1.0 - fy) + bottom * fy


@tack.kernel
def advect(src, dst, omega_dt):
    for i, j in tack.ndrange(src.shape[0], src.shape[1]):
        cy = 0.5 * (src.shape[0] - 1)
        cx = 0.5 * (src.shape[1] - 1)
        y = float(i)
        x = float(j)
        # back-trace along v = omega * (-(y - cy), x - cx): p = x - dt * v
        dst[i, j] = bilinear(src, y - omega_dt * (x - cx), x + omega_dt * (y - cy))


def initial(n: int) -> np.ndarray:
    """Four coloured quadrants inside a disc, on white."""
    y, x = np.mgrid[0:n, 0:n] / max(n - 1, 1)
    rgb = np.ones((n, n, 3), np.float32)
    disc = (x - 0.5) ** 2 + (y - 0.5) ** 2 < 0.16
    rgb[disc & (x < 0.5) & (y < 0.5)] = (0.9, 0.1, 0.1)
    rgb[disc & (x >= 0.5) & (y < 0.5)] = (0.1, 0.7, 0.2)
    rgb[disc & (x < 0.5) & (y >= 0.5)] = (0.1, 0.2, 0.9)
    rgb[disc & (x >= 0.5) & (y >= 0.5)] = (0.95, 0.8, 0.1)
    return rgb


def reference(rgb: np.ndarray, omega_dt: float, steps: int) -> np.ndarray:
    """The same scheme written with NumPy gathers, in float64."""
    n, m = rgb.shape[:2]
    i, j = np.mgrid[0:n, 0:m].astype(np.float64)
    cy, cx = 0.5 * (n - 1), 0.5 * (m - 1)
    py, px = i - omega_dt * (j - cx), j + omega_dt * (i - cy)
    y0, x0 = np.floor(py), np.floor(px)
    fy, fx = (py - y0)[..., None], (px - x0)[..., None]
    y0, x0 = y0.astype(int), x0.astype(int)

    def at(d, a, b):
        return d[np.clip(a, 0, n - 1), np.clip(b, 0, m - 1)]

    d = rgb.astype(np.float64)
    for _ in range(steps):
        top = at(d, y0, x0) * (1 - fx) + at(d, y0, x0 + 1) * fx
        bottom = at(d, y0 + 1, x0) * (1 - fx) + at(d, y0 + 1, x0 + 1) * fx
        d = top * (1 - fy) + bottom * fy
    return d


def run(args, clock: Clock) -> None:
    rgb = initial(args.size)
    omega_dt = 0.02  # radians per step
    steps = 8 if args.check else int(np.pi / omega_dt)  # --check: 8 steps; else half a turn
    src, dst = tack.array(rgb, dtype=tack.vec3), tack.empty(rgb.shape[:2], tack.vec3)
    for _ in range(steps):
        clock(advect, src, dst, omega_dt)
        src, dst = dst, src
    out = src.numpy()
    if args.check:
        close(out, reference(rgb, omega_dt, steps), f"{steps} steps against NumPy",
              rtol=1e-4, atol=1e-4)
        check(np.isfinite(out).all(), "a colour is not finite")
        check(out.min() >= rgb.min() - 1e-6 and out.max() <= rgb.max() + 1e-6,
              f"colours left [{rgb.min()}, {rgb.max()}]: [{out.min()}, {out.max()}]")
        passed("colours finite and within their starting range")
    if args.output:
        plt = pyplot()
        # The start beside the end, with the rotating flow drawn over the start: half a turn
        # moves every quadrant to the opposite one, and the blur at the edges is the scheme's
        # numerical diffusion.
        fig, axes = plt.subplots(1, 2, figsize=(7, 3.7), layout="constrained")
        n = args.size
        axes[0].imshow(rgb, origin="lower")
        step = max(n // 8, 1)  # an 8 x 8 grid of arrows
        y, x = np.mgrid[0:n:step, 0:n:step] + step // 2
        c = 0.5 * (n - 1)
        axes[0].quiver(x, y, -(y - c), x - c, color="0.3", width=0.004)
        axes[0].set_title("start, and the flow")
        axes[1].imshow(np.clip(out, 0, 1), origin="lower")
        axes[1].set_title(f"after {steps} steps ({steps * omega_dt / np.pi:.2f} pi rad)")
        for ax in axes:
            ax.set_axis_off()
        save(fig, args.output)


def cli(argv=None) -> int:
    return main(run, parser(__doc__, size=256, check_size=32), argv)


if __name__ == "__main__":
    sys.exit(cli())
