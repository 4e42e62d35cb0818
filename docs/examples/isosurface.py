"""Isosurface extraction: the surface f = 0 of a sampled volume as an indexed triangle mesh.

    python docs/examples/isosurface.py --arch cpu --check
    python docs/examples/isosurface.py --arch cuda --size 128 --output isosurface.png

Marching cubes in its tetrahedral form (marching tetrahedra): every cube of the grid is split into
the six tetrahedra that share its main diagonal (the Kuhn/Freudenthal split, which matches across
neighbouring cubes), and each tetrahedron holds 0, 1 or 2 triangles by a 16-case table. Every
mesh vertex lies on a grid edge from a sample point p to p + d, d one of the 7 non-zero 0/1
offsets, so vertex `7 * point + d - 1` is shared by all the triangles around that edge: the mesh is
indexed and, for a closed surface, watertight. Four steps, as in `contours.py`:
`edge_vertices` (one crossing point per grid edge), `count_triangles` per cube,
`tack.algorithms.exclusive_scan` of the counts (the total sizes the face array exactly) and
`write_triangles`. The volume is the sphere level set |p - c|^2 - 0.6^2 on [-1, 1]^3.
--check: the counts equal a NumPy count, the scan equals `np.cumsum`; every index is valid and
names a computed vertex; every edge of the mesh is shared by exactly two triangles and
V - E + F = 2 (a sphere); every vertex is within the interpolation error of the sphere (on an edge
of length L, linear interpolation of f puts it at |p|^2 >= r^2 - L^2 / 4, and L <= sqrt(3) h);
the area is close to 4 pi r^2.
"""
from __future__ import annotations

import itertools
import math
import sys

import numpy as np
import tack
from _tutorial import Clock, check, close, main, parser, passed, pyplot
from tack.algorithms import exclusive_scan

RADIUS = 0.6
CENTRE = (0.03, -0.02, 0.01)  # off the grid's symmetry planes


def tetrahedra() -> np.ndarray:
    """The six tetrahedra of a cube as corner masks (bit 0: +x, bit 1: +y, bit 2: +z): the paths
    0 -> e_a -> e_a + e_b -> (1, 1, 1) over the orderings (a, b, c) of the axes."""
    return np.array([[0, 1 << a, (1 << a) | (1 << b), 7]
                     for a, b, _ in itertools.permutations(range(3))], np.int32)


def triangle_table() -> np.ndarray:
    """For each of the 16 inside/outside cases of a tetrahedron, up to two triangles, each corner
    the tetrahedron edge (i, j) it lies on coded as 4 * i + j; -1 where unused."""
    table = np.full((16, 6), -1, np.int32)
    for case in range(16):
        inside = [k for k in range(4) if (case >> k) & 1]
        outside = [k for k in range(4) if not (case >> k) & 1]
        if len(inside) in (1, 3):  # one corner apart from three: one triangle around it
            lone = inside[0] if len(inside) == 1 else outside[0]
            others = [k for k in range(4) if k != lone]
            table[case, :3] = [4 * min(lone, k) + max(lone, k) for k in others]
        elif len(inside) == 2:  # two and two: the quad a-c, a-d, b-d, b-c as two triangles
            (a, b), (c, d) = inside, outside
            pairs = ((a, c), (a, d), (b, d), (b, c))
            ac, ad, bd, bc = (4 * min(u, v) + max(u, v) for u, v in pairs)
            table[case] = [ac, ad, bd, ac, bd, bc]
    return table


@tack.func
def corner(f, cx, cy, cz, mask):
    return f[cz + ((mask >> 2) & 1), cy + ((mask >> 1) & 1), cx + (mask & 1)]


@tack.func
def tet_case(f, tets, t, cx, cy, cz):
    case = 0
    for k in range(4):
        value = corner(f, cx, cy, cz, tets[t, k])
        if value < 0.0:
            case += 1 << k
    return case


@tack.kernel
def edge_vertices(f, verts, x0, h):
    for q in range(verts.shape[0]):
        m = f.shape[2]  # samples per side
        p = q // 7
        d = q % 7 + 1
        x = p % m
        y = (p // m) % m
        z = p // (m * m)
        ex = x + (d & 1)
        ey = y + ((d >> 1) & 1)
        ez = z + ((d >> 2) & 1)
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
def count_triangles(f, tets, table, counts):
    for c in range(counts.shape[0]):
        n = f.shape[2] - 1
        total = 0
        for t in range(6):
            case = tet_case(f, tets, t, c % n, (c // n) % n, c // (n * n))
            for s in range(2):
                if table[case, 3 * s] >= 0:
                    total += 1
        counts[c] = total


@tack.kernel
def write_triangles(f, tets, table, offsets, faces):
    for c in range(offsets.shape[0]):
        n = f.shape[2] - 1
        m = n + 1
        cx = c % n
        cy = (c // n) % n
        cz = c // (n * n)
        slot = offsets[c]
        for t in range(6):
            case = tet_case(f, tets, t, cx, cy, cz)
            for s in range(2):
                if table[case, 3 * s] >= 0:
                    for v in range(3):
                        code = table[case, 3 * s + v]
                        mi = tets[t, code // 4]
                        mj = tets[t, code % 4]
                        x = cx + (mi & 1)
                        y = cy + ((mi >> 1) & 1)
                        z = cz + ((mi >> 2) & 1)
                        faces[slot, v] = 7 * ((z * m + y) * m + x) + (mi ^ mj) - 1
                    slot += 1


def sample(n: int):
    h = 2.0 / n
    z, y, x = np.mgrid[0 : n + 1, 0 : n + 1, 0 : n + 1] * h - 1.0
    cx, cy, cz = CENTRE
    f = (x - cx) ** 2 + (y - cy) ** 2 + (z - cz) ** 2 - RADIUS**2
    return f.astype(np.float32), h


def extract(f_host: np.ndarray, h: float):
    n = f_host.shape[0] - 1
    f, tets, table = tack.array(f_host), tack.array(tetrahedra()), tack.array(triangle_table())
    verts = tack.empty(7 * (n + 1) ** 3, tack.vec3)
    edge_vertices(f, verts, -1.0, h)
    counts, offsets = tack.zeros(n**3, tack.i32), tack.zeros(n**3, tack.i32)
    count_triangles(f, tets, table, counts)
    total = int(exclusive_scan(counts, offsets))
    faces = tack.empty((total, 3), tack.i32)
    write_triangles(f, tets, table, offsets, faces)
    return verts.numpy(), faces.numpy(), counts.numpy(), offsets.numpy()


def numpy_counts(f: np.ndarray) -> np.ndarray:
    """Triangles per cube, counted with NumPy: per tetrahedron, 1 for a 1-3 split, 2 for 2-2."""
    neg = (f < 0).astype(np.int32)
    n = f.shape[0] - 1
    total = np.zeros((n, n, n), np.int32)
    for tet in tetrahedra():
        inside = sum(neg[(m >> 2) & 1 : n + ((m >> 2) & 1), (m >> 1) & 1 : n + ((m >> 1) & 1),
                         m & 1 : n + (m & 1)] for m in tet)
        total += np.select([inside == 2, (inside == 1) | (inside == 3)], [2, 1], 0)
    return total.ravel()


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
    passed("watertight: every edge in two triangles, V - E + F = 2")
    radius = np.linalg.norm(verts[used] - np.array(CENTRE), axis=1)
    close(np.abs(radius - RADIUS).max(), 0.0, "sphere residual", rtol=0.0,
          atol=RADIUS - np.sqrt(RADIUS**2 - 3 * h * h / 4) + 1e-6)
    a, b, c = (verts[faces[:, k]] for k in range(3))
    area = 0.5 * np.linalg.norm(np.cross(b - a, c - a), axis=1).sum()
    close(area, 4 * np.pi * RADIUS**2, "surface area ~ 4 pi r^2", rtol=2 * h, atol=0.0)


def run(args, clock: Clock) -> None:
    f, h = sample(args.size)
    for _ in range(3 if args.check else 5):  # timed as a whole: vertices, count, scan, write
        verts, faces, counts, offsets = clock(extract, f, h)
    if args.check:
        check((counts == numpy_counts(f)).all(), "triangle counts differ from NumPy's")
        check((offsets == np.cumsum(counts) - counts).all(), "the scan differs from np.cumsum")
        passed("counts equal NumPy's; exclusive_scan equals np.cumsum")
        check_mesh(verts, faces, h)
    if args.output:
        plt = pyplot()
        from mpl_toolkits.mplot3d.art3d import Poly3DCollection

        fig = plt.figure(figsize=(4, 4))
        ax = fig.add_subplot(projection="3d")
        tris = verts[faces]
        normal = np.cross(tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0])
        normal /= np.maximum(np.linalg.norm(normal, axis=1, keepdims=True), 1e-12)
        shade = 0.2 + 0.8 * np.abs(normal @ np.array([0.4, -0.5, 0.77]))  # a light up and left
        ax.add_collection3d(Poly3DCollection(tris, facecolors=plt.cm.viridis(shade),
                                             edgecolor="none"))
        ax.set(xlim=(-0.7, 0.7), ylim=(-0.7, 0.7), zlim=(-0.7, 0.7), box_aspect=(1, 1, 1))
        ax.set_title(f"{len(faces)} triangles")
        ax.set_axis_off()
        fig.savefig(args.output, dpi=80, bbox_inches="tight")


def cli(argv=None) -> int:
    return main(run, parser(__doc__, size=96, check_size=12), argv)


if __name__ == "__main__":
    sys.exit(cli())
