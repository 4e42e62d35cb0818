"""The matrix multiply-accumulate shapes (`Op.MMA`) and where each lane holds each element of
its fragments: the one table the typechecker (fragment loads and stores), the simulator, the
shared-memory lowering (Julia) and the PTX renderer read.

The layouts are PTX's `mma.sync` fragment layouts (PTX ISA, "Matrix Fragments for mma.m16n8k16
with floating point type" and "... for mma.m16n8k8",
https://docs.nvidia.com/cuda/parallel-thread-execution/#warp-level-matrix-fragment-mma-16816-float
and #warp-level-matrix-fragment-mma-1688). With group = lane >> 2 and quad = lane & 3, every
element's row and column is linear in (group, quad): `Layout` keeps the two coefficients of each
and one constant offset per element. A is M×K (row-major tile), B is K×N, C and D are M×N.
"""
from __future__ import annotations

from dataclasses import dataclass

from .. import dtypes as dt
from ..dtypes import DType


@dataclass(frozen=True)
class Layout:
    """Element i of a lane's fragment sits at row `row[0]*group + row[1]*quad + offsets[i][0]`
    and column `col[0]*group + col[1]*quad + offsets[i][1]` of its tile."""

    row: tuple[int, int]
    col: tuple[int, int]
    offsets: tuple[tuple[int, int], ...]

    @property
    def size(self) -> int:
        return len(self.offsets)

    def coords(self, lane, i: int):
        """(row, column) of element i for `lane` (a Python int or a NumPy array)."""
        g, q = lane >> 2, lane & 3
        r, c = self.offsets[i]
        return (self.row[0] * g + self.row[1] * q + r, self.col[0] * g + self.col[1] * q + c)


@dataclass(frozen=True)
class Variant:
    """One MMA shape: D (M×N, f32) = A (M×K) @ B (K×N) + C (M×N, f32)."""

    name: str  # Op.MMA's arg[0]
    m: int
    n: int
    k: int
    dtype: DType  # the inputs' storage dtype (f32 for TF32)
    ptx: str  # the PTX input type: f16, bf16, tf32
    a: Layout
    b: Layout


# C and D: rows group and group + 8, columns 2*quad and 2*quad + 1 (every shape below).
ACC = Layout((1, 0), (0, 2), ((0, 0), (0, 1), (8, 0), (8, 1)))
_A16 = Layout((1, 0), (0, 2), ((0, 0), (0, 1), (8, 0), (8, 1), (0, 8), (0, 9), (8, 8), (8, 9)))
_B16 = Layout((0, 2), (1, 0), ((0, 0), (1, 0), (8, 0), (9, 0)))
_A8 = Layout((1, 0), (0, 1), ((0, 0), (8, 0), (0, 4), (8, 4)))
_B8 = Layout((0, 1), (1, 0), ((0, 0), (4, 0)))

VARIANTS: dict[str, Variant] = {v.name: v for v in (
    Variant("m16n8k16.f16", 16, 8, 16, dt.f16, "f16", _A16, _B16),
    Variant("m16n8k16.bf16", 16, 8, 16, dt.bf16, "bf16", _A16, _B16),
    Variant("m16n8k8.tf32", 16, 8, 8, dt.f32, "tf32", _A8, _B8),
)}
# The variant of fragments loaded from an array of each dtype.
BY_DTYPE: dict[DType, Variant] = {v.dtype: v for v in VARIANTS.values()}
M, N = 16, 8  # every variant's D tile


def layout(variant: str | None, role: str) -> Layout:
    """The layout of fragment `role` ("a", "b" or "acc") of `variant` (None for "acc")."""
    if role == "acc":
        return ACC
    return getattr(VARIANTS[variant], role)


def tile(variant: str | None, role: str) -> tuple[int, int]:
    """(rows, columns) of the tile a fragment of `role` covers."""
    if role == "acc":
        return M, N
    v = VARIANTS[variant]
    return (v.m, v.k) if role == "a" else (v.k, v.n)


@dataclass(frozen=True)
class Ldmatrix:
    """How `ldmatrix.sync.aligned.m8n8.x<count>[.trans].shared.b16` loads an f16/bf16 fragment
    (PTX ISA, "Warp-level matrix load instruction: ldmatrix",
    https://docs.nvidia.com/cuda/parallel-thread-execution/#warp-level-matrix-instructions-ldmatrix):
    lane l gives the address of the 16-byte row `l % 16` of the tile at column `col_step * (l //
    16)` (lanes 8j..8j+7 give the eight rows of the j-th 8×8 matrix); element i of the lane's
    fragment arrives in register i // 2, the lower-numbered element in the low half. With
    `trans` each matrix is transposed on the way (B's tile is stored K×N, row by row of k)."""

    count: int  # 8×8 matrices: 4 (A's 16×16 tile) or 2 (B's 16×8)
    trans: bool
    col_step: int

    def row(self, lane) -> tuple:
        """(row, column) of the tile where `lane` (an int or a NumPy array) points ldmatrix."""
        return lane % 16, self.col_step * (lane // 16)

    @staticmethod
    def register(i: int) -> tuple[int, int]:
        """(register, half) of element i of the lane's fragment: 0 the low 16 bits, 1 the high."""
        return i // 2, i % 2


# The fragments ldmatrix can load: f16 and bf16 A (x4) and B (x2, transposed); TF32 fragments
# hold 32-bit elements, which the b16 forms would split.
LDMATRIX: dict[str, Ldmatrix] = {"a": Ldmatrix(4, False, 8), "b": Ldmatrix(2, True, 0)}
LDMATRIX_ALIGN = 8  # elements of 2 bytes per 16-byte row: every row address a multiple of it
