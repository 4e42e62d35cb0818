"""The warpgroup matrix multiply-accumulate (`Op.WGMMA`, docs/language.md "Warpgroup MMA"): its
shapes, where each lane of a warpgroup holds each element of the accumulator, and how the
hardware finds each element of A and B in shared memory from a matrix descriptor. The one table
the typechecker (stores, `tack.wgmma_index`), the simulator, the Julia lowering and the PTX
renderer read.

PTX ISA, "Asynchronous Warpgroup Level Matrix Multiply-Accumulate Instructions":
https://docs.nvidia.com/cuda/parallel-thread-execution/#asynchronous-warpgroup-level-matrix-instructions

- A warpgroup is 4 consecutive warps (128 lanes; lanes 0..127 and 128..255 of a workgroup).
  D (64×N, f32) = A (64×K) @ B (K×N) + D, K = 16 for f16/bf16 and 8 for TF32 (f32 storage).
- D: warp w of the warpgroup holds rows 16w..16w+15; element i of a lane (group g = lane >> 2,
  quad q = lane & 3) is row 16w + g + 8·((i % 4) // 2), column 8·(i // 4) + 2q + i % 2
  (#wgmma-64n16-d). N/2 f32 registers per lane.
- A and B are both read "K-major" from shared memory: A as 64 rows of K elements, B as N rows
  (B's columns) of K elements. Rows come in 8-row groups; a group's K extent in 16-byte
  chunks ("core matrices": 8 rows × 16 bytes). Tack stages every operand tile as rows of 128
  bytes (64 f16/bf16 or 32 f32 elements of K) in 1024-byte atoms of 8 rows, in one of two
  layouts (#asynchronous-warpgroup-level-matrix-shared-memory-layout):

  * "interleave" (no swizzle): atom = 8 core matrices, chunk c of the 8 rows at 128·c; a core
    matrix is its 8 rows of 16 bytes. Descriptor: leading byte offset (between core matrices
    along K) 128, stride byte offset (between 8-row groups) 1024, mode 0.
  * "swizzle128": row r of an atom at 128·r, its 16-byte chunk c at 16·(c ^ (r % 8)).
    Descriptor: stride byte offset 1024, leading byte offset unused (1), mode 1; the atom must
    start at a multiple of 1024 bytes, since the hardware applies the XOR to address bits 4..6
    from bits 7..9.

  Element (r, k) of a staged tile is at element `index(layout, itemsize, r, k)` from the
  tile's start (`tack.wgmma_index`). An operand starts at its top-left element: the operand
  whose row 0 is tile row r0 (a multiple of 8) and whose k 0 is tile column k0 (a multiple of
  K) starts at `index(layout, itemsize, r0, k0)`, which is the start address the descriptor
  holds (inside a swizzled row, an offset before the XOR, as CUTLASS's and Triton's descriptor
  iterators advance it).
- The descriptor (#asynchronous-warpgroup-level-matrix-shared-memory-layout-matrix-descriptor):
  bits 0-13 start address >> 4, 16-29 leading byte offset >> 4, 32-45 stride byte offset >> 4,
  49-51 base offset (0: atoms 1024-byte aligned), 62-63 swizzle mode.
"""
from __future__ import annotations

from dataclasses import dataclass

from .. import dtypes as dt
from ..dtypes import DType

WARPGROUP = 128  # lanes
M = 64  # rows of A and D
ROW_BYTES = 128  # one staged tile row (64 f16/bf16 or 32 f32 elements)
ATOM_BYTES = 1024  # 8 rows
N_CHOICES = tuple(range(8, 257, 8))  # PTX: N a multiple of 8 from 8 to 256


@dataclass(frozen=True)
class Layout:
    name: str
    mode: int  # the descriptor's swizzle field
    lbo: int  # leading byte offset (core matrices along K)
    sbo: int  # stride byte offset (8-row groups)


LAYOUTS = {x.name: x for x in (Layout("interleave", 0, 128, ATOM_BYTES),
                               Layout("swizzle128", 1, 16, ATOM_BYTES))}


@dataclass(frozen=True)
class Variant:
    """One input type: `name` is Op.WGMMA's arg[0] without N."""

    name: str
    dtype: DType  # the shared arrays' dtype (f32 for TF32)
    ptx: str
    k: int


VARIANTS = {v.name: v for v in (Variant("f16", dt.f16, "f16", 16),
                                Variant("bf16", dt.bf16, "bf16", 16),
                                Variant("tf32", dt.f32, "tf32", 8))}
BY_DTYPE = {v.dtype: v for v in VARIANTS.values()}
TF32_KEEP = 0xFFFFE000  # wgmma reads f32 as TF32 by dropping the low 13 significand bits


def acc_offsets(i: int) -> tuple[int, int]:
    """D element i of a lane is at row 16w + g + offsets[0], column 2q + offsets[1] (w the
    lane's warp in the warpgroup, g = lane % 32 >> 2, q = lane & 3): the typechecker's stores
    and the Julia loops build their indices from this."""
    return 8 * ((i % 4) // 2), 8 * (i // 4) + i % 2


def acc_coords(lane, i: int):
    """(row, column) of D element i of warpgroup lane `lane` (0..127; int or NumPy array)."""
    w, lane32 = lane // 32, lane % 32
    r, c = acc_offsets(i)
    return 16 * w + (lane32 >> 2) + r, 2 * (lane32 & 3) + c


def index(layout: str, itemsize: int, r, k):
    """Element (r, k) of a staged tile, in elements from the tile's start (ints or arrays)."""
    per = ROW_BYTES // itemsize  # elements per row
    chunk = 16 // itemsize  # elements per 16-byte chunk
    if layout == "interleave":
        return (r // 8) * (ATOM_BYTES // itemsize) + (k // chunk) * (128 // itemsize) + \
            (r % 8) * chunk + k % chunk
    return r * per + ((k // chunk) ^ (r % 8)) * chunk + k % chunk


def address(layout: str, start_byte, r, k, itemsize: int):
    """The byte address of element (r, k) of an operand whose descriptor starts at
    `start_byte`, as the hardware forms it from the descriptor: the canonical K-major layout
    with the leading and stride byte offsets of `layout`, then the swizzle's XOR."""
    lay = LAYOUTS[layout]
    kb = k * itemsize
    if lay.mode == 0:
        return start_byte + (r // 8) * lay.sbo + (kb // 16) * lay.lbo + (r % 8) * 16 + kb % 16
    a = start_byte + (r // 8) * lay.sbo + (r % 8) * ROW_BYTES + kb
    return a ^ (((a >> 7) & 7) << 4)


def descriptor(layout: str, start_byte: int) -> int:
    """The 64-bit matrix descriptor of an operand starting at shared byte `start_byte`."""
    lay = LAYOUTS[layout]
    return (((start_byte & 0x3FFFF) >> 4) | ((lay.lbo >> 4) << 16) | ((lay.sbo >> 4) << 32)
            | (lay.mode << 62))


def instruction(variant: str, n: int) -> str:
    """The PTX instruction of one shape: `wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16`."""
    v = VARIANTS[variant]
    return f"wgmma.mma_async.sync.aligned.m{M}n{n}k{v.k}.f32.{v.ptx}.{v.ptx}"


def operand_alignment(layout: str) -> int:
    """The bytes a staged tile's start must be a multiple of."""
    return ATOM_BYTES if layout == "swizzle128" else 16
