"""A stand-in for the `juliacall` module that runs Tack's Julia engine against a `JuliaProcess`.

The engine (`tack.runtime.julia.engine`) uses `juliacall.newmodule(name).seval(code)`, calls what
`seval` returns, and catches `juliacall.JuliaError`. `juliacall_module(process)` provides exactly
that over the pipe, converting results as juliacall does (Julia `Bool`, integers, floats,
strings and `nothing` become Python values; anything else stays in Julia as a callable handle)
and NumPy arguments as juliacall would hand them to Julia (arrays of the same element type,
scalars of their own type, Python `int`/`float` as `Int64`/`Float64`). So the engine's own code
runs unchanged; only juliacall itself, and its zero-copy arrays, are not exercised.
"""
from __future__ import annotations

import contextlib
import sys
import types

from tack.runtime.julia import engine as rj

from .process import JuliaError, JuliaProcess


class PipeModule:
    """What `juliacall.newmodule(name)` returns: a fresh Julia module to `seval` in."""

    def __init__(self, process: JuliaProcess, name: str):
        self.process = process
        self.module = process.eval(f"Module(:{name})")

    def seval(self, code: str):
        return self.process.eval(code, self.module)


def juliacall_module(process: JuliaProcess) -> types.ModuleType:
    """A module object to put in `sys.modules["juliacall"]`."""
    mod = types.ModuleType("juliacall", __doc__.split("\n\n")[0])
    mod.newmodule = lambda name: PipeModule(process, name)
    mod.JuliaError = JuliaError
    mod.TACK_PIPE_STANDIN = True
    return mod


@contextlib.contextmanager
def installed(process: JuliaProcess):
    """Within: `import juliacall` gives the stand-in over `process`, and Tack's Julia engine
    starts its one session on it (any earlier session is set aside, and restored after)."""
    saved = (sys.modules.get("juliacall"), rj._Session._current, rj._Session._failure)
    sys.modules["juliacall"] = juliacall_module(process)
    rj._Session._current = rj._Session._failure = None
    try:
        yield process
    finally:
        if saved[0] is None:
            sys.modules.pop("juliacall", None)
        else:
            sys.modules["juliacall"] = saved[0]
        rj._Session._current, rj._Session._failure = saved[1], saved[2]
