"""The 2-D heat equation: an explicit 5-point stencil, two buffers swapped every step.

    python docs/examples/heat.py --arch cpu --check
    python docs/examples/heat.py --arch cuda --size 1024 --output heat.png

u_t = alpha * (u_xx + u_yy) on a square with u = 0 on the boundary (Dirichlet), stepped with
forward Euler: u' = u + r * (north + south + east + west - 4 u), r = alpha * dt / dx^2 = 0.2
(stable for r <= 1/4). Every new value is then a convex combination of old ones, so the maximum
principle holds: the temperature stays within [0, max of the start]. --check runs 40 steps on a
small grid against NumPy slicing in float64, and checks the boundary and that bound.
"""
from __future__ import annotations

import sys

import numpy as np
import tack
from _tutorial import Clock, check, close, main, parser, passed, pyplot, save

R = tack.constant(0.2)  # alpha * dt / dx^2


@tack.kernel
def heat_step(u, out):
    for i, j in tack.ndrange(u.shape[0], u.shape[1]):
        if i == 0 or j == 0 or i == u.shape[0] - 1 or j == u.shape[1] - 1:
            out[i, j] = 0.0
        else:
            lap = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j]
            out[i, j] = u[i, j] + R * lap


def initial(n: int) -> np.ndarray:
    """A hot disc off the centre on a cold plate, zero on the boundary."""
    y, x = np.mgrid[0:n, 0:n] / max(n - 1, 1)
    u = np.where((x - 0.4) ** 2 + (y - 0.55) ** 2 < 0.06, 1.0, 0.0).astype(np.float32)
    u[0, :] = u[-1, :] = u[:, 0] = u[:, -1] = 0.0
    return u


def reference(u0: np.ndarray, steps: int) -> np.ndarray:
    """The same scheme with NumPy slices, in float64."""
    u = u0.astype(np.float64)
    for _ in range(steps):
        v = np.zeros_like(u)
        v[1:-1, 1:-1] = u[1:-1, 1:-1] + 0.2 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2]
                                              + u[1:-1, 2:] - 4.0 * u[1:-1, 1:-1])
        u = v
    return u


def simulate(u0: np.ndarray, steps: int, clock: Clock):
    """Run `steps` steps; returns the final field and the maximum after each step."""
    u, v = tack.array(u0), tack.zeros(u0.shape)
    maxima = []
    for _ in range(steps):
        clock(heat_step, u, v)
        u, v = v, u  # swap the buffers: the new field is the next step's input
        maxima.append(u.max())
    return u.numpy(), np.array(maxima)


def run(args, clock: Clock) -> None:
    u0 = initial(args.size)
    steps = 40 if args.check else 4 * args.size
    u, maxima = simulate(u0, steps, clock)
    if args.check:
        close(u, reference(u0, steps), f"{steps} steps against NumPy slicing (float64)",
              rtol=1e-5, atol=1e-6)
        edge = np.r_[u[0, :], u[-1, :], u[:, 0], u[:, -1]]
        check((edge == 0.0).all(), "the boundary is not exactly zero")
        passed("the boundary stays exactly zero")
        check(u.min() >= 0.0 and (maxima <= u0.max()).all(), "the maximum principle is violated")
        check((np.diff(maxima) <= 1e-7).all(), "the maximum grew during a step")
        passed("maximum principle: 0 <= u <= max(u0), the maximum never grows")
    if args.output:
        plt = pyplot()
        fig, ax = plt.subplots(figsize=(4, 4))
        ax.imshow(u, cmap="inferno", vmin=0.0, vmax=max(float(u.max()), 1e-6), origin="lower")
        ax.set_title(f"heat after {steps} steps")
        ax.set_axis_off()
        save(fig, args.output)


def cli(argv=None) -> int:
    return main(run, parser(__doc__, size=256, check_size=24), argv)


if __name__ == "__main__":
    sys.exit(cli())
