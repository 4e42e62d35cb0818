"""Physarum (slime mould) transport networks: agents that sense, turn, move and deposit a trail.

    python docs/examples/physarum.py --arch cpu --check
    python docs/examples/physarum.py --arch cuda --size 512 --output physarum.png

Jeff Jones's model as Sage Jenson draws it. The agents are a device class holding a position
vector and a heading per agent; every frame three kernels run on a periodic grid:
- `sense_turn_move`: each agent samples the trail at three sensors (left, ahead, right), turns
  towards the strongest (a random turn, from `tack.random` seeded per agent and frame, when the
  middle one is the weakest), steps forward and wraps around the domain;
- `deposit`: each agent adds 1 to its cell with `tack.atomic_add` (agents share cells);
- `diffuse`: a 3x3 mean with periodic wrap, times the evaporation factor, into the other buffer.
The 3x3 mean moves trail around without creating any, so the total trail M obeys
M_next = (M + n_agents) * evaporation exactly (up to rounding). --check checks that law each
frame, that the trail is finite and non-negative and that every agent stays in the domain.
"""
from __future__ import annotations

import sys

import numpy as np
import tack
from _tutorial import Clock, check, close, main, parser, passed, pyplot, save
from tack import random

SENSOR_ANGLE = tack.constant(0.45)  # radians between the middle sensor and the side ones
SENSOR_DISTANCE = tack.constant(6.0)  # cells
TURN = tack.constant(0.35)  # radians per step at most
SPEED = tack.constant(1.0)  # cells per step
EVAPORATION = tack.constant(0.9)


@tack.func
def wrap(v, size):
    """v modulo size, in [0, size) also where rounding leaves the range: v / size may round up
    to an integer (w slightly negative), and w + size may round to size itself."""
    w = v - floor(v / size) * size  # noqa: F821 - kernel builtins need no import
    if w < 0.0:
        w = w + size
    if w >= size:
        w = w - size
    return w


@tack.device_class
class Agents:
    def __init__(self, n: int, width: int, height: int, seed: int = 0):
        rng = np.random.default_rng(seed)
        pos = rng.uniform((0, 0), (width, height), size=(n, 2)).astype(np.float32)
        self.pos = tack.array(pos, dtype=tack.vec2)  # (x, y) per agent
        self.heading = tack.array(rng.uniform(0, 2 * np.pi, n).astype(np.float32))
        self.n = n

    @tack.func
    def sense(self, trail, p, angle):
        d = [cos(angle), sin(angle)]  # noqa: F821
        q = p + SENSOR_DISTANCE * d
        x = int(wrap(q[0], float(trail.shape[1])))
        y = int(wrap(q[1], float(trail.shape[0])))
        return trail[y, x]


@tack.kernel
def sense_turn_move(agents, trail, frame):
    for a in range(agents.n):
        s = random.seed(a, frame)  # an independent stream per agent and frame
        p = agents.pos[a]
        h = agents.heading[a]
        left = agents.sense(trail, p, h + SENSOR_ANGLE)
        ahead = agents.sense(trail, p, h)
        right = agents.sense(trail, p, h - SENSOR_ANGLE)
        u, s = random.uniform(s)
        if ahead >= left and ahead >= right:
            pass  # the middle sensor is strongest: keep going
        elif ahead < left and ahead < right:
            h = h + TURN * (2.0 * u - 1.0)  # both sides stronger: turn at random
        elif left > right:
            h = h + TURN * u
        else:
            h = h - TURN * u
        d = [cos(h), sin(h)]  # noqa: F821
        q = p + SPEED * d
        agents.pos[a] = [wrap(q[0], float(trail.shape[1])), wrap(q[1], float(trail.shape[0]))]
        agents.heading[a] = h


@tack.kernel
def deposit(agents, trail):
    for a in range(agents.n):
        p = agents.pos[a]
        tack.atomic_add(trail, (int(p[1]), int(p[0])), 1.0)


@tack.kernel
def diffuse(trail, out):
    for i, j in tack.ndrange(trail.shape[0], trail.shape[1]):
        h = trail.shape[0]
        w = trail.shape[1]
        total = 0.0
        for di in range(-1, 2):
            for dj in range(-1, 2):
                total += trail[(i + di + h) % h, (j + dj + w) % w]
        out[i, j] = total * (EVAPORATION / 9.0)


def frame_checks(agents: Agents, before: float, after: np.ndarray, width: int, height: int):
    """The law M_next = (M + n) * evaporation, a finite non-negative trail, agents in the domain."""
    total = float(after.astype(np.float64).sum())
    expected = (before + agents.n) * float(EVAPORATION)
    check(abs(total - expected) <= 1e-5 * expected,
          f"total trail {total} != (M + n_agents) * evaporation = {expected}")
    check(np.isfinite(after).all() and after.min() >= 0.0, "the trail is negative or not finite")
    pos = agents.pos.numpy()
    check(((pos >= 0) & (pos < (width, height))).all(), "an agent left the domain")
    return total


def run(args, clock: Clock) -> None:
    width = height = args.size
    n_agents = args.size * args.size // (2 if args.check else 4)
    frames = 12 if args.check else 400
    agents = Agents(n_agents, width, height, seed=7)
    trail, spare = tack.zeros((height, width)), tack.zeros((height, width))
    total = 0.0
    for frame in range(frames):
        clock(sense_turn_move, agents, trail, frame)
        deposit(agents, trail)
        diffuse(trail, spare)
        trail, spare = spare, trail
        if args.check:
            total = frame_checks(agents, total, trail.numpy(), width, height)
    if args.check:
        passed(f"{frames} frames: M_next = (M + n_agents) * evaporation, trail finite and >= 0, "
               "agents in the domain")
        # The steady state of that law: M* = n * evaporation / (1 - evaporation), approached
        # geometrically; after `frames` frames M = M* * (1 - evaporation^frames).
        ev = float(EVAPORATION)
        close(total, n_agents * ev / (1 - ev) * (1 - ev ** frames), "total trail after all frames",
              rtol=1e-4, atol=0.0)
    if args.output:
        plt = pyplot()
        fig, ax = plt.subplots(figsize=(5, 5))
        ax.imshow(np.sqrt(trail.numpy()), cmap="magma", origin="lower")
        ax.set_title(f"physarum, {n_agents} agents, {frames} frames")
        ax.set_axis_off()
        save(fig, args.output)


def cli(argv=None) -> int:
    return main(run, parser(__doc__, size=256, check_size=48), argv)


if __name__ == "__main__":
    sys.exit(cli())
