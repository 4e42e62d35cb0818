"""Tuple constants longer than 4 entries are constant tables, indexed at a
runtime index (docs/language.md, "Constants"): a marching-squares case table (16 rows), a
marching-cubes edge table (256 entries), float tables (typed and weak), 1-D and 2-D.

The kernels run on every engine (the `engine` fixture: the CPU, the simulator, a GPU, Julia);
tests/julia/test_julia153_tables.py checks how the tables render for KernelAbstractions."""
from __future__ import annotations

import numpy as np
import pytest
import tack

from tests.kernels.tables import (
    EDGE_TABLE,
    GAUSS,
    MS_COUNT,
    MS_SEGMENTS,
    OFFSETS,
    OFFSETS_T,
    cube_edges,
    lookup,
    marching_squares,
    through_func,
    weighted,
)


def marching_squares_ref(field, level):
    inside = field > level
    case = (inside[:-1, :-1] * 1 + inside[:-1, 1:] * 2 + inside[1:, 1:] * 4
            + inside[1:, :-1] * 8).reshape(-1)
    return np.array(MS_COUNT)[case], np.array(MS_SEGMENTS)[case]


def test_marching_squares_case_table(engine):
    g = np.random.default_rng(1)
    field = g.normal(size=(9, 13)).astype(np.float32)
    n = 8 * 12
    count, segs = tack.zeros(n, tack.i32), tack.zeros((n, 4), tack.i32)
    marching_squares(tack.array(field), 0.1, count, segs)
    want_count, want_segs = marching_squares_ref(field, np.float32(0.1))
    np.testing.assert_array_equal(count.numpy(), want_count)
    np.testing.assert_array_equal(segs.numpy(), want_segs)
    assert set(want_count) == {0, 1, 2}  # the field reaches the ambiguous cases too


def test_marching_cubes_edge_table_256(engine):
    cases = np.arange(256, dtype=np.int32)[::-1].copy()
    out, rows = tack.zeros(256, tack.i32), tack.zeros(256, tack.i32)
    cube_edges(tack.array(cases), out, rows)
    np.testing.assert_array_equal(out.numpy(), np.array(EDGE_TABLE)[cases])
    assert out.numpy()[cases == 1][0] == 0x109 and out.numpy()[cases == 255][0] == 0  # classic
    s = np.array(MS_SEGMENTS)[cases % 16]
    np.testing.assert_array_equal(rows.numpy(), s[:, 0] + s[:, 1] * 16 + s[:, 2] * 256)


def test_float_tables_weak_and_typed(engine):
    k = np.array([0, 1, 2, 3, 4, 5, 5, 0], np.int32)
    offsets = np.array(OFFSETS, np.float32)
    for dtype in (np.float32, np.float64):
        x = np.linspace(-2, 2, 8).astype(dtype)
        t = tack.f64 if dtype is np.float64 else tack.f32
        out, shift = tack.zeros(8, t), tack.zeros(8, t)
        weighted(tack.array(x), tack.array(k), out, shift)
        gauss = np.array(GAUSS, dtype)  # weak: the exact values at the kernel's precision
        np.testing.assert_array_equal(out.numpy(), x * gauss[k])
        assert out.numpy()[5] == x[5] * dtype(0.0001)
        np.testing.assert_array_equal(shift.numpy(), (offsets[k, 1] + offsets[k, 2]).astype(
            dtype))


def test_table_index_outside_reads_the_last_entry(engine):
    idx = np.array([-1, 0, 255, 256, 2**31 - 1, -2**31], np.int32)
    out = tack.zeros(6, tack.i32)
    lookup(tack.array(idx), out)
    last = int(np.array(EDGE_TABLE)[-1])
    flat = np.array(MS_SEGMENTS).reshape(-1)
    for got, i in zip(out.numpy(), idx):
        e = int(np.array(EDGE_TABLE)[i]) if 0 <= i < 256 else last
        f = int(i) * 4 + 3
        s = int(flat[f]) if 0 <= f < 64 else int(flat[-1])
        assert got == e + s * 10000, i


@tack.kernel
def lookup2(idx, out):
    for i in range(idx.shape[0]):
        out[i] = EDGE_TABLE[idx[i]] + MS_SEGMENTS[idx[i] % 16][idx[i] // 32]


def test_table_index_outside_is_index_error_in_debug_mode(engine):
    tack.set_debug(True)
    with pytest.raises(IndexError, match=r"EDGE_TABLE\[idx\[i\]\] at .*test_const_"
                                         r"tables.py:\d+, column 18: index 256 of dimension 0 "
                                         r"is outside \[0, 256\)"):
        lookup2(tack.array(np.array([3, 256], np.int32)), tack.zeros(2, tack.i32))
    with pytest.raises(IndexError, match=r"MS_SEGMENTS\[idx\[i\] % 16\]\[idx\[i\] // 32\] "
                                         r"at .*: index 4 of dimension 1 is outside \[0, 4\)"):
        lookup2(tack.array(np.array([3, 130], np.int32)), tack.zeros(2, tack.i32))
    out = tack.zeros(2, tack.i32)
    lookup2(tack.array(np.array([3, 100], np.int32)), out)  # in range: no error
    segs = np.array(MS_SEGMENTS)
    assert list(out.numpy()) == [int(np.array(EDGE_TABLE)[3]) + segs[3, 0],
                                 int(np.array(EDGE_TABLE)[100]) + segs[4, 3]]


def test_table_index_outside_is_a_check_finding(engine):
    report = tack.check(lookup, tack.array(np.array([3, 300, -2], np.int32)),
                        tack.zeros(3, tack.i32))
    found = [f for f in report.findings if f.kind == "bounds"]
    assert {f.array for f in found} == {"EDGE_TABLE", "MS_SEGMENTS"}
    edge = next(f for f in found if f.array == "EDGE_TABLE")
    assert edge.index == 300 and edge.extent == 256
    assert "constant table 'EDGE_TABLE' indexed at" in edge.message
    clean = tack.check(lookup, tack.array(np.array([3, 7], np.int32)), tack.zeros(2, tack.i32))
    assert not [f for f in clean.findings if f.kind == "bounds"]


def test_table_ir_form_and_rejections():
    idx, out = tack.array(np.arange(4, dtype=np.int32)), tack.zeros(4, tack.i32)
    text = tack.inspect(lookup, idx, out, mode="ir")
    assert "table EDGE_TABLE: i32[256] = (0, 265, 515, 778, 1030, 1295, 1541, 1804, ...)" in text
    assert "table MS_SEGMENTS: i32[16, 4]" in text

    @tack.kernel
    def as_value(out):
        for i in range(out.shape[0]):
            t = EDGE_TABLE
            out[i] = t[0]

    with pytest.raises(tack.UnsupportedSyntaxError, match="constant table 'EDGE_TABLE' used as "
                                                          "a value"):
        as_value(out)

    @tack.kernel
    def too_many(out):
        for i in range(out.shape[0]):
            out[i] = MS_SEGMENTS[i, 0, 1]

    with pytest.raises(TypeError, match="3 indices for the 2-dimensional constant table "
                                        "'MS_SEGMENTS'"):
        too_many(out)

    @tack.kernel
    def wide_row(out):
        for i in range(out.shape[0]):
            r = OFFSETS_T[i]
            out[i] = r[0]

    with pytest.raises(TypeError, match="a row of the constant table 'OFFSETS_T' has 8 entries"):
        wide_row(out)

    @tack.kernel
    def passed(out):
        for i in range(out.shape[0]):
            out[i] = first_entry(EDGE_TABLE)

    with pytest.raises(tack.UnsupportedSyntaxError, match="constant table 'EDGE_TABLE' used as "
                                                          "a value at line"):
        passed(out)

    @tack.kernel
    def stored(out):
        for i in range(out.shape[0]):
            MS_SEGMENTS[i][0] += 1

    with pytest.raises(tack.UnsupportedSyntaxError, match="store into the constant table "
                                                          "'MS_SEGMENTS'"):
        stored(out)


@tack.func
def first_entry(t):
    return t[0]


def test_table_in_device_function(engine):
    idx = np.arange(-3, 300, 7, dtype=np.int32)
    out = tack.zeros(idx.size, tack.i32)
    through_func(tack.array(idx), out)
    np.testing.assert_array_equal(out.numpy(), np.array(EDGE_TABLE)[idx & 255] + idx % 8)


@tack.kernel
def table_sums(out):
    for i in range(out.shape[0]):
        s = 0
        for j in range(len(EDGE_TABLE)):  # len() of a table: its entry (row) count, a literal
            s += EDGE_TABLE[j] & (1 << i)
        out[i] = s + len(MS_SEGMENTS) * 1000000


def test_table_len_and_loop_over_a_table(engine):
    out = tack.zeros(12, tack.i32)
    table_sums(out)
    edges = np.array(EDGE_TABLE)
    np.testing.assert_array_equal(out.numpy(), [int((edges & (1 << i)).sum()) + 16000000
                                                for i in range(12)])


@tack.kernel
def unpack_table(out):
    for c in range(len(MS_SEGMENTS)):  # a launch bound: counted as the literal 16
        out[c] = MS_SEGMENTS[c][0] * 4 + MS_COUNT[c]


def test_table_len_as_launch_bound(engine):
    out = tack.zeros(20, tack.i32)
    unpack_table(out)
    want = np.zeros(20, np.int32)
    want[:16] = np.array(MS_SEGMENTS)[:, 0] * 4 + np.array(MS_COUNT)
    np.testing.assert_array_equal(out.numpy(), want)
