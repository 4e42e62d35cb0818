"""A generated kernel: its parameters, its source, and how to load it and make its arguments."""
from __future__ import annotations

import importlib.util
import itertools
import os
import tempfile
from dataclasses import dataclass

import numpy as np

from ..oracle import ST
from ..shapes import random_values


@dataclass
class Param:
    name: str
    kind: str  # 'array' | 'scalar'
    t: ST
    role: str = "in"  # 'in' | 'out' | 'row' (an output only cast rows write) | 'n' (loop bound)
    cols: int = 0  # 2-D arrays: extent of dimension 1
    depth: int = 0  # 3-D arrays (n, cols, depth)


@dataclass
class KernelSpec:
    name: str
    source: str
    params: list
    alias: tuple = ()  # (input position, output position): pass one array for both

    def load(self, directory: str | None = None):
        """Write the source to a .py file and import it (Tack reads kernels' source files)."""
        directory = directory or _tmpdir()
        path = os.path.join(directory, f"{self.name}_{next(_COUNTER)}.py")
        with open(path, "w") as f:
            f.write(self.source)
        spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return getattr(mod, self.name)

    def make_args(self, n: int, seed: int) -> list:
        """NumPy arrays and Python scalars for a parallel loop over n elements."""
        rng = np.random.default_rng(seed)
        args = []
        for k, p in enumerate(self.params):
            if self.alias and k == self.alias[1]:
                args.append(args[self.alias[0]])  # the very same array object
                continue
            if p.kind == "array":
                shape = (n, p.cols, p.depth) if p.depth else (n, p.cols) if p.cols else (n,)
                args.append(random_values(rng, shape, p.t.np))
            elif p.role == "n":
                args.append(_scalar(rng, n, (np.int32, np.int64, np.uint16)))
            elif p.t.is_float:  # f32 or f64 by the arrays, whatever the host type
                v = float(rng.choice([rng.normal(0, 10), 0.5, -2.0, 0.0, 1e-3]))
                args.append(_scalar(rng, v, (np.float64, np.float32)))
            else:  # the value decides the type (i32, else i64, else u64), not the host type
                base = {"i32": 0, "i64": 2 ** 40, "u64": 2 ** 63}[p.t.name]
                lo, hi = {"i32": (-100, 100), "i64": (-1000, 1000), "u64": (0, 1000)}[p.t.name]
                v = base + int(rng.integers(lo, hi))
                hosts = {"i32": (np.int64, np.int16 if abs(v) < 2 ** 15 else np.int32),
                         "i64": (np.int64,), "u64": (np.uint64,)}[p.t.name]
                args.append(_scalar(rng, v, hosts))
        return args


def _scalar(rng, v, numpy_types):
    """A Python number, or (a third of the time) the same value as a NumPy scalar."""
    if rng.random() < 2 / 3:
        return v
    return numpy_types[int(rng.integers(0, len(numpy_types)))](v)


_TMP = []


def _tmpdir() -> str:
    if not _TMP:
        _TMP.append(tempfile.mkdtemp(prefix="tack_kernelgen_"))
    return _TMP[0]


_COUNTER = itertools.count()
