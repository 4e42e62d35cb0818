"""The warpgroup MMA's tables (ir/wgmma.py) against models written from the PTX ISA's text and
figures, independently of that module's formulas:

- the accumulator fragment of m64nNk16 (https://docs.nvidia.com/cuda/parallel-thread-execution/
  #wgmma-64n16-d): warp w of the warpgroup owns rows 16w..16w+15; in each 8-column block the
  lane's four registers hold (row g, columns 2q and 2q+1) then (row g+8, the same columns), g =
  lane / 4 and q = lane % 4 within the warp, the blocks in column order;
- the matrix descriptor's bit fields (#asynchronous-warpgroup-level-matrix-shared-memory-layout-
  matrix-descriptor): start address, leading and stride byte offsets (each >> 4, 14 bits) at
  bits 0, 16 and 32, the swizzle mode at bits 62-63 (1: 128-byte swizzle);
- the canonical K-major layouts: without swizzle, 8×16-byte core matrices stored contiguously,
  the next along K at the leading byte offset, the next 8 rows at the stride byte offset; the
  128-byte swizzle as CuTe's Swizzle<3,4,3> on byte offsets (bits 4..6 XOR bits 7..9);
- and that a tile staged with `tack.wgmma_index` is what the hardware reads from a descriptor
  that starts at the operand's top-left element, for every row block and k step.
"""
import numpy as np
import pytest
from tack.ir import wgmma as W


def _isa_fragment(n: int) -> dict:
    """(lane 0..127, register) -> (row, column) of D, from the ISA's figure."""
    table = {}
    for warp in range(4):
        for lane in range(32):
            g, q = lane // 4, lane % 4
            for block in range(n // 8):
                for half in range(2):  # row g, then row g + 8
                    for col in range(2):
                        reg = 4 * block + 2 * half + col
                        table[warp * 32 + lane, reg] = (16 * warp + g + 8 * half,
                                                        8 * block + 2 * q + col)
    return table


@pytest.mark.parametrize("n", [8, 64, 128, 256])
def test_the_accumulator_layout_is_the_isas(n):
    isa = _isa_fragment(n)
    lanes = np.arange(W.WARPGROUP)
    seen = set()
    for reg in range(n // 2):
        rows, cols = W.acc_coords(lanes, reg)
        for lane in lanes:
            assert (int(rows[lane]), int(cols[lane])) == isa[int(lane), reg]
            seen.add((int(rows[lane]), int(cols[lane])))
    assert seen == {(r, c) for r in range(64) for c in range(n)}  # every element once


def test_the_descriptor_fields():
    for layout, lbo, sbo, mode in (("interleave", 128, 1024, 0), ("swizzle128", 16, 1024, 1)):
        d = W.descriptor(layout, 0x12340)
        assert d & 0x3FFF == 0x12340 >> 4
        assert (d >> 16) & 0x3FFF == lbo >> 4 and (d >> 32) & 0x3FFF == sbo >> 4
        assert (d >> 49) & 7 == 0 and d >> 62 == mode
        assert (d >> 14) & 3 == 0 and (d >> 30) & 3 == 0 and (d >> 46) & 7 == 0
        assert (d >> 52) & 0x3FF == 0


def _canonical(layout: str, start: int, r: int, k: int, size: int) -> int:
    """The ISA's canonical K-major address of element (r, k), with Tack's byte offsets."""
    kb = k * size
    if layout == "interleave":
        core = start + (kb // 16) * 128 + (r // 8) * 1024  # LBO along K, SBO along rows
        return core + (r % 8) * 16 + kb % 16  # a core matrix: 8 rows of 16 contiguous bytes
    offset = start + (r // 8) * 1024 + (r % 8) * 128 + kb  # SBO 1024, rows of 128 bytes
    return offset ^ ((offset & (0b111 << 7)) >> 3)  # Swizzle<3,4,3>


@pytest.mark.parametrize("layout", ["interleave", "swizzle128"])
@pytest.mark.parametrize("size", [2, 4])
def test_the_hardware_model_is_the_canonical_layout(layout, size):
    k = 16 if size == 2 else 8
    r, kk = np.meshgrid(np.arange(64), np.arange(k), indexing="ij")
    for start in (0, 1024, 3072):
        got = W.address(layout, start, r, kk, size)
        want = np.vectorize(lambda a, b, s=start: _canonical(layout, s, a, b, size))(r, kk)
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("layout", ["interleave", "swizzle128"])
@pytest.mark.parametrize("size", [2, 4])
def test_a_staged_tile_is_what_the_descriptor_reads(layout, size):
    k, width = (16, 64) if size == 2 else (8, 32)
    rows = 128
    staged = {}
    for r in range(rows):
        for c in range(width):
            at = W.index(layout, size, r, c)
            assert at not in staged  # a bijection onto the tile's elements
            staged[at] = (r, c)
    assert sorted(staged) == list(range(rows * width))
    for r0 in range(0, rows - 63, 8):
        for k0 in range(0, width, k):
            start = W.index(layout, size, r0, k0) * size
            for m in range(64):
                for kk in range(k):
                    byte = W.address(layout, start, m, kk, size)
                    assert byte % size == 0 and staged[byte // size] == (r0 + m, k0 + kk)


def test_the_instruction_names():
    assert W.instruction("f16", 128) == "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16"
    assert W.instruction("bf16", 256) == "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16"
    assert W.instruction("tf32", 64) == "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32"
