"""`tack.algorithms`: reductions, statistics, scans, sorting, segments, copy and fill, written as
Tack kernels so that every engine runs them (docs/algorithms.md).

Importing it registers the array reductions (`a.sum()` ...) with `tack.arrays`, which sits two
layers below and cannot import the kernels itself."""
from .. import arrays as _arrays
from .reduce import array_reduction as _array_reduction
from .scans import exclusive_scan, inclusive_scan
from .stats import absmax, count_nonzero, dot, histogram, norm, std, var

_arrays.register_reductions(_array_reduction)
del _arrays

__all__ = ["absmax", "count_nonzero", "dot", "exclusive_scan", "histogram", "inclusive_scan",
           "norm", "std", "var"]
