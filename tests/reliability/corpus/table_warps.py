"""Warp operations (docs/language.md, "Warps"): each row is a way to misuse one that must be
refused before anything runs, with the collective and its position, or reported by tack.check:
a warp operation on the CPU engine, a collective under lane-dependent control flow (a branch,
a conditional expression), a launch that leaves a partial workgroup, a bool warp sum, a vector
shuffled, and a collective that part of a warp executes (tack.check's finding)."""
from __future__ import annotations

from .case import Case

_SETUP = '''
@tack.kernel
def wsum(x, out, n):
    for i in range(n):
        out[i] = tack.warp_sum(x[i])

@tack.kernel
def branch(x, out, n):
    for i in range(n):
        v = x[i]
        if tack.lane_id() < 16:
            v = tack.shfl_down(x[i], 16)
        out[i] = v

@tack.kernel
def lazy(x, out, n):
    for i in range(n):
        out[i] = tack.shfl(x[i], 0) if x[i] > 0.0 else 0.0

@tack.kernel
def bool_sum(x, out, n):
    for i in range(n):
        out[i] = tack.warp_sum(x[i] > 0.0)

@tack.kernel
def vector_shuffle(x, out, n):
    for i in range(n):
        out[i] = tack.shfl(tack.vec2(x[i], x[i]), 1).x

x = tack.array(np.arange(256, dtype=np.float32), device=DEV)
out = tack.zeros(256, device=DEV)
'''


def _setup(dev: str) -> str:
    return f"DEV = {dev!r}\n" + _SETUP


def _cases() -> list[Case]:
    return [
        Case("warps/cpu-refuses-warp-operations", "wsum(x, out, 256)", "RuntimeError",
             _setup("cpu"), position=True, mentions=("wsum", "warp_sum", "workgroup"),
             unchanged=("out",), quick=True,
             note="the CPU engine runs iterations one by one: no warps, refused before launch"),
        Case("warps/collective-under-lane-dependent-branch", "branch(x, out, 256)",
             "tack.TackValueError", _setup("sim"), position=True,
             mentions=("branch", "shfl_down", "uniform workgroup participation"),
             unchanged=("out",), quick=True,
             note="a shuffle some lanes of a warp skip reads lanes that are not there"),
        Case("warps/collective-in-lazy-arm", "lazy(x, out, 256)", "tack.TackValueError",
             _setup("sim"), position=True, mentions=("lazy", "tack.shfl", "conditional"),
             unchanged=("out",),
             note="the lazy arm of `a if c else b` is a branch too"),
        Case("warps/partial-workgroup", "wsum(x, out, 200)", "tack.TackValueError",
             _setup("sim"), mentions=("wsum", "256-lane groups"), unchanged=("out",),
             note="a collective needs every lane of its warp: complete workgroups"),
        Case("warps/bool-warp-sum", "bool_sum(x, out, 256)", "tack.TackTypeError",
             _setup("sim"), position=True, mentions=("warp_sum", "bool"), unchanged=("out",)),
        Case("warps/vector-shuffle", "vector_shuffle(x, out, 256)", "tack.TackTypeError",
             _setup("sim"), position=True, mentions=("vector",), unchanged=("out",),
             note="shuffles move one scalar; a vector is shuffled by components"),
        Case("warps/check-reports-a-half-warp-shuffle", "r = tack.check(branch, x, out, 256)",
             None, _setup("sim"),
             check=("(f,) = r.of_kind('barrier'); assert 'warp collective tack.shfl_down' in "
                    "f.message and f.severity == 'error', f.message"),
             note="tack.check runs what the contract refuses and names the lanes"),
    ]


CASES = _cases()
