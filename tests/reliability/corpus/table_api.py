"""Bad inputs at the public API: arguments, decoration, kernel bodies, arrays and settings.

Rows are generated from the small tables below (one value or construct per line), each group
by one function; `CASES` is their concatenation."""
from __future__ import annotations

from .case import Case

# A kernel that reads `x` and writes `out`, the arrays every argument row passes around it.
_COPY = '''
@tack.kernel
def k(x, out):
    for i in range(x.shape[0]):
        out[i] = x[i] * 2.0
x = tack.array(np.arange(8, dtype=np.float32))
out = tack.zeros(8, tack.f32)
'''

# Values that are not arguments a kernel takes: (label, Python expression).
_BAD_ARGS = [
    ("str", "'abc'"), ("none", "None"), ("list", "[1.0, 2.0]"), ("tuple", "(1, 2)"),
    ("dict", "{}"), ("object", "object()"), ("complex", "1j"), ("bytes", "b'ab'"),
    ("numpy-array", "np.zeros(8, np.float32)"), ("int-too-big", "2**64"),
    ("int-too-small", "-2**63 - 1"), ("set", "{1}"), ("function", "len"),
    ("module", "np"), ("type", "int"), ("slice", "slice(1)"),
    ("np-complex", "np.complex64(1)"), ("np-f16", "np.float16(1)"),
    ("np-str", "np.str_('a')"), ("ellipsis", "..."),
]


def _arguments() -> list[Case]:
    """Each bad value in the array position and in the output position."""
    out = []
    for label, expr in _BAD_ARGS:
        out.append(Case(f"api/arg/x-{label}", f"k({expr}, out)", "TypeError", _COPY,
                        mentions=("'k'", "'x'"), unchanged=("out",), quick=label == "str"))
        out.append(Case(f"api/arg/out-{label}", f"k(x, {expr})", "TypeError", _COPY,
                        mentions=("'k'", "'out'"), unchanged=("x",)))
    return out


_RANGE = '''
@tack.kernel
def k(n, out):
    for i in range(n):
        out[i] = 1.0
out = tack.zeros(8, tack.f32)
'''

_DIV = '''
@tack.kernel
def k(n, m, out):
    for i in range(n // m):
        out[i] = 1.0
out = tack.zeros(8, tack.f32)
'''

_TIMES4 = '''
@tack.kernel
def k(n, out):
    for i in range(n * 4):
        out[0] = 1.0
out = tack.zeros(1, tack.f32)
'''

# Bad values of a range bound `n`: (label, expression, expected class, position expected).
_BOUNDS = [
    ("float", "2.0", "TypeError", True), ("nan", "float('nan')", "TypeError", True),
    ("inf", "float('inf')", "TypeError", True), ("np-float32", "np.float32(2)", "TypeError", True),
    ("np-float64", "np.float64(2)", "TypeError", True), ("str", "'3'", "TypeError", False),
    ("none", "None", "TypeError", False), ("array", "out", "TypeError", True),
    ("too-big", "2**64", "TypeError", False), ("complex", "1j", "TypeError", False),
]


def _calls() -> list[Case]:
    """Arity, keywords and launch bounds."""
    out = [Case(f"api/bound/{label}", f"k({expr}, out)", cls, _RANGE, position=pos,
                mentions=("'k'",), unchanged=("out",), quick=label == "nan",
                note="a bad launch bound is refused before launch, naming the kernel")
           for label, expr, cls, pos in _BOUNDS]
    out += [
        Case("api/arity/none", "k()", "TypeError", _COPY, mentions=("'k'", "2")),
        Case("api/arity/fewer", "k(x)", "TypeError", _COPY, mentions=("'k'",),
             unchanged=("x",), quick=True),
        Case("api/arity/more", "k(x, out, 1)", "TypeError", _COPY, mentions=("'k'",),
             unchanged=("x", "out")),
        # arguments bind by name as in Python (docs/language.md, "Kernels and calls")
        Case("api/keyword/all", "k(x=x, out=out)", None, _COPY, unchanged=("x",)),
        Case("api/keyword/some", "k(x, out=out)", None, _COPY, unchanged=("x",)),
        Case("api/keyword/unknown", "k(x, y=out)", "TypeError", _COPY, mentions=("'k'", "'y'"),
             unchanged=("x", "out")),
        Case("api/keyword/twice", "k(x, out, x=x)", "TypeError", _COPY,
             mentions=("'k'", "'x'"), unchanged=("x", "out")),
        Case("api/keyword/missing", "k(out=out)", "TypeError", _COPY, mentions=("'k'", "'x'"),
             unchanged=("out",)),
        Case("api/bound/divide-by-zero", "k(4, 0, out)", "ValueError", _DIV, position=True,
             mentions=("'k'",), unchanged=("out",)),
        Case("api/bound/warm-divide-by-zero", "k(4, 0, out)", "ValueError",
             _DIV + "k(4, 1, out)\nk(4, 1, out)\n", position=True, mentions=("'k'",),
             note="the prebuilt call path (tack.call.fast) meets the zero divisor"),
        Case("api/bound/step-zero", "k(0, out)", "ValueError",
             "@tack.kernel\ndef k(s, out):\n    for i in range(0, 8, s):\n        out[i] = 1.0\n"
             "out = tack.zeros(8, tack.f32)\n", mentions=("'k'",), unchanged=("out",)),
        Case("api/bound/index-overflow", "k(2**29 + 1, out)", "ValueError", _TIMES4,
             mentions=("'k'",), unchanged=("out",),
             note="docs/language.md: 2**29 + 1 is the first n whose indices leave i32"),
        Case("api/bound/index-fits", "k(0, out)", None, _TIMES4),
    ]
    return out


# What `tack.kernel` / `tack.func` must refuse: (label, setup, argument, expected class).
_DECORATE = [
    ("lambda", "", "lambda x: x", "UnsupportedSyntaxError"), ("int", "", "42", "TypeError"),
    ("none", "", "None", "TypeError"), ("builtin", "", "len", "TypeError"),
    ("class", "class A:\n    pass\n", "A", "TypeError"), ("str", "", "'k'", "TypeError"),
    ("partial", "import functools\n", "functools.partial(print, 1)", "TypeError"),
    ("exec-made", "ns = {}\nexec('def f(x):\\n    pass', ns)\n", "ns['f']", "RuntimeError"),
]


def _decorations() -> list[Case]:
    out = []
    for label, setup, arg, cls in _DECORATE:
        for deco in ("kernel", "func"):
            if deco == "kernel" and label == "none":
                continue  # tack.kernel(None) is the decorator itself: @tack.kernel(fastmath=...)
            out.append(Case(f"api/decorate/{deco}-{label}", f"tack.{deco}({arg})", cls, setup,
                            quick=label == "lambda" and deco == "kernel",
                            note="decorating what is not a function is a TackError"))
    return out


# Settings and types: (label, call, expected class).
_SETTINGS = [
    ("debug-string-false", "tack.set_debug('false')", "TypeError"),
    ("debug-string-true", "tack.set_debug('true')", "TypeError"),
    ("debug-none", "tack.set_debug(None)", "TypeError"),
    ("debug-two", "tack.set_debug(2)", "TypeError"),
    ("debug-true", "tack.set_debug(True); tack.set_debug(False)", None),
    ("device-cpu1", "tack.set_default_device('cpu:1')", "ValueError"),
    ("device-sim3", "tack.device('sim:3')", None),  # several simulated GPUs (scale-out.md)
    ("device-sim-negative", "tack.device('sim:-1')", "ValueError"),
    ("device-unknown", "tack.set_default_device('gpu')", "ValueError"),
    ("device-int", "tack.set_default_device(5)", "ValueError"),
    ("device-bad-index", "tack.set_default_device('cuda:x')", "ValueError"),
    ("device-option", "tack.set_default_device('cpu', bogus=1)", "ValueError"),
    ("threads-zero", "tack.device('cpu', num_threads=0)", "ValueError"),
    ("threads-str", "tack.device('cpu', num_threads='4')", "ValueError"),
    ("threads-bool", "tack.device('cpu', num_threads=True)", "ValueError"),
    ("engine-unknown", "tack.device('cpu', engine='nope')", "ValueError"),
    ("vector-0", "tack.vector(0)", "ValueError"), ("vector-5", "tack.vector(5)", "ValueError"),
    ("vector-float", "tack.vector(2.0)", "ValueError"),
    ("matrix-5", "tack.matrix(5, 2)", "ValueError"),
    ("vector-dtype", "tack.vector(3, 'complex64')", "TypeError"),
    ("constant-str", "tack.constant('x')", "TypeError"),
    ("constant-empty", "tack.constant(())", "TypeError"),
    ("constant-5", "tack.constant((1, 2, 3, 4, 5))", None),  # a table (language.md)
    ("constant-ragged", "tack.constant(((1, 2), (3,)))", "TypeError"),
    ("constant-65537", "tack.constant(tuple(range(65537)))", "TypeError"),
    ("texture-dtype", "tack.texture3d(tack.zeros((2, 2, 2), tack.f64))", "TypeError"),
    ("texture-shape", "tack.texture3d(tack.zeros(7), shape=(2, 2, 2))", "ValueError"),
]


def _settings() -> list[Case]:
    return [Case(f"api/settings/{label}", call, cls,
                 check="tack.set_debug(False)" if "debug" in label else "",
                 quick=label in ("debug-string-false", "device-cpu1"), note="a bad setting is refused")
            for label, call, cls in _SETTINGS]


_SCALE = """
@tack.kernel
def k(a, out):
    for i in range(out.shape[0]):
        out[i] = a
out = tack.zeros(2, tack.f64)
"""

# Scalar arguments at the edges of the rules (docs/language.md, "Kernels and calls"): (label,
# expression, the value stored into an f64 array, or None when the call must raise TypeError).
_SCALARS = [
    ("true", "True", 1.0), ("np-bool", "np.bool_(True)", 1.0), ("i32-max", "2**31 - 1", 2**31 - 1),
    ("i32-min", "-2**31", -2**31), ("i64-min", "-2**63", -2.0**63), ("u64-max", "2**64 - 1",
                                                                      2.0**64),
    ("np-int8", "np.int8(-5)", -5.0), ("np-uint64", "np.uint64(7)", 7.0),
    ("np-float16", "np.float16(1)", 1.0), ("float-nan", "float('nan')", "nan"),
    ("float-inf", "float('-inf')", "-inf"), ("np-longdouble", "np.longdouble(2)", 2.0),
    ("fraction", "__import__('fractions').Fraction(1, 2)", None),
    ("decimal", "__import__('decimal').Decimal(1)", None),
    ("0-d-array", "np.array(2.0)", None),
]


def _scalars() -> list[Case]:
    out = []
    for label, expr, want in _SCALARS:
        if want is None:
            out.append(Case(f"api/scalar/{label}", f"k({expr}, out)", "TypeError", _SCALE,
                            mentions=("'k'", "'a'"), unchanged=("out",)))
            continue
        check = ("assert np.isnan(out.numpy()).all()" if want == "nan" else
                 "assert (out.numpy() == -np.inf).all()" if want == "-inf" else
                 f"assert out.numpy().tolist() == [{want!r}] * 2, out.numpy()")
        out.append(Case(f"api/scalar/{label}", f"k({expr}, out)", None, _SCALE, check=check))
    return out


_OBJ = """
@tack.device_class
class P:
    def __init__(self, a):
        self.a = a

@tack.kernel
def k(p, out):
    for i in range(out.shape[0]):
        out[i] = p.a
out = tack.zeros(2, tack.f32)
"""

# Device-class arguments that are wrong: (label, setup, call, expected class).
_OBJECTS = [
    ("cycle", "p = P(1.0)\np.a = p\n", "k(p, out)", "TypeError"),
    ("missing-attribute", "p = P(1.0)\ndel p.a\n", "k(p, out)", "ValueError"),
    ("string-attribute", "p = P('x')\n", "k(p, out)", "ValueError"),
    ("array-as-scalar", "p = P(tack.zeros(2))\n", "k(p, out)", "TypeError"),
    ("not-a-device-class", "class Q:\n    a = 1.0\n", "k(Q(), out)", "TypeError"),
    ("iterate-undeclared", ("@tack.kernel\ndef j(p, out):\n    for c in p:\n        out[c] = 1.0\n"
                            "p = P(1)\n"), "j(p, out)", "TypeError"),
]


def _objects() -> list[Case]:
    return [Case(f"api/object/{label}", call, cls, _OBJ + setup, mentions=("'",),
                 unchanged=("out",)) for label, setup, call, cls in _OBJECTS]


CASES: list[Case] = [*_arguments(), *_calls(), *_decorations(), *_settings(), *_scalars(),
                     *_objects()]
