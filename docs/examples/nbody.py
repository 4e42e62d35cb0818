"""N-body accelerations, a plain O(n^2) kernel and a tiled one through workgroup shared memory.

    python docs/examples/nbody.py --arch cpu --check
    python docs/examples/nbody.py --arch cuda --size 65536 --output nbody.png

a_i = sum over j of r_ij / (r_ij . r_ij + 0.01)^1.5 with r_ij = p_j - p_i (unit masses, a
softening of 0.01; the j = i term is zero). `accel_plain` runs on every engine: one iteration per
body, reading every other body from global memory. `accel_tiled` is the GPU formulation (GPU Gems
3, chapter 31): each 256-lane workgroup copies 256 bodies into a shared tile, waits at a barrier,
lets every lane read the whole tile, and waits again before the next tile overwrites it. It needs
workgroups, so it runs where `tack.default_device().supports_workgroups` (CUDA, the simulator,
the Julia engine) and needs n to be a multiple of 256 (sizes are rounded up). --check compares with
a float64 NumPy reference (atol=8e-4, rtol=3e-5) and, where both run, tiled with plain.
"""
from __future__ import annotations

import sys

import numpy as np
import tack
from _tutorial import Clock, close, main, parser, pyplot, save

EPS2 = tack.constant(0.01)  # softening squared


@tack.kernel
def accel_plain(pos, acc):
    for i in range(pos.shape[0]):
        p = pos[i]
        a = [0.0, 0.0, 0.0]
        for j in range(pos.shape[0]):
            r = pos[j] - p
            d = r.dot(r) + EPS2
            a += r / (d * sqrt(d))  # noqa: F821 - kernel builtins need no import
        acc[i] = a


@tack.kernel
def accel_tiled(pos, acc):
    for i in range(pos.shape[0]):
        tx = tack.shared(tack.f32, 256)  # one 256-body tile, one array per coordinate
        ty = tack.shared(tack.f32, 256)
        tz = tack.shared(tack.f32, 256)
        lane = tack.thread_id()
        p = pos[i]
        a = [0.0, 0.0, 0.0]
        for base in range(0, pos.shape[0], 256):
            q = pos[base + lane]
            tx[lane] = q.x
            ty[lane] = q.y
            tz[lane] = q.z
            tack.barrier()  # the tile is complete
            for j in range(256):
                r = [tx[j] - p.x, ty[j] - p.y, tz[j] - p.z]
                d = r.dot(r) + EPS2
                a += r / (d * sqrt(d))  # noqa: F821
            tack.barrier()  # every lane is done with the tile before it is overwritten
        acc[i] = a


def bodies(n: int) -> np.ndarray:
    return np.random.default_rng(42).normal(size=(n, 3)).astype(np.float32)


def reference(pos: np.ndarray) -> np.ndarray:
    p = pos.astype(np.float64)
    acc = np.zeros_like(p)
    for start in range(0, len(p), 1024):  # blocks of rows bound the memory used
        r = p[None, :, :] - p[start : start + 1024, None, :]
        d = (r * r).sum(-1) + 0.01
        acc[start : start + 1024] = (r / (d * np.sqrt(d))[..., None]).sum(1)
    return acc


def run(args, clock: Clock) -> None:
    n = -(-args.size // 256) * 256  # a multiple of 256: whole workgroups for the tiled kernel
    pos = tack.array(bodies(n), dtype=tack.vec3)
    tiled = tack.default_device().supports_workgroups
    kernel = accel_tiled if tiled else accel_plain
    acc = tack.empty(n, tack.vec3)
    for _ in range(3 if args.check else 10):
        clock(kernel, pos, acc)
    result = acc.numpy()
    print(f"  {kernel.__name__} on {n} bodies")
    if args.check:
        expected = reference(pos.numpy())
        plain = tack.empty(n, tack.vec3)
        accel_plain(pos, plain)
        close(plain.numpy(), expected, "plain against float64 NumPy", rtol=3e-5, atol=8e-4)
        if tiled:
            close(result, expected, "tiled against float64 NumPy", rtol=3e-5, atol=8e-4)
            # the same sums in the same order; FMA contraction may differ between the two kernels
            close(result, plain.numpy(), "tiled against plain", rtol=1e-5, atol=2e-4)
    if args.output:
        plt = pyplot()
        p = pos.numpy()
        a = np.linalg.norm(result, axis=1)
        r = np.linalg.norm(p, axis=1)
        fig, (left, right) = plt.subplots(1, 2, figsize=(8, 3.8), layout="constrained")
        # The bodies seen along z, the strongest pulled drawn last, and the acceleration of a
        # sample of them as arrows: every body is pulled towards the dense centre.
        order = np.argsort(a)
        dots = left.scatter(p[order, 0], p[order, 1], s=3, c=a[order], cmap="plasma",
                            linewidths=0)
        shown = order[:: max(1, n // 96)]
        left.quiver(p[shown, 0], p[shown, 1], result[shown, 0], result[shown, 1], color="0.2",
                    angles="xy", scale_units="xy", scale=a.max() / 0.4, width=0.004)
        left.set(aspect="equal", xlim=(-3, 3), ylim=(-3, 3), xlabel="x", ylabel="y",
                 title=f"{n} bodies seen along z")
        fig.colorbar(dots, ax=left, label="|a| (colour)", shrink=0.8)
        # |a| against the distance from the centre: the pull grows with the mass inside r, then
        # falls off as 1/r^2 once most of the mass is inside.
        right.scatter(r, a, s=2, c="#6a3d9a", alpha=0.5, linewidths=0)
        right.set(xlabel="distance from the centre", ylabel="|a|", title="|a| against radius")
        save(fig, args.output)


def cli(argv=None) -> int:
    return main(run, parser(__doc__, size=4096, check_size=256), argv)


if __name__ == "__main__":
    sys.exit(cli())
