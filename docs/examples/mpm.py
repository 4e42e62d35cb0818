"""MLS-MPM in 2-D (the mpm88 algorithm): a block of fluid falling in a box.

    python docs/examples/mpm.py --arch cpu --check
    python docs/examples/mpm.py --arch cuda --size 128 --output mpm.png

Moving least squares material point method (Hu et al., "A moving least squares material point
method with displacement discontinuity and two-way rigid body coupling", SIGGRAPH 2018), in the
88-line form of Taichi's `mpm88.py`. Particles carry a position and a velocity (`tack.vec2`), an
affine velocity field C (`tack.mat2`) and a volume ratio J; the grid holds momentum (a vec2 per
node) and mass. Each substep runs four kernels:
- `clear_grid`;
- `p2g`: each particle scatters mass and momentum to the 3x3 nodes of its quadratic B-spline
  stencil with vector atomics (`tack.atomic_add` of a vec2), the stress entering as an affine term;
- `grid_update`: momentum to velocity, gravity, and walls that stop motion into them;
- `g2p`: each particle gathers the new velocity and C = 4 / dx^2 * sum(w * v outer dpos) back, then
  moves, and J grows by the trace of C.
--check: the mass scattered to the grid equals the particles' mass every substep; positions stay
finite and inside the box; and before the block reaches a wall it falls freely: every particle's
velocity is (0, -g * t) and its horizontal position unchanged.
"""
from __future__ import annotations

import sys

import numpy as np
import tack
from _tutorial import Clock, check, close, main, parser, passed, pyplot, save

DT = tack.constant(2e-4)
GRAVITY = tack.constant(9.8)
E = tack.constant(400.0)  # bulk modulus of the fluid
BOUND = tack.constant(3)  # wall thickness, in cells


@tack.func
def bspline(d):
    """The quadratic B-spline weight at distance d (in cells) from a node."""
    a = abs(d)
    w = 0.0
    if a < 0.5:
        w = 0.75 - a * a
    elif a < 1.5:
        w = 0.5 * (1.5 - a) * (1.5 - a)
    return w


@tack.kernel
def clear_grid(grid_v, grid_m):
    for i, j in tack.ndrange(grid_m.shape[0], grid_m.shape[1]):
        grid_v[i, j] = 0.0
        grid_m[i, j] = 0.0


@tack.kernel
def p2g(x, v, C, J, grid_v, grid_m, p_vol, p_mass):
    for p in range(x.shape[0]):
        dx = 1.0 / grid_m.shape[0]
        xp = x[p] / dx
        base = int(xp - 0.5)
        fx = xp - base
        stress = -DT * 4.0 * E * p_vol * (J[p] - 1.0) / (dx * dx)
        affine = [[stress, 0.0], [0.0, stress]] + p_mass * C[p]
        momentum = p_mass * v[p]
        for i in range(3):
            for j in range(3):
                offset = [i, j]
                dpos = (offset - fx) * dx
                weight = bspline(fx[0] - i) * bspline(fx[1] - j)
                node = base + offset
                tack.atomic_add(grid_v, node, weight * (momentum + affine @ dpos))
                tack.atomic_add(grid_m, node, weight * p_mass)


@tack.kernel
def grid_update(grid_v, grid_m):
    for i, j in tack.ndrange(grid_m.shape[0], grid_m.shape[1]):
        n = grid_m.shape[0]
        m = grid_m[i, j]
        if m > 0.0:
            gv = grid_v[i, j] / m
            gv.y -= DT * GRAVITY
            if (i < BOUND and gv.x < 0.0) or (i > n - BOUND and gv.x > 0.0):
                gv.x = 0.0
            if (j < BOUND and gv.y < 0.0) or (j > n - BOUND and gv.y > 0.0):
                gv.y = 0.0
            grid_v[i, j] = gv


@tack.kernel
def g2p(x, v, C, J, grid_v, grid_m):
    for p in range(x.shape[0]):
        dx = 1.0 / grid_m.shape[0]
        xp = x[p] / dx
        base = int(xp - 0.5)
        fx = xp - base
        new_v = [0.0, 0.0]
        new_C = [[0.0, 0.0], [0.0, 0.0]]
        for i in range(3):
            for j in range(3):
                offset = [i, j]
                dpos = (offset - fx) * dx
                weight = bspline(fx[0] - i) * bspline(fx[1] - j)
                g_v = grid_v[base + offset]
                new_v += weight * g_v
                new_C += (4.0 * weight / (dx * dx)) * g_v.outer_product(dpos)
        v[p] = new_v
        x[p] += DT * new_v
        J[p] *= 1.0 + DT * new_C.trace()
        C[p] = new_C


class Fluid:
    """The particle and grid arrays of one simulation."""

    def __init__(self, positions: np.ndarray, velocity, n_grid: int):
        n = len(positions)
        self.dx = 1.0 / n_grid
        self.p_vol = (self.dx * 0.5) ** 2
        self.p_mass = self.p_vol * 1.0  # density 1
        self.x = tack.array(positions.astype(np.float32), dtype=tack.vec2)
        self.v = tack.array(np.tile(np.float32(velocity), (n, 1)), dtype=tack.vec2)
        self.C = tack.zeros(n, tack.mat2)
        self.J = tack.ones(n)
        self.grid_v = tack.zeros((n_grid, n_grid), tack.vec2)
        self.grid_m = tack.zeros((n_grid, n_grid))

    def substep(self):
        clear_grid(self.grid_v, self.grid_m)
        p2g(self.x, self.v, self.C, self.J, self.grid_v, self.grid_m, self.p_vol, self.p_mass)
        grid_update(self.grid_v, self.grid_m)
        g2p(self.x, self.v, self.C, self.J, self.grid_v, self.grid_m)


def block(n: int, lo, hi, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).uniform(lo, hi, size=(n, 2))


def check_free_fall(n_grid: int, clock: Clock) -> None:
    """A block at rest, far from the walls: mass on the grid, then free fall, exactly."""
    start = block(n_grid * n_grid // 4, (0.35, 0.45), (0.65, 0.75), seed=1).astype(np.float32)
    fluid = Fluid(start, (0.0, 0.0), n_grid)
    steps = 12
    for _ in range(steps):
        clock(fluid.substep)
        mass = float(fluid.grid_m.numpy().astype(np.float64).sum())
        check(abs(mass - len(start) * fluid.p_mass) <= 1e-5 * len(start) * fluid.p_mass,
              f"grid mass {mass} != particle mass {len(start) * fluid.p_mass}")
    passed(f"{steps} substeps: the mass scattered to the grid equals the particles' mass")
    g_t = float(GRAVITY) * float(DT) * steps
    v = fluid.v.numpy()
    close(v, np.tile([0.0, -g_t], (len(v), 1)), "free fall: every velocity is (0, -g t)",
          rtol=1e-3, atol=1e-6)
    close(fluid.x.numpy()[:, 0], start[:, 0], "free fall: horizontal positions unchanged",
          rtol=0.0, atol=1e-6)


def run(args, clock: Clock) -> None:
    n_grid = args.size
    if args.check:
        check_free_fall(n_grid, clock)
    if args.check:  # a small block thrown at the floor: 80 substeps of wall contact
        fluid = Fluid(block(n_grid * n_grid // 4, (0.2, 0.11), (0.5, 0.4), seed=2), (0.5, -3.0),
                      n_grid)
        steps = 80
    else:  # mpm88's scene: a block falling into the box's corner, 0.8 s of simulated time
        fluid = Fluid(block(n_grid * n_grid, 0.2, 0.6, seed=2), (0.0, -1.0), n_grid)
        steps = 4000
    for _ in range(steps):
        clock(fluid.substep)
    x = fluid.x.numpy()
    if args.check:
        check(np.isfinite(x).all(), "a position is not finite")
        check(((x > 0.0) & (x < 1.0)).all(), "a particle left the box")
        check(np.isfinite(fluid.J.numpy()).all(), "a volume ratio is not finite")
        mass = float(fluid.grid_m.numpy().astype(np.float64).sum())
        close(mass, len(x) * fluid.p_mass, "mass on the grid after wall contact", 1e-5, 0.0)
        passed(f"{steps} substeps with wall contact: positions finite and inside the box")
    if args.output:
        plt = pyplot()
        fig, ax = plt.subplots(figsize=(4.6, 4), layout="constrained")
        speed = np.linalg.norm(fluid.v.numpy(), axis=1)  # the splash moves, the pool settles
        dots = ax.scatter(x[:, 0], x[:, 1], s=1.5, c=speed, cmap="viridis", linewidths=0)
        fig.colorbar(dots, ax=ax, label="speed", shrink=0.8)
        ax.set(xlim=(0, 1), ylim=(0, 1), aspect="equal", title=f"mpm88, {len(x)} particles")
        save(fig, args.output)


def cli(argv=None) -> int:
    return main(run, parser(__doc__, size=128, check_size=32), argv)


if __name__ == "__main__":
    sys.exit(cli())
