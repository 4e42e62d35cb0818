"""The compile-time `@tack.func` arguments that let one kernel source serve every float dtype of
tack.ops: f32 and f64 rows keep their dtype everywhere, f16 and bf16 rows compute their
statistics and accumulations in f32 and round each result once when it is stored
(docs/ops.md, "Half precision"). Locals that accumulate start at `tack.f32(0.0)` (or
`-math.inf`): a local takes the promotion of everything assigned to it (docs/language.md,
"Locals"), so they are f32 for f32 and half rows and f64 for f64 rows; what a literal cannot
decide is passed in here."""
from __future__ import annotations

from ..dtypes import f32
from ..frontend.inline import func
from ..lib.reductions import group_reduce, group_reduce_f32
from ..lib.warp_reductions import group_reduce_by_warps, group_reduce_by_warps_f32
from ._rowsum import row_fold, row_fold_f32


@func
def keep(v):
    return v


@func
def to_f32(v):
    return f32(v)


# fold: the portable kernels' eight-lane row loop (`_rowsum`); reduce: the workgroup tree (its
# order the same by shared memory or by shuffles: `warps`); wide: a loaded element as the
# precision its products are taken in
_SAME = {"fold": row_fold, "reduce": group_reduce, "wide": keep}
_F32 = {"fold": row_fold_f32, "reduce": group_reduce_f32, "wide": to_f32}
# (half, warps exchange registers) -> the table
_TABLES = {(False, False): _SAME, (True, False): _F32,
           (False, True): {**_SAME, "reduce": group_reduce_by_warps},
           (True, True): {**_F32, "reduce": group_reduce_by_warps_f32}}


def funcs(dtype, *names: str, device=None) -> tuple:
    """The functions `names` for arrays of `dtype`, in order: a kernel's last arguments. On a
    `device` whose warps exchange registers (`Capabilities.register_warps`: CUDA, the simulator)
    the workgroup tree takes its last levels by shuffles (lib/warp_reductions.py,
    `tree_by_warps`: two barriers instead of ten, the same order and bits); elsewhere, and
    without a device, by shared memory alone."""
    warps = device is not None and device.capabilities.register_warps
    table = _TABLES[dtype.is_half, warps]
    return tuple(table[n] for n in names)
