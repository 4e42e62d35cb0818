"""Tensor copies (`Op.ASYNC_TENSOR_COPY`, `tack.async_tensor_copy`; docs/language.md
"Transaction barriers"): the limits of a box, where each of its elements lands in shared memory,
and the tensor maps a kernel's copies need. The one table the typechecker, the simulator, the
PTX renderer and the CUDA engine's map encoder read.

On an NVIDIA GPU a tensor copy is the Tensor Memory Accelerator's
`cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [dst], [map, {c0,
c1}], [bar]` (https://docs.nvidia.com/cuda/parallel-thread-execution/
#data-movement-and-conversion-instructions-cp-async-bulk-tensor): one lane starts the copy of a
whole box, described by a tensor map that the host encodes
(https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__TENSOR__MEMORY.html,
`cuTensorMapEncodeTiled`). The map's limits, checked here before anything compiles:

- box extents 1..256 each (`boxDim[i] <= 256`); the inner one's bytes a multiple of 16, and
  exactly 128 with the 128-byte swizzle (Tack's staged wgmma rows: ir/wgmma.py);
- the array 2-D, contiguous in its last dimension (every Tack array is C-contiguous), its row
  stride a multiple of 16 bytes (`globalStrides`), its address a multiple of 16 (checked at
  launch, where it is known), each extent at most 2^32;
- the shared destination a multiple of 128 bytes from shared memory's start, 1024 with the
  swizzle (the hardware computes the swizzle from address bits 7..9: ir/wgmma.py);
- the box's first column a multiple of 16 bytes (`COLUMN_BYTES`), inside the array or not: an
  H100 stopped every such copy whose column was not (-3, 30 and -70 of a float32 array, boxes
  partly or wholly outside it) with CUDA_ERROR_ILLEGAL_INSTRUCTION, while boxes at columns 0
  and 20 (80 bytes), partly outside too, landed. The typechecker asks for a column it can prove
  a multiple (frontend/typing/mbarriers.py, `tensor_copy_columns`).

Elements of the box outside the array arrive as zeros (`CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE`),
and the whole box's bytes count on the barrier, whether inside the array or not.

Layouts of the box in shared memory (`place`):
  * "swizzle128": rows of 128 bytes, row r's 16-byte chunk c at chunk c ^ (r % 8): the layout
    `tack.wgmma_index(s, r, c, "swizzle128")` describes (`CU_TENSOR_MAP_SWIZZLE_128B`);
  * "none": row-major and dense, element (r, c) at r * cols + c (`CU_TENSOR_MAP_SWIZZLE_NONE`).
"""
from __future__ import annotations

from dataclasses import dataclass

from . import wgmma
from .ops import Op
from .walk import iter_stmts, stmt_exprs

LAYOUTS = ("swizzle128", "none")
MAX_BOX = 256  # elements along each box dimension
INNER_BYTES = 16  # the box's inner extent in bytes is a multiple of this
SWIZZLE_BYTES = wgmma.ROW_BYTES  # ... and exactly this with the 128-byte swizzle
STRIDE_BYTES = 16  # the array's row stride and its address are multiples of this
MAX_EXTENT = 1 << 32  # an array's extent in the map
COLUMN_BYTES = 16  # the box's first column, in bytes from the row's start, is a multiple of this
ALIGN = {"swizzle128": wgmma.ATOM_BYTES, "none": 128}  # the destination's alignment in bytes


def box_problem(layout: str, itemsize: int, rows: int, cols: int) -> str | None:
    """Why a box of rows × cols elements of `itemsize` bytes in `layout` cannot be a tensor
    copy; None if it can."""
    if layout not in LAYOUTS:
        return f"the layout {layout!r} is none of {', '.join(map(repr, LAYOUTS))}"
    if not (1 <= rows <= MAX_BOX and 1 <= cols <= MAX_BOX):
        return f"a box of {rows} × {cols} elements: each extent is 1 to {MAX_BOX}"
    inner = cols * itemsize
    if layout == "swizzle128" and inner != SWIZZLE_BYTES:
        return (f"a box row of {cols} elements ({inner} bytes) in the swizzle128 layout, whose "
                f"rows are {SWIZZLE_BYTES} bytes ({SWIZZLE_BYTES // itemsize} elements)")
    if inner % INNER_BYTES:
        return (f"a box row of {cols} elements ({inner} bytes): a tensor copy's rows are a "
                f"multiple of {INNER_BYTES} bytes")
    return None


def array_problem(itemsize: int, shape: tuple) -> str | None:
    """Why a C-contiguous 2-D array of `shape` cannot be a tensor copy's source; None if it
    can."""
    if len(shape) != 2:
        return f"a {len(shape)}-dimensional array: a tensor copy reads a 2-dimensional one"
    if (shape[1] * itemsize) % STRIDE_BYTES:
        return (f"rows of {shape[1]} elements ({shape[1] * itemsize} bytes): a tensor map's row "
                f"stride is a multiple of {STRIDE_BYTES} bytes")
    if max(shape) > MAX_EXTENT:
        return f"an extent of {max(shape)}: a tensor map's extents are at most 2^32"
    return None


def place(layout: str, itemsize: int, cols: int, r, c):
    """Element (r, c) of a box of `cols` columns, in elements from the box's start in shared
    memory (ints or NumPy arrays)."""
    if layout == "none":
        return r * cols + c
    return wgmma.index("swizzle128", itemsize, r, c)


@dataclass(frozen=True)
class TensorMap:
    """One tensor map a kernel needs: the array parameter, its box and layout. The CUDA engine
    encodes one per launch's array address (cached), the kernel reads it by the position of
    this map in `maps(kir)`."""

    array: str
    rows: int
    cols: int
    layout: str


def key(e) -> TensorMap:
    """The tensor map of one ASYNC_TENSOR_COPY."""
    _, src, (rows, cols, layout), _ = e.arg
    return TensorMap(src, rows, cols, layout)


def maps(kir) -> list[TensorMap]:
    """The distinct tensor maps of `kir`'s copies, in the order of their first copy."""
    out: list[TensorMap] = []
    for st in iter_stmts(kir.body):
        for x in stmt_exprs(st):
            if x.op is Op.ASYNC_TENSOR_COPY and key(x) not in out:
                out.append(key(x))
    return out
