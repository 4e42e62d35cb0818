"""Calling what is tested: a `@tack.kernel`, a plain callable, and the NumPy reference.

A kernel is called as `kernel(*inputs, *outputs)`: inputs become Tack arrays on the current
device (`tack.array` copies a non-contiguous view into C order), outputs are allocated by the
harness and filled with NaN or an integer sentinel first. A callable gets the NumPy inputs as
they are — views included — and returns an array (NumPy, Tack, or anything `numpy.asarray`
takes) or a tuple of them. The reference always gets float64 (integers: int64) C-contiguous
copies and runs on the CPU.
"""
from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import numpy as np

import tack

from ...errors import TackError, TackTypeError, TackValueError
from .inputs import fill_value


class ResultError(Exception):
    """A subject returned something that is not the signature's outputs (a case failure)."""


def load(spec: str):
    """The object named by `'path/to/module.py::name'` (a dotted name reaches attributes)."""
    path, sep, name = str(spec).partition("::")
    if not sep or not name:
        raise TackValueError(f"Cannot load {spec!r}: write 'path/to/module.py::name'")
    file = Path(path).expanduser().resolve()
    if not file.is_file():
        raise TackValueError(f"Cannot load {spec!r}: no file {file}")
    try:
        module = _module_for(file)
    except TackError:
        raise  # a Tack refusal at import (a kernel's source unreadable): its own message
    except SyntaxError as exc:
        where = f"{file.name}:{exc.lineno}:{exc.offset}" if exc.lineno else file.name
        raise TackValueError(f"Cannot load {spec!r}: {where}: {exc.msg}") from exc
    except Exception as exc:  # the file's own code failed: keep it chained for the traceback
        raise TackValueError(f"Cannot load {spec!r}: importing {file.name} raised "
                             f"{type(exc).__name__}: {exc}") from exc
    obj = module
    for part in name.split("."):
        if not hasattr(obj, part):
            raise TackValueError(f"Cannot load {spec!r}: {file.name} has no {name!r}")
        obj = getattr(obj, part)
    return obj


def _module_for(file: Path):
    """The module already imported from `file`, or that file imported now (once)."""
    for mod in list(sys.modules.values()):
        f = getattr(mod, "__file__", None)
        if f and os.path.realpath(f) == str(file):
            return mod
    name = f"_tack_harness_{file.stem}_{abs(hash(str(file))):x}"
    spec = importlib.util.spec_from_file_location(name, file)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # before running it: dataclasses and kernels look it up
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def is_kernel(obj) -> bool:
    """A `@tack.kernel`, or one bound to a device-class instance."""
    return isinstance(obj, tack.Kernel) or isinstance(getattr(obj, "kernel", None), tack.Kernel)


def name_of(obj) -> str:
    if is_kernel(obj):
        return obj.name
    return getattr(obj, "__name__", None) or type(obj).__name__


def _as_outputs(result, count: int, who: str = "the subject") -> list[np.ndarray]:
    items = list(result) if isinstance(result, (tuple, list)) else [result]
    if len(items) != count:
        raise ResultError(f"{who} returned {len(items)} array(s); the signature has "
                          f"{count} output(s)")
    out = []
    for k, item in enumerate(items):
        if item is None:
            raise ResultError(f"{who} returned None for output {k}")
        out.append(item.numpy() if isinstance(item, tack.Array) else np.asarray(item))
    return out


def _kernel_arrays(inputs, out_shapes, dtype):
    try:
        args = [tack.array(a) for a in inputs]
    except TackTypeError as exc:
        raise TackTypeError(f"{exc}; a @tack.kernel subject takes Tack dtypes") from None
    outs = [tack.full(s, fill_value(dtype), dtype=np.dtype(dtype)) for s in out_shapes]
    return args, outs


def run(subject, inputs: list[np.ndarray], out_shapes: list[tuple], dtype) -> list[np.ndarray]:
    """The subject's outputs on one case, as NumPy arrays."""
    if is_kernel(subject):
        args, outs = _kernel_arrays(inputs, out_shapes, dtype)
        subject(*args, *outs)
        return [o.numpy() for o in outs]
    with np.errstate(all="ignore"):  # an overflow to inf is compared, not warned about
        return _as_outputs(subject(*inputs), len(out_shapes))


def prepared(subject, inputs: list[np.ndarray], out_shapes: list[tuple], dtype):
    """A call with no arguments that runs the subject once on data allocated beforehand, so
    that timing measures the subject and not the harness's copies."""
    if is_kernel(subject):
        args, outs = _kernel_arrays(inputs, out_shapes, dtype)
        both = (*args, *outs)
        return lambda: subject(*both)
    inputs = [np.ascontiguousarray(a) for a in inputs]
    return lambda: subject(*inputs)


def reference_inputs(inputs: list[np.ndarray]) -> list[np.ndarray]:
    """float64 (integers: int64) C-contiguous copies of the inputs."""
    return [np.array(a, dtype=np.int64 if a.dtype.kind in "iub" else np.float64, order="C")
            for a in inputs]


def run_reference(reference, inputs: list[np.ndarray], count: int, label: str) -> list:
    """The reference's outputs on float64/int64 copies; a problem with it is the caller's."""
    try:
        with np.errstate(all="ignore"):  # exp(1e5) = inf and log(0) = -inf are results here
            return _as_outputs(reference(*reference_inputs(inputs)), count, "the reference")
    except ResultError as exc:
        raise TackValueError(f"On case {label}, {exc}") from None
    except Exception as exc:  # the user's code: say which case, keep the original exception
        exc.add_note(f"(raised by the reference on case {label})")
        raise
