"""Kernel bodies the language refuses: each must be rejected before anything runs, with the
contract's class, at the construct's source position, naming the kernel, arrays unchanged.

Rows are one line of a loop body (or a whole kernel, for the shapes of a kernel), wrapped by
`_loop`; the expected class follows docs/language.md ("Statements inside the loop", "Errors")."""
# ruff: noqa: ISC004 - rows hold source text split over lines
from __future__ import annotations

from .case import Case

_ARGS = '''
x = tack.array(np.arange(8, dtype=np.float32))
out = tack.zeros(8, tack.f32)
ix = tack.zeros(8, tack.i32)
v3 = tack.zeros(8, tack.vec3)
'''

_HELPERS = '''
@tack.func
def twice(a):
    return a * 2.0

@tack.func
def rec(a):
    return rec(a)

def plain(a):
    return a

TABLE = [1.0, 2.0]
'''

U, T, N = "UnsupportedSyntaxError", "TypeError", "NameError"

# (label, one statement of the loop body over `i`, expected class). The kernel is
# `def k(x, out, ix, v3, n)`; `n` is 3.
_BODY = [
    ("assert", "assert x[i] > 0.0", U), ("try", "try:\n    out[i] = 1.0\nexcept:\n    pass", U),
    ("with", "with x:\n    pass", U), ("import", "import math", U),
    ("from-import", "from math import sqrt", U), ("nested-def", "def g():\n    pass", U),
    ("lambda", "f = lambda a: a", U), ("listcomp", "out[i] = [a for a in range(3)][0]", U),
    ("setcomp", "s = {a for a in range(3)}", U), ("dictcomp", "s = {a: a for a in range(3)}", U),
    ("genexp", "out[i] = sum(a for a in range(3))", U), ("slice-load", "s = x[0:2]", U),
    ("slice-store", "out[0:2] = 1.0", U), ("kwarg-call", "out[i] = twice(a=x[i])", U),
    ("starred-call", "out[i] = max(*x)", U), ("chained-assign", "a = b = x[i]", U),
    ("global", "global TABLE", U), ("del", "a = 1\ndel a", U), ("yield", "yield x[i]", U),
    ("class", "class C:\n    pass", U), ("raise", "raise ValueError('x')", U),
    ("match", "match n:\n    case 1:\n        pass", U), ("for-else", "for j in range(2):\n"
                                                           "    pass\nelse:\n    pass", U),
    ("while-else", "while n < 0:\n    pass\nelse:\n    pass", U),
    ("walrus", "out[i] = (a := x[i])", U), ("return-in-loop", "return", U),
    ("break-parallel", "break", U), ("fstring", "s = f'{n}'", U),
    ("dict-literal", "s = {1: 2}", U), ("set-literal", "s = {1, 2}", U),
    ("string", "s = 'abc'", U), ("bytes", "s = b'abc'", U), ("ellipsis", "s = ...", U),
    ("is", "out[i] = 1.0 if x is None else 0.0", U),
    ("in", "out[i] = 1.0 if n in (1, 2) else 0.0", U),
    ("matmul", "out[i] = x[i] @ x[i]", T), ("python-func", "out[i] = plain(x[i])", U),
    ("method-on-array", "out[i] = x.sum()", T), ("array-attribute", "out[i] = x.T[i]", U),
    ("recursion", "out[i] = rec(x[i])", U), ("star-unpack", "a, *b = 1, 2, 3", U),
    ("attribute-store", "x.y = 1.0", T), ("sorted", "out[i] = sorted(x)[0]", U),
    ("complex", "out[i] = x[i] * 1j", U), ("tuple-store", "out[i] = (1.0, 2.0)", U),
    ("unknown-name", "out[i] = SCALE * x[i]", N), ("module-list", "out[i] = TABLE[0]", N),
    ("loop-var-after", "for j in range(2):\n    pass\nout[i] = j", N),
    ("index-count", "out[i, 0, 1] = 1.0", T), ("index-float", "out[1.5] = 1.0", T),
    ("vector-into-scalar", "out[i] = tack.vec3(1.0, 2.0, 3.0)", T),
    ("list-into-scalar", "out[i] = [x[i], x[i]]", T),
    ("shift-float", "out[i] = x[i] << 1", T), ("invert-float", "out[i] = ~x[i]", T),
    ("bitand-float", "out[i] = x[i] & 1.0", T), ("array-as-value", "out[i] = x", T),
    ("atomic-local", "a = 1.0\ntack.atomic_add(a, 0, 1.0)", U),
    ("int-array-float", "ix[i] = x[i]", None),
    ("vector-len-mismatch", "v3[i] = tack.vec2(1.0, 2.0)", T),
    ("vector-wrong-count", "v3[i] = [1.0, 2.0]", T),
    ("vector-mask-cond", "out[i] = 1.0 if v3[i] > 0.0 else 0.0", U),
    ("unknown-method", "out[i] = v3[i].frobnicate()", U),
    ("select-args", "out[i] = tack.select(x[i] > 0.0, 1.0)", U),
    ("math-arity", "out[i] = sqrt(x[i], x[i])", U),
    ("range-float-arg", "for j in range(1.5):\n    pass", T),
    ("unroll-bad", "for j in tack.unroll(range(4), 0):\n    pass", U),
]

# Whole kernels with the wrong shape: (label, source, call, expected class).
_SHAPES = [
    ("no-loop", "@tack.kernel\ndef k(x):\n    x[0] = 1.0\n", "k(x)", U),
    ("two-loops", "@tack.kernel\ndef k(x):\n    for i in range(2):\n        x[i] = 1.0\n"
                  "    for j in range(2):\n        x[j] = 2.0\n", "k(x)", U),
    ("after-loop", "@tack.kernel\ndef k(x):\n    for i in range(2):\n        x[i] = 1.0\n"
                   "    x[0] = 2.0\n", "k(x)", U),
    ("store-before", "@tack.kernel\ndef k(x):\n    x[0] = 2.0\n    for i in range(2):\n"
                     "        x[i] = 1.0\n", "k(x)", U),
    ("atomic-before", "@tack.kernel\ndef k(x):\n    tack.atomic_add(x, 0, 1.0)\n"
                      "    for i in range(2):\n        x[i] = 1.0\n", "k(x)", U),
    ("varargs", "@tack.kernel\ndef k(*x):\n    for i in range(2):\n        pass\n", "k(x)", U),
    ("kwargs", "@tack.kernel\ndef k(x, **kw):\n    for i in range(2):\n        x[i] = 1.0\n",
     "k(x)", U),
    ("default", "@tack.kernel\ndef k(x, n=2):\n    for i in range(n):\n        x[i] = 1.0\n",
     "k(x, 2)", U),
    ("keyword-only", "@tack.kernel\ndef k(x, *, n):\n    for i in range(n):\n        x[i] = 1.0\n",
     "k(x, 2)", U),
    ("positional-only", "@tack.kernel\ndef k(x, /, n):\n    for i in range(n):\n"
                        "        x[i] = 1.0\n", "k(x, 2)", U),
    ("async", "@tack.kernel\nasync def k(x):\n    for i in range(2):\n        x[i] = 1.0\n",
     "k(x)", U),
    ("return-no-annotation", "@tack.kernel\ndef k(x):\n    for i in range(2):\n"
                             "        x[i] = 1.0\n    return 1.0\n", "k(x)", U),
    ("return-type-error", "@tack.kernel\ndef k(x) -> tack.f32:\n    for i in range(2):\n"
                          "        x[i] = 1.0\n    return x[0] + tack.vec3(1.0, 2.0, 3.0)\n",
     "k(x)", T),
    ("return-loop-local", "@tack.kernel\ndef k(x) -> tack.f32:\n    for i in range(2):\n"
                          "        a = 1.0\n        x[i] = a\n    return a\n", "k(x)", N),
    ("return-bad-annotation", "@tack.kernel\ndef k(x) -> str:\n    for i in range(2):\n"
                              "        x[i] = 1.0\n    return 1.0\n", "k(x)", U),
    ("range-over-array", "@tack.kernel\ndef k(x):\n    for i in x:\n        pass\n", "k(x)", U),
    ("range-kwarg", "@tack.kernel\ndef k(x):\n    for i in range(stop=2):\n        x[i] = 1.0\n",
     "k(x)", U),
    ("range-zero-step", "@tack.kernel\ndef k(x):\n    for i in range(0, 4, 0):\n"
                        "        x[i] = 1.0\n", "k(x)", U),
    ("range-float-literal", "@tack.kernel\ndef k(x):\n    for i in range(2.5):\n"
                            "        x[i] = 1.0\n", "k(x)", U),
    ("ndrange-mismatch", "@tack.kernel\ndef k(x):\n    for i in tack.ndrange(2, 2):\n"
                         "        x[i] = 1.0\n", "k(x)", U),
    ("unroll-parallel", "@tack.kernel\ndef k(x):\n    for i in tack.unroll(range(2), 2):\n"
                        "        x[i] = 1.0\n", "k(x)", U),
]


def _loop(body: str) -> str:
    lines = body.splitlines()
    inner = "\n".join("        " + ln for ln in lines)
    return (f"{_HELPERS}\n@tack.kernel\ndef k(x, out, ix, v3, n):\n"
            f"    for i in range(x.shape[0]):\n{inner}\n{_ARGS}")


def _bodies() -> list[Case]:
    out = []
    for label, body, cls in _BODY:
        out.append(Case(f"kernels/body/{label}", "k(x, out, ix, v3, 3)", cls, _loop(body),
                        position=cls is not None, mentions=("'k'",) if cls else (),
                        unchanged=("x", "out", "ix", "v3") if cls else (),
                        quick=label in ("assert", "vector-into-scalar", "unknown-name")))
    return out


def _shapes() -> list[Case]:
    setup = "x = tack.array(np.arange(8, dtype=np.float32))\n"
    return [Case(f"kernels/shape/{label}", call, cls, setup + src, position=True,
                 mentions=("'k'",), unchanged=("x",),
                 quick=label in ("keyword-only", "return-type-error"),
                 note="found before the loop runs" if label in ("keyword-only", "return-type-error")
                 else "")
            for label, src, call, cls in _SHAPES]


CASES: list[Case] = [*_bodies(), *_shapes()]
