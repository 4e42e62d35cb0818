"""Constant tables and the kernels that index them (docs/language.md, "Constants"): a
marching-squares case table (16 rows), a marching-cubes edge table (256 entries), float tables
(typed and weak). Run on every engine by tests/exec/test_const_tables.py, rendered by
tests/render/test_tables.py and tests/julia/test_julia153_tables.py."""
from __future__ import annotations

import tack

# Marching squares: corners (bit 0 bottom-left, 1 bottom-right, 2 top-right, 3 top-left) inside
# the contour give the case; each case lists up to two segments as pairs of cell edges (0 bottom,
# 1 right, 2 top, 3 left), -1 for none. 16 rows of 4: a table, not a 4×4 matrix.
MS_SEGMENTS = tack.constant((
    (-1, -1, -1, -1), (3, 0, -1, -1), (0, 1, -1, -1), (3, 1, -1, -1),
    (1, 2, -1, -1), (3, 0, 1, 2), (0, 2, -1, -1), (3, 2, -1, -1),
    (2, 3, -1, -1), (2, 0, -1, -1), (0, 1, 2, 3), (2, 1, -1, -1),
    (1, 3, -1, -1), (1, 0, -1, -1), (0, 3, -1, -1), (-1, -1, -1, -1)), tack.i32)
MS_COUNT = tack.constant((0, 1, 1, 1, 1, 2, 1, 1, 1, 1, 2, 1, 1, 1, 1, 0))  # untyped: i32


# Marching cubes' edge table, computed from the cube: edge e joins corners (a, b), and case c
# crosses it when exactly one of the two corners is inside.
CUBE_EDGES = ((0, 1), (1, 2), (2, 3), (3, 0), (4, 5), (5, 6), (6, 7), (7, 4),
              (0, 4), (1, 5), (2, 6), (3, 7))
EDGE_TABLE = tack.constant(tuple(
    sum(1 << e for e, (a, b) in enumerate(CUBE_EDGES) if (c >> a & 1) != (c >> b & 1))
    for c in range(256)), tack.i32)


GAUSS = tack.constant((0.0625, 0.1, 0.3, 0.7, 0.1, 0.0001))  # untyped floats: weak
OFFSETS = tack.constant(tuple((0.5 * k, -0.25 * k, 0.1 * k) for k in range(8)), tack.f32)


@tack.kernel
def marching_squares(field, level, count, segs):
    for c in range(count.shape[0]):
        w = field.shape[1] - 1
        y = c // w
        x = c % w
        case = 0
        if field[y, x] > level:
            case |= 1
        if field[y, x + 1] > level:
            case |= 2
        if field[y + 1, x + 1] > level:
            case |= 4
        if field[y + 1, x] > level:
            case |= 8
        count[c] = MS_COUNT[case]
        for k in range(4):
            segs[c, k] = MS_SEGMENTS[case][k]


@tack.kernel
def cube_edges(cases, out, rows):
    for i in range(cases.shape[0]):
        out[i] = EDGE_TABLE[cases[i]]
        seg = MS_SEGMENTS[cases[i] % 16]  # a row of 4: a vector
        rows[i] = seg[0] + MS_SEGMENTS[cases[i] % 16].y * 16 + MS_SEGMENTS[cases[i] % 16, 2] * 256


@tack.kernel
def weighted(x, k, out, shift):
    for i in range(x.shape[0]):
        out[i] = x[i] * GAUSS[k[i]]  # two statements: no multiply-add contraction
        shift[i] = OFFSETS[k[i]][1] + OFFSETS[k[i], 2]


OFFSETS_T = tack.constant(tuple(tuple(range(8)) for _ in range(3)), tack.i32)


@tack.func
def edges_of(c):
    return EDGE_TABLE[c & 255]


@tack.kernel
def through_func(idx, out):
    for i in range(idx.shape[0]):
        out[i] = edges_of(idx[i]) + OFFSETS_T[2][idx[i] % 8]


@tack.kernel
def lookup(idx, out):
    for i in range(idx.shape[0]):
        out[i] = EDGE_TABLE[idx[i]] + MS_SEGMENTS[idx[i], 3] * 10000
