"""Isosurface extraction: the surface f = 0 of a sampled volume as an indexed triangle mesh.

    python docs/examples/isosurface.py --arch cpu --check
    python docs/examples/isosurface.py --arch cuda --size 128 --output isosurface.png

Classic marching cubes (Lorensen & Cline): each cube of the grid looks up its case (one bit per
corner inside, f < 0) in the standard 256-entry edge table and 256 x 16 triangle table (Paul
Bourke's, in `_mc_tables.py`: constant tables, `tack.constant` of nested tuples), which give up
to five triangles whose corners lie on the cube's crossed edges. Every mesh vertex lies on a grid
edge from a sample point p along +x, +y or +z, so vertex `3 * point + axis` is shared by all the
triangles around that edge and the mesh is indexed. Four steps, as in `contours.py`:
`edge_vertices` (one crossing point per grid edge), `count_triangles` per cube,
`tack.algorithms.exclusive_scan` of the counts (the total sizes the face array exactly) and
`write_triangles`. The volume is the sphere level set |p - c|^2 - 0.6^2 on [-1, 1]^3.
--check: the copied tables agree with their definition (an edge is crossed when its corners
differ; each case's triangles use exactly its crossed edges); the counts equal a NumPy count of the
same cases, the scan equals `np.cumsum`; every index is valid and names a computed vertex; every
vertex is within the interpolation error of the sphere (on an edge of length h, linear
interpolation of the convex f puts it at r^2 - h^2 / 4 <= |p - c|^2 <= r^2); the area is close
to 4 pi r^2. Classic marching cubes can leave holes where a cube face is ambiguous (diagonal
corners inside, the other two outside); a sphere sampled on a grid has no such face (on a square,
f(p00) + f(p11) = f(p10) + f(p01)), so the check also asks for a watertight mesh: every edge in
exactly two triangles and V - E + F = 2; and, as the table orders each triangle's edges, a
consistently oriented one (each directed edge once, every normal towards f < 0).
"""
from __future__ import annotations

import math
import sys

import numpy as np
import tack
from _mc_tables import CORNER_X, CORNER_Y, CORNER_Z, EDGE_ENDS, EDGE_TABLE, TRI_TABLE
from _tutorial import Clock, check, close, main, parser, passed, pyplot, save
from tack.algorithms import exclusive_scan

RADIUS = 0.6
CENTRE = (0.03, -0.02, 0.01)  # off the grid's symmetry planes
# Cube edge e as a grid edge: its lower corner and its axis (0: x, 1: y, 2: z), from EDGE_ENDS.
EDGE_LOW = tack.constant((0, 1, 3, 0, 4, 5, 7, 4, 0, 1, 2, 3))
EDGE_AXIS = tack.constant((0, 1, 0, 1, 0, 1, 0, 1, 2, 2, 2, 2))
# The step along each axis (a grid edge's far end).
STEP_X, STEP_Y, STEP_Z = (tack.constant((1, 0, 0)), tack.constant((0, 1, 0)),
                          tack.constant((0, 0, 1)))


@tack.func
def cube_case(f, cx, cy, cz):
    case = 0
    for k in range(8):
        if f[cz + CORNER_Z[k], cy + CORNER_Y[k], cx + CORNER_X[k]] < 0.0:
            case += 1 << k
    return case


@tack.kernel
def edge_vertices(f, verts, x0, h):
    for q in range(verts.shape[0]):
        m = f.shape[2]  # samples per side
        p = q // 3
        axis = q % 3
        x = p % m
        y = (p // m) % m
        z = p // (m * m)
        ex = x + STEP_X[axis]
        ey = y + STEP_Y[axis]
        ez = z + STEP_Z[axis]
        vertex = [math.nan, math.nan, math.nan]  # no crossing on this edge
        if ex < m and ey < m and ez < m:
            a = f[z, y, x]
            b = f[ez, ey, ex]
            if (a < 0.0) != (b < 0.0):
                t = a / (a - b)
                start = [float(x), float(y), float(z)]
                end = [float(ex), float(ey), float(ez)]
                vertex = x0 + h * (start + t * (end - start))
        verts[q] = vertex


@tack.kernel
def count_triangles(f, counts):
    for c in range(counts.shape[0]):
        n = f.shape[2] - 1
        case = cube_case(f, c % n, (c // n) % n, c // (n * n))
        total = 0
        if EDGE_TABLE[case] != 0:  # some edge crossed: the cube holds 1 to 5 triangles
            for s in range(5):
                if TRI_TABLE[case, 3 * s] >= 0:
                    total += 1
        counts[c] = total


@tack.kernel
def write_triangles(f, offsets, faces):
    for c in range(offsets.shape[0]):
        n = f.shape[2] - 1
        m = n + 1
        cx = c % n
        cy = (c // n) % n
        cz = c // (n * n)
        case = cube_case(f, cx, cy, cz)
        slot = offsets[c]
        for s in range(5):
            if TRI_TABLE[case, 3 * s] >= 0:
                for v in range(3):
                    e = TRI_TABLE[case, 3 * s + v]
                    k = EDGE_LOW[e]
                    x = cx + CORNER_X[k]
                    y = cy + CORNER_Y[k]
                    z = cz + CORNER_Z[k]
                    faces[slot, v] = 3 * ((z * m + y) * m + x) + EDGE_AXIS[e]
                slot += 1


def sample(n: int):
    h = 2.0 / n
    z, y, x = np.mgrid[0 : n + 1, 0 : n + 1, 0 : n + 1] * h - 1.0
    cx, cy, cz = CENTRE
    f = (x - cx) ** 2 + (y - cy) ** 2 + (z - cz) ** 2 - RADIUS**2
    return f.astype(np.float32), h


def extract(f_host: np.ndarray, h: float):
    n = f_host.shape[0] - 1
    f = tack.array(f_host)
    verts = tack.empty(3 * (n + 1) ** 3, tack.vec3)
    edge_vertices(f, verts, -1.0, h)
    counts, offsets = tack.zeros(n**3, tack.i32), tack.zeros(n**3, tack.i32)
    count_triangles(f, counts)
    total = int(exclusive_scan(counts, offsets))
    faces = tack.empty((total, 3), tack.i32)
    write_triangles(f, offsets, faces)
    return verts.numpy(), faces.numpy(), counts.numpy(), offsets.numpy()


def check_tables() -> None:
    """The copied tables against their definition, for every case."""
    edges, tris = np.asarray(EDGE_TABLE), np.asarray(TRI_TABLE)
    corners = np.stack([np.asarray(CORNER_X), np.asarray(CORNER_Y), np.asarray(CORNER_Z)], 1)
    low, axis = np.asarray(EDGE_LOW), np.asarray(EDGE_AXIS)
    for e, (a, b) in enumerate(EDGE_ENDS):
        check((corners[low[e]] == np.minimum(corners[a], corners[b])).all()
              and np.flatnonzero(corners[a] != corners[b]).tolist() == [axis[e]],
              f"EDGE_LOW/EDGE_AXIS of edge {e}")
    for case in range(256):
        crossed = sum(1 << e for e, (a, b) in enumerate(EDGE_ENDS)
                      if (case >> a) & 1 != (case >> b) & 1)
        check(edges[case] == crossed, f"EDGE_TABLE[{case}] = {edges[case]:#x}, not {crossed:#x}")
        row = tris[case]
        used = row[row >= 0]
        check(len(used) % 3 == 0 and (row[len(used):] == -1).all(), f"TRI_TABLE[{case}] padding")
        check(sum(1 << int(e) for e in set(used)) == crossed, f"TRI_TABLE[{case}]'s edges")
    passed("EDGE_TABLE and TRI_TABLE agree with the corner and edge numbering (256 cases)")


def numpy_counts(f: np.ndarray) -> np.ndarray:
    """Triangles per cube, counted with NumPy: the same case per cube, looked up in TRI_TABLE."""
    neg = (f < 0).astype(np.int32)
    n = f.shape[0] - 1
    case = sum(neg[dz : n + dz, dy : n + dy, dx : n + dx] << k for k, (dx, dy, dz)
               in enumerate(zip(CORNER_X, CORNER_Y, CORNER_Z)))
    return ((np.asarray(TRI_TABLE)[case] >= 0).sum(axis=-1) // 3).ravel()


def check_mesh(verts: np.ndarray, faces: np.ndarray, h: float) -> None:
    check(faces.ndim == 2 and faces.shape[1] == 3 and len(faces) > 0, f"faces {faces.shape}")
    check(((faces >= 0) & (faces < len(verts))).all(), "a face index is out of range")
    used = np.unique(faces)
    check(np.isfinite(verts[used]).all(), "a face names an edge without a crossing")
    check((faces[:, 0] != faces[:, 1]).all() and (faces[:, 1] != faces[:, 2]).all()
          and (faces[:, 0] != faces[:, 2]).all(), "a triangle repeats a vertex")
    passed(f"{len(faces)} triangles on {len(used)} vertices: indices valid, vertices computed")
    edges = np.sort(faces[:, [0, 1, 1, 2, 2, 0]].reshape(-1, 2), axis=1)
    unique, uses = np.unique(edges, axis=0, return_counts=True)
    check((uses == 2).all(), "an edge is not shared by exactly two triangles (a hole)")
    euler = len(used) - len(unique) + len(faces)
    check(euler == 2, f"V - E + F = {euler}, a sphere has 2")
    passed("watertight (no ambiguous face on a sphere): every edge in two triangles, V - E + F = 2")
    directed = np.unique(faces[:, [0, 1, 1, 2, 2, 0]].reshape(-1, 2), axis=0)
    a, b, c = (verts[faces[:, k]] for k in range(3))
    inward = np.einsum("ij,ij->i", np.cross(b - a, c - a), np.array(CENTRE) - (a + b + c) / 3)
    check(len(directed) == 3 * len(faces) and (inward > 0).all(), "a triangle is turned over")
    passed("oriented: each directed edge in one triangle, every normal towards f < 0")
    radius = np.linalg.norm(verts[used] - np.array(CENTRE), axis=1)
    inner = np.sqrt(RADIUS**2 - h * h / 4)
    close(radius, np.full_like(radius, (RADIUS + inner) / 2), "sphere residual", rtol=0.0,
          atol=(RADIUS - inner) / 2 + 1e-6)
    area = 0.5 * np.linalg.norm(np.cross(b - a, c - a), axis=1).sum()
    # The triangles are chords of the sphere: the area is short by O(h^2) (3% at h = 1/6).
    close(area, 4 * np.pi * RADIUS**2, "surface area ~ 4 pi r^2", rtol=2 * h * h, atol=0.0)


def run(args, clock: Clock) -> None:
    f, h = sample(args.size)
    for _ in range(3 if args.check else 5):  # timed as a whole: vertices, count, scan, write
        verts, faces, counts, offsets = clock(extract, f, h)
    if args.check:
        check_tables()
        check((counts == numpy_counts(f)).all(), "triangle counts differ from NumPy's")
        check((offsets == np.cumsum(counts) - counts).all(), "the scan differs from np.cumsum")
        passed("counts equal NumPy's; exclusive_scan equals np.cumsum")
        check_mesh(verts, faces, h)
    if args.output:
        plt = pyplot()
        from mpl_toolkits.mplot3d.art3d import Poly3DCollection

        # Lit from up and left (Lambert shading of each triangle's own normal, which the check
        # proves points inwards), with every triangle's edges drawn: the mesh is the subject.
        fig = plt.figure(figsize=(4.5, 4.5))
        ax = fig.add_subplot(projection="3d")
        tris = verts[faces]
        normal = np.cross(tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0])
        normal /= np.maximum(np.linalg.norm(normal, axis=1, keepdims=True), 1e-12)
        light = np.array([-0.2, -1.2, 1.0])  # towards the light: the camera's side, up, left
        light /= np.linalg.norm(light)
        shade = np.clip(-normal @ light, 0.0, 1.0)  # outward normal . light
        colour = plt.cm.Blues(0.9 - 0.7 * shade)  # lit: pale
        ax.add_collection3d(Poly3DCollection(tris, facecolors=colour, edgecolors="#0b2545",
                                             linewidths=0.2))
        ax.view_init(elev=22, azim=-65)
        ax.set(xlim=(-0.62, 0.62), ylim=(-0.62, 0.62), zlim=(-0.62, 0.62), box_aspect=None)
        ax.set_box_aspect((1, 1, 1), zoom=1.35)  # the sphere fills the picture
        ax.set_title(f"{len(faces)} triangles, {args.size}^3 cubes")
        ax.set_axis_off()
        save(fig, args.output)


def cli(argv=None) -> int:
    return main(run, parser(__doc__, size=96, check_size=12), argv)


if __name__ == "__main__":
    sys.exit(cli())
