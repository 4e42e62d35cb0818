"""Language forms of docs/language.md that a kernel may write, and their refusals.

Each accepted form runs and its result is checked against NumPy or Python integers; each refusal
must come before anything runs, with the contract's class, at the construct's position, naming
the kernel, arrays unchanged. Classes: `tack.ndrange` of any rank ("Parallel loop"); statements
before the loop that unpack (`h, w = a.shape`) and local assignments after it; a conditional
expression with a vector arm and a scalar arm; matrix entries `m[i, j]` (a host matrix constant
too) against `.x` of a matrix and `any()`/`all()` of a scalar ("Vectors and matrices"); vectors
unpacked where tuples are (a `@tack.func`'s returned vector)."""
# ruff: noqa: ISC004 - rows hold source text split over lines
from __future__ import annotations

from .case import Case

_EXTENTS = (1, 3, 5, 7, 2, 3, 1, 2)


def _ndrange(rank: int) -> Case:
    """A parallel ndrange of `rank` names over awkward extents, dimension 1 from 1 (a pair)."""
    names = [f"i{d}" for d in range(rank)]
    shape = _EXTENTS[:rank]
    bounds = ", ".join("(1, out.shape[1])" if d == 1 else f"out.shape[{d}]" for d in range(rank))
    value = " + ".join(f"{n} * {10 ** (rank - 1 - d)}" for d, n in enumerate(names))
    setup = (f"@tack.kernel\ndef k(out):\n    for {', '.join(names)} in tack.ndrange({bounds}):\n"
             f"        out[{', '.join(names)}] = {value}\n"
             f"out = tack.zeros({shape!r}, tack.i64)\n")
    check = (f"idx = np.indices({shape!r})\n"
             f"want = sum(idx[d] * 10 ** ({rank} - 1 - d) for d in range({rank}))\n"
             "want = np.where(idx[1] >= 1, want, 0)\n"
             "assert (out.numpy() == want).all(), out.numpy()\n")
    return Case(f"language/ndrange/rank-{rank}", "k(out)", None, setup, check=check,
                quick=rank == 4, note="tack.ndrange refused more than three extents")


def _kernel(body: str, after: str = "", before: str = "", bound: str = "x.shape[0]") -> str:
    """`k(x, v, m, out, outv, n)` around one loop body over `i` in `range(bound)`; `before` and
    `after` the loop."""
    def ind(src: str, k: int) -> str:
        return "\n".join(" " * k + ln for ln in src.splitlines())

    return (f"{_HELPERS}\n@tack.kernel\ndef k(x, v, m, out, outv, n):\n"
            + (ind(before, 4) + "\n" if before else "")
            + f"    for i in range({bound}):\n{ind(body, 8)}\n"
            + (ind(after, 4) + "\n" if after else "") + _ARGS)


_HELPERS = '''
ROT = tack.constant(((0.0, -1.0), (1.0, 0.0)))

@tack.func
def spread(a):
    return tack.vec3(a, a * 2.0, a * 3.0)

@tack.func
def rows_of(a):
    return [[a, 1.0], [2.0, a]]
'''

_ARGS = '''
x = tack.array(np.array([1.5, -2.0, 0.25, 4.0], np.float32))
v = tack.array(np.arange(12, dtype=np.float32).reshape(4, 3), dtype=tack.vec3)
m = tack.array(np.arange(16, dtype=np.float32).reshape(4, 2, 2), dtype=tack.mat2)
out = tack.zeros(4)
outv = tack.zeros(4, tack.vec3)
xs, vs, ms = x.numpy().astype(np.float64), v.numpy().astype(np.float64), m.numpy()
'''

_CALL = "k(x, v, m, out, outv, 3)"
_OUT = "np.testing.assert_allclose(out.numpy(), {}, rtol=1e-6)\n"
_OUTV = "np.testing.assert_allclose(outv.numpy(), {}, rtol=1e-6)\n"

# (label, loop body, before the loop, after the loop, check[, loop bound]). All must run.
_ACCEPTED = [
    ("ndrange/nested-rank-4", "t = 0\nfor a, b, c, d in tack.ndrange(i + 1, (1, 3), 2, (i, i + 2)):"
     "\n    t += a * 1000 + b * 100 + c * 10 + d\nout[i] = t", "", "",
     _OUT.format("[sum(a * 1000 + b * 100 + c * 10 + d for a in range(i + 1) for b in (1, 2)"
                 " for c in range(2) for d in range(i, i + 2)) for i in range(4)]")),
    ("before/shape-unpack", "out[i] = h * 10 + w", "h, = x.shape\nw, z = n, 2", "",
     _OUT.format("[43.0] * 4"), "h"),
    ("before/swapped-bounds", "out[i] = a * 10 + b", "a, b = 2, x.shape[0]\na, b = b, a\n"
     "a = a - 1", "", _OUT.format("[32.0] * 3 + [0.0]"), "a"),
    ("after/local", "out[i] = x[i]", "", "unused = n * 2.0\nif n > 1:\n    unused = unused + x[0]",
     _OUT.format("xs")),
    ("ifexp/scalar-else", "outv[i] = v[i] if x[i] > 0.0 else 0.0", "", "",
     _OUTV.format("np.where(xs[:, None] > 0, vs, 0)")),
    ("ifexp/scalar-then", "outv[i] = -1 if x[i] > 0.0 else v[i] * 0.5", "", "",
     _OUTV.format("np.where(xs[:, None] > 0, -1, vs * 0.5)")),
    ("ifexp/matrix-arm", "w = m[i] if x[i] < 0.0 else x[i]\nout[i] = w[0, 1] + w[1, 0]", "", "",
     _OUT.format("np.where(xs < 0, ms[:, 0, 1] + ms[:, 1, 0], 2 * xs)")),
    ("matrix/entries", "mm = m[i]\nr = ROT\nout[i] = mm[0, 1] + mm[i % 2, 1] * 10.0 + "
     "ROT[0, 1] * 100.0 + r[i % 2, 0] * 1000.0", "", "",
     _OUT.format("ms[:, 0, 1] + ms[np.arange(4), np.arange(4) % 2, 1] * 10 - 100 "
                 "+ np.array([0.0, 1.0, 0.0, 1.0]) * 1000")),
    ("unpack/returned-vector", "a, b, c = spread(x[i])\nout[i] = a + b * 10.0 + c * 100.0", "",
     "", _OUT.format("xs * 321")),
    ("unpack/returned-rows", "r0, r1 = rows_of(x[i])\nout[i] = r0.x + r1.x * 10.0", "", "",
     _OUT.format("xs + 20")),
    ("unpack/local-vector", "p, q, s = v[i]\nout[i] = p - q + s * 3.0", "", "",
     _OUT.format("vs[:, 0] - vs[:, 1] + vs[:, 2] * 3")),
]

U, T, N = "UnsupportedSyntaxError", "TypeError", "NameError"
# (label, loop body, before the loop, after the loop, class[, loop bound]). All are refused.
_REFUSED = [
    ("ndrange/targets", "for a, b in tack.ndrange(2, 2, 2, 2):\n    out[i] = a", "", "", U),
    ("before/shape-rank", "out[i] = h", "h, w = x.shape", "", T),
    ("before/unpacked-bound", "out[i] = x[i]", "a, b = spread(x[0])", "", U, "a"),
    ("after/store", "out[i] = x[i]", "", "out[0] = 2.0", U),
    ("after/atomic", "out[i] = x[i]", "", "t = tack.atomic_add(out, 0, 1.0)", U),
    ("after/loop-local", "t = x[i]\nout[i] = t", "", "u = t * 2.0", N),
    ("after/type-error", "out[i] = x[i]", "", "u = tack.vec2(1.0, 2.0) + v[0]", T),
    ("ifexp/atomic-arm", "outv[i] = v[i] if x[i] > 0.0 else tack.atomic_add(out, 0, 1.0)", "",
     "", T),
    ("ifexp/shapes", "w = tack.vec2(x[i], 1.0) if x[i] > 0.0 else v[i]\nout[i] = w.x", "", "",
     T),
    ("matrix/x-component", "out[i] = m[i].x[0]", "", "", T),
    ("matrix/constant-y", "out[i] = ROT.y[0]", "", "", T),
    ("mask/any-scalar", "out[i] = 1.0 if any(x[i] > 0.0) else 0.0", "", "", T),
    ("mask/all-scalar", "out[i] = 1.0 if all(x[i]) else 0.0", "", "", T),
    ("unpack/returned-count", "a, b = spread(x[i])\nout[i] = a", "", "", T),
    ("unpack/local-count", "a, b, c, d = v[i]\nout[i] = a", "", "", T),
]


def _accepted() -> list[Case]:
    return [Case(f"language/{label}", _CALL, None, _kernel(body, after, before, *bound),
                 check=check, quick=label in ("ifexp/scalar-else", "unpack/returned-vector"))
            for label, body, before, after, check, *bound in _ACCEPTED]


def _refused() -> list[Case]:
    out = []
    for label, body, before, after, cls, *bound in _REFUSED:
        src = _kernel(body, after, before, *bound)
        out.append(Case(f"language/{label}", _CALL, cls, src, position=True, mentions=("'k'",),
                        unchanged=("x", "v", "m", "out", "outv"),
                        quick=label in ("matrix/x-component", "mask/any-scalar")))
    return out


_HOST = [
    Case("language/matrix/host-index", "got = (R[0, 1], R[1, 0], R[-1, -2], R[1][0])", None,
         "R = tack.constant(((0.0, -1.0), (1.0, 0.0)))\n",
         check="assert got == (-1.0, 1.0, 1.0, 1.0), got",
         note="a host matrix constant indexed R[0, 1] raised a bare TypeError"),
    Case("language/matrix/host-too-many", "R[0, 1, 0]", "TypeError",
         "R = tack.constant(((0.0, -1.0), (1.0, 0.0)))\n", mentions=("3 indices",)),
]

CASES: list[Case] = [*map(_ndrange, range(4, 9)), *_accepted(), *_refused(), *_HOST]
