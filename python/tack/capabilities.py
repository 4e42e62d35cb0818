"""What each engine can run, checked on the typed IR before any pass or renderer sees it, so a
kernel is rejected for what it contains (even in a branch that constant folding would remove)."""
from __future__ import annotations

from .errors import CapabilityError
from .ir import nodes as N
from .ir.nodes import Expr, KernelIR
from .ir.ops import Op
from .ir.walk import iter_exprs, iter_stmts


def workgroup_features(k: KernelIR) -> list[str]:
    """The workgroup primitives a kernel uses, by their public names."""
    found = set()
    if any(s.space == "shared" for s in k.scratch.values()):
        found.add("shared")
    for st in iter_stmts(k.body):
        if isinstance(st, N.Barrier):
            found.add("barrier")
        for name in ("value", "cond", "start", "stop", "step"):
            e = getattr(st, name, None)
            if isinstance(e, Expr) and any(x.op is Op.THREAD_ID for x in iter_exprs(e)):
                found.add("thread_id")
        for e in getattr(st, "indices", ()):
            if any(x.op is Op.THREAD_ID for x in iter_exprs(e)):
                found.add("thread_id")
    return sorted(found)


def supports_workgroups(device) -> bool:
    return device is not None and device.arch != "cpu"


def check(k: KernelIR, device) -> None:
    """Raise `CapabilityError` (a NotImplementedError) for what `device` cannot run."""
    if device is None or supports_workgroups(device):
        return
    used = workgroup_features(k)
    if used:
        raise CapabilityError(
            f"CPU backend does not support workgroup execution required by {', '.join(used)} "
            f"(kernel '{k.name}' at {k.loc}). Workgroup primitives need a GPU device; for scratch "
            "storage private to each iteration use tack.local_array or tack.local_array_like, "
            "which work on every device.")
