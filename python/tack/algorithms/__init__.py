"""`tack.algorithms`: reductions, statistics, scans, sorting, segments, copy and fill, written as
Tack kernels so that every engine runs them (docs/algorithms.md).

Importing it registers the array reductions (`a.sum()` ...) with `tack.arrays`, which sits two
layers below and cannot import the kernels itself."""
from .. import arrays as _arrays
from .reduce import array_reduction as _array_reduction
from .copy import copy, copy_with_offset, fill_value
from .scans import exclusive_scan, inclusive_scan
from .segments import reduce_by_key, segmented_inclusive_scan, segmented_reduce, unique
from .sort import argsort, gather, sort_by_key
from .stats import absmax, count_nonzero, dot, histogram, norm, std, var

_arrays.register_reductions(_array_reduction)
del _arrays

__all__ = [
    "absmax", "argsort", "copy", "copy_with_offset", "count_nonzero", "dot", "exclusive_scan",
    "fill_value", "gather", "histogram", "inclusive_scan", "norm", "reduce_by_key",
    "segmented_inclusive_scan", "segmented_reduce", "sort_by_key", "std", "unique", "var",
]
