"""`tack.algorithms`: reductions, statistics, scans, sorting, segments, copy and fill, written as
Tack kernels so that every engine runs them (docs/algorithms.md).

Importing it registers the array reductions (`a.sum()` ...) with `tack.arrays`, which sits two
layers below and cannot import the kernels itself. The submodules define dozens of kernels (each
definition reads its source), so they load at the first use of a name, not at `import tack`."""
from .. import arrays as _arrays

__all__ = [
    "absmax", "argsort", "copy", "copy_with_offset", "count_nonzero", "dot", "exclusive_scan",
    "fill_value", "gather", "histogram", "inclusive_scan", "norm", "reduce_by_key",
    "segmented_inclusive_scan", "segmented_reduce", "sort", "sort_by_key", "std", "tuning",
    "unique", "var",
]


def __getattr__(name: str):
    if name not in __all__:
        raise AttributeError(f"module 'tack.algorithms' has no attribute {name!r}")
    # Loaded on first use, to keep `import tack` cheap.
    from . import copy_fill, scans, segments, settings, sorting, stats

    for mod in (copy_fill, scans, segments, settings, sorting, stats):
        for public in getattr(mod, "__all__", ()):
            globals()[public] = getattr(mod, public)
    return globals()[name]


def __dir__():
    return sorted(set(globals()) | set(__all__))


def _array_reduction(op: str, a):
    """Array.sum/min/max/mean's first call: reduce.py is loaded on first use, to keep `import
    tack` cheap, and registered in this function's place (no import statement per call)."""
    from .. import arrays
    from .reduce import array_reduction

    arrays.register_reductions(array_reduction)
    return array_reduction(op, a)


_arrays.register_reductions(_array_reduction)
del _arrays
