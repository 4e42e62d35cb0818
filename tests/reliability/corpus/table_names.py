"""Names a user may write that Tack once used internally, and expressions nested deeply.

Every Python identifier is a valid parameter, local or attribute name: none may change what a
kernel computes (passes/names.py spells generated names with a `.`). Each row runs a kernel
using such a name and checks the values it wrote. Deep rows compile sums of many terms
(frontend/depth.py) in their own subprocess."""
from __future__ import annotations

from .case import Case

# Names Tack generated at some point (hidden parameters, helpers of the host range, fresh
# locals of the passes and the frontend, vector components, object attributes).
_NAMES = ["__start", "__start0", "__start1", "__step", "__ext1", "__ret", "__dbg", "__epilogue",
          "_i", "_s", "_a", "_p0", "_p1", "_cse1", "_lz1", "_t1", "_u1", "_ev1", "_ifv1",
          "_v1", "_old1", "_vt1", "_wc_a", "n_", "a__0", "g__n", "tk_t", "tk_v_x", "t", "n",
          "args", "t_begin", "t_end"]


def _as_scalar(name: str) -> Case:
    """`name` as a scalar parameter beside a range(start, stop, step) loop (hidden params)."""
    setup = (f"@tack.kernel\ndef k({name}, out, lo):\n"
             f"    for i in range(lo, out.shape[0], 2):\n"
             f"        out[i] = {name} + i\n"
             "out = tack.zeros(8, tack.i32)\n")
    return Case(f"names/scalar/{name}", "k(100, out, 1)", None, setup,
                check="assert out.numpy().tolist() == [0, 101, 0, 103, 0, 105, 0, 107], "
                      "out.numpy()", quick=name in ("__start", "_i"), note="user names never collide with generated ones")


def _as_local(name: str) -> Case:
    """`name` as a local of the loop body, beside the constructs that make fresh locals."""
    setup = (f"@tack.kernel\ndef k(x, out):\n"
             f"    for i in range(x.shape[0]):\n"
             f"        {name} = x[i] * 2.0\n"
             f"        v = tack.vec2({name}, 1.0)\n"
             f"        out[i] = (v.x if {name} > 2.0 else -1.0) + tack.atomic_add(x, i, 0.0)\n"
             "x = tack.array(np.arange(4, dtype=np.float32))\nout = tack.zeros(4, tack.f32)\n")
    return Case(f"names/local/{name}", "k(x, out)", None, setup,
                check="assert out.numpy().tolist() == [-1.0, 0.0, 6.0, 9.0], out.numpy()")


def _beside_object(name: str) -> Case:
    """A parameter spelled like an object attribute's old expansion (`g__n` beside `g.n`)."""
    setup = ("@tack.device_class\nclass G:\n    def __init__(self, n, a):\n"
             "        self.n = n\n        self.a = a\n"
             f"@tack.kernel\ndef k(g, {name}, out):\n"
             f"    for i in range(g.n):\n"
             f"        out[i] = g.a[i] * 10 + {name}\n"
             "out = tack.zeros(4, tack.i32)\n"
             "g = G(3, tack.array(np.array([1, 2, 3, 4], np.int32)))\n")
    return Case(f"names/object/{name}", "k(g, 7, out)", None, setup,
                check="assert out.numpy().tolist() == [17, 27, 37, 0], out.numpy()",
                quick=name == "g__n")


def _returns(name: str) -> Case:
    """`name` beside a return value (its hidden array and loop)."""
    setup = (f"@tack.kernel\ndef k({name}, out) -> tack.i32:\n"
             f"    for i in range(out.shape[0]):\n"
             f"        out[i] = {name}\n"
             f"    return {name} + 1\n"
             "out = tack.zeros(3, tack.i32)\n")
    return Case(f"names/return/{name}", "r = k(5, out)", None, setup,
                check="assert r == 6 and out.numpy().tolist() == [5, 5, 5], (r, out.numpy())")


def _debug(name: str) -> Case:
    """`name` as an array parameter in debug mode (its hidden bounds-check buffer)."""
    setup = (f"@tack.kernel\ndef k({name}, out):\n"
             f"    for i in range(out.shape[0]):\n"
             f"        out[i] = {name}[i] + 1.0\n"
             "out = tack.zeros(3, tack.f32)\nsrc = tack.ones(3, tack.f32)\n")
    return Case(f"names/debug/{name}", "tack.set_debug(True)\ntry:\n    k(src, out)\n"
                "finally:\n    tack.set_debug(False)\n", None, setup,
                check="assert out.numpy().tolist() == [2.0] * 3, out.numpy()")


def _sum(n: int) -> str:
    return " + ".join(["x[i]"] * n)


def _deep(n: int, expect: str | None) -> Case:
    """A sum of n terms: compiled (frontend/depth.py), or refused beyond its limit."""
    src = (f"@tack.kernel\ndef k(x, out):\n    for i in range(x.shape[0]):\n"
           f"        out[i] = {_sum(n)}\n")
    return Case(f"names/deep/sum-{n}", src + "k(x, out)", expect,
                f"import sys\nsys.setrecursionlimit(max(sys.getrecursionlimit(), {8 * n}))\n"
                "x = tack.ones(4, tack.f32)\nout = tack.zeros(4, tack.f32)\n",
                position=expect is not None, isolate=True, timeout=900,
                check="" if expect else f"assert out.numpy().tolist() == [{n}.0] * 4",
                note="deep expressions compile or are refused, never crash")


CASES: list[Case] = [
    *map(_as_scalar, [n for n in _NAMES if n not in ("t", "n")]),
    *map(_as_local, [n for n in _NAMES if n not in ("v",)]),
    *map(_beside_object, ["g__n", "g__a", "g_n", "n", "a"]),
    *map(_returns, ["__ret", "__epilogue", "_i", "ret"]),
    *map(_debug, ["__dbg", "dbg", "_i"]),
    _deep(250, None), _deep(500, None), _deep(2_000, None), _deep(5_000, None),
    _deep(25_000, "UnsupportedSyntaxError"),
]
