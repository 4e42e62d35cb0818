"""Run tack.ops' workgroup kernels on the CPU, through the model of KernelAbstractions' CPU
backend that tests/julia uses (`ka_cpu_model`: the rewritten IR executed group by group, lane by
lane, shared memory per group, barriers as segment ends). Until the simulator engine exists,
this is how CI checks the GPU paths (block reductions, shared tiles) without a GPU: `workgroups()`
makes every op choose them, and each kernel call specializes for a CUDA device (its capabilities
are known without starting it) and runs in the model on the arrays' host buffers."""
from __future__ import annotations

import contextlib
import importlib
import math

import tack
from tack.compiler import specialize
from tack.dtypes import convert
from tack.ir.ops import Op

from tests.julia import ka_cpu_model
from tests.julia.ka_cpu_model import rewritten

_args = importlib.import_module("tack.ops._args")


def _exp(x):
    return math.inf if x > 709.0 else math.exp(x)


def _log(x):
    return -math.inf if x == 0 else (math.nan if x < 0 or math.isnan(x) else math.log(x))


_MATH = {Op.EXP: _exp, Op.LOG: _log, Op.SQRT: math.sqrt, Op.TANH: math.tanh}


class _Model(ka_cpu_model.Model):
    """The model, with the math builtins the ops use (rounded to the result's dtype once)."""

    def expr(self, e):
        fn = _MATH.get(e.op)
        if fn is None:
            return super().expr(e)
        x, t = self.expr(e.args[0]), e.dtype
        return lambda lane: convert(fn(x(lane)), t)


def _model_call(self, *args):
    kir = rewritten(specialize(self, args, tack.Device("cuda")))
    start, stop, step = self.parse_for(args).host_range.evaluate(*args)
    host = [a._host.reshape(-1) if isinstance(a, tack.Array) else a for a in args]
    _Model(kir, host, len(range(start, stop, step))).run()


@contextlib.contextmanager
def workgroups(monkeypatch):
    monkeypatch.setattr(_args, "workgroups", lambda dev: True)
    monkeypatch.setattr(tack.Kernel, "__call__", _model_call)
    yield
