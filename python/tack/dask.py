"""Tack kernels over Dask arrays: one kernel call per chunk, on the worker's default device.

    import tack.dask
    out = tack.dask.map_blocks(heat_step, u, out_dtype=tack.f32, halo=1)   # a dask.array

The kernel takes the chunk's inputs, then the output chunk (`kernel(*inputs, out, *scalars)`,
the convention of docs/examples/heat.py). Each chunk is copied to a `tack.Array` on the
device that is current on the worker thread (`tack.set_default_device`, or
`client.run(tack.set_default_device, "cuda:0")` per worker), the kernel runs, and the result
comes back as a NumPy chunk. With `halo > 0` the chunks overlap by that many elements through
`dask.array.map_overlap` (no padding at the array's edges: the kernel's own boundary rule
applies there, as on a single array). Dask is imported on first use, not by `import tack`.
"""
from __future__ import annotations

import functools
import importlib
import itertools
import threading

import numpy as np

from . import dtypes as dt
from .arrays import array, zeros
from .errors import TackTypeError, TackValueError
from .kernel import Kernel

# Kernels that cannot be found by module and name (defined inside a function): the graph
# refers to them by a number, which resolves in this process only (threads of a LocalCluster).
_LOCAL: dict = {}
_COUNT = itertools.count()
_LOCK = threading.Lock()


class _Ref:
    """A kernel as Dask's graph holds it: pickled by module and qualified name (a compiled
    kernel holds locks and engine objects, which do not pickle), resolved on the worker."""

    def __init__(self, kernel):
        self.kernel = kernel
        fn = getattr(kernel, "fn", None)
        self.where = (getattr(fn, "__module__", None), getattr(fn, "__qualname__", ""))
        if self.where[0] is None or "<locals>" in self.where[1]:
            with _LOCK:
                self.where = (None, next(_COUNT))
                _LOCAL[self.where[1]] = kernel

    def __reduce__(self):
        return _resolve, self.where


def _resolve(module, name):
    ref = _Ref.__new__(_Ref)
    ref.where = (module, name)
    if module is None:
        ref.kernel = _LOCAL[name]
    else:
        obj = importlib.import_module(module)
        for part in name.split("."):
            obj = getattr(obj, part)
        ref.kernel = obj
    return ref


def _run_chunk(ref, out_dtype, scalars, out_shape, *blocks, block_info=None):
    """One chunk: inputs to the current device, the kernel, the output back to NumPy."""
    kernel = ref.kernel
    if out_shape == "chunk":
        out_shape = block_info[None]["chunk-shape"]
    inputs = [array(np.ascontiguousarray(b)) for b in blocks]
    shape = out_shape if out_shape is not None else blocks[0].shape
    out = zeros(shape, out_dtype)
    kernel(*inputs, out, *scalars)
    return out.numpy()


def _check(kernel, arrays, halo, scalars, out_chunks) -> tuple:
    """The arguments that need no Dask, checked before it is imported: (halo, scalars)."""
    if not isinstance(kernel, Kernel):
        raise TackTypeError(f"tack.dask.map_blocks: kernel must be a @tack.kernel, got "
                            f"{type(kernel).__name__}")
    if not arrays:
        raise TackValueError("tack.dask.map_blocks needs at least one dask array")
    if isinstance(halo, bool) or not isinstance(halo, (int, np.integer)):
        raise TackTypeError(f"tack.dask.map_blocks: halo must be an integer, got {halo!r}")
    if halo < 0:
        raise TackValueError(f"tack.dask.map_blocks: halo must be >= 0, got {halo}")
    if halo and out_chunks is not None:
        raise TackValueError("tack.dask.map_blocks: out_chunks is for halo=0: with a halo the "
                             "output has the input's chunks")
    if not isinstance(scalars, (tuple, list)):
        raise TackTypeError(f"tack.dask.map_blocks: scalars must be a tuple, got "
                            f"{type(scalars).__name__}")
    return int(halo), tuple(scalars)


def map_blocks(kernel, *arrays, out_dtype=dt.f32, out_chunks=None, halo: int = 0,
               scalars: tuple = ()):
    """A dask array: `kernel(*chunk_inputs, out_chunk, *scalars)` for every chunk of `arrays`
    (aligned chunks). `out_chunks`: the output's chunks when they differ from the first
    input's (halo 0 only); `halo`: the overlap each chunk sees of its neighbours, trimmed off
    the result. Bad arguments raise TackTypeError / TackValueError before any graph is built."""
    halo, scalars = _check(kernel, arrays, halo, scalars, out_chunks)
    t = dt.as_dtype(out_dtype)  # TackTypeError for anything but i8 ... f64
    import dask.array as da  # dask is optional and heavy: imported on first use

    for k, a in enumerate(arrays):
        if not isinstance(a, da.Array):
            raise TackTypeError(f"tack.dask.map_blocks: argument {k + 1} after the kernel "
                                f"must be a dask array, got {type(a).__name__}")
    meta = np.empty((0,) * arrays[0].ndim, t.np)
    run = functools.partial(_run_chunk, _Ref(kernel), t, scalars)
    if halo == 0:
        shape = "chunk" if out_chunks is not None else None
        return da.map_blocks(functools.partial(run, shape), *arrays, dtype=t.np,
                             chunks=out_chunks, meta=meta)
    return da.map_overlap(functools.partial(run, None), *arrays, depth=halo, boundary="none",
                          trim=True, dtype=t.np, meta=meta)
