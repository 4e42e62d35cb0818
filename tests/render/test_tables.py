"""What the LLVM renderers make of a constant table — one private read-only
global per table, read by GEP + load (no chain of selects); on NVPTX a `.global` array read with
`ld.global.nc` (render/llvm/ptx.py says why not `.const`)."""
from __future__ import annotations

import re

import numpy as np
import pytest
import tack
from tack.compiler import specialize
from tack.render.llvm.printer import render
from tack.toolchain.llvm_host import optimize

from tests.kernels import tables as T


@pytest.fixture(autouse=True)
def cpu():
    tack.set_default_device("cpu")
    yield


def _lookup_ir():
    idx = tack.array(np.arange(8, dtype=np.int32))
    return specialize(T.lookup, [idx, tack.zeros(8, tack.i32)])


def test_llvm_table_is_a_private_constant_global():
    text = render(_lookup_ir())
    edge = re.search(r'@"tack_lookup.table.EDGE_TABLE" = private unnamed_addr constant '
                     r'\[256 x i32\] \[i32 0, i32 265, i32 515, [^\]]*\], align 4', text)
    assert edge, text[:2000]
    assert '@"tack_lookup.table.MS_SEGMENTS" = private unnamed_addr constant [64 x i32]' in text
    # one clamp per read (an unsigned compare and a select), not a select per entry
    assert text.count(" select ") <= 4


def test_llvm_table_read_survives_o3_as_a_load():
    opt = optimize(render(_lookup_ir()))
    assert "@tack_lookup.table.EDGE_TABLE = private unnamed_addr constant [256 x i32]" in opt
    body = opt[opt.index("define"):]
    assert re.search(r"getelementptr inbounds (i32|\[256 x i32\]), ptr "
                     r"@tack_lookup.table.EDGE_TABLE", body), body[:3000]
    assert body.count(" select ") < 64  # vectorized lanes clamp each: far from 256 per read


def test_ptx_table_is_global_and_read_through_the_read_only_cache():
    from tack.toolchain.nvptx import compile_ptx

    ptx = compile_ptx(_lookup_ir(), "sm_90").ptx
    assert re.search(r"\.global \.align 4 \.b8 tack_lookup_\$_table_\$_EDGE_TABLE\[1024\] = "
                     r"\{0, 0, 0, 0, 9, 1, 0, 0, 3, 2,", ptx), ptx[:2000]
    assert ".const" not in ptx
    assert ptx.count("ld.global.nc.b32") == 2  # EDGE_TABLE and MS_SEGMENTS


def test_float_and_wide_tables_render_exactly():
    w = tack.array(np.zeros(2, np.float64))
    kir = specialize(T.weighted, [w, tack.array(np.zeros(2, np.int32)), tack.zeros(2, tack.f64),
                                  tack.zeros(2, tack.f64)])
    text = render(kir)
    assert re.search(r'"tack_weighted.table.GAUSS_f64" = private unnamed_addr constant '
                     r"\[6 x double\] \[double 0x3fb0000000000000, double 0x3fb999999999999a",
                     text)
    assert re.search(r'"tack_weighted.table.OFFSETS" = private unnamed_addr constant '
                     r"\[24 x float\]", text)
