"""`@tack.func` arguments of kernels and the host-array launch checks (docs/language.md,
"Device functions as arguments"; runtime/host.py).

Classes: a value where the body calls a parameter, a plain Python function where a `@tack.func`
goes, a `@tack.func` used as a value (in the kernel, or in a `@tack.func` it was passed on to:
that one gave a NameError naming the function object), keywords naming no parameter or one given
twice; each a TypeError before anything runs, arrays unchanged. And a read-only array the kernel
may write, launched on the simulator engine directly: refused before the run as the Julia engine
refuses it (it was NumPy's "assignment destination is read-only" mid-run). Kernel rows run on
the CPU engine and on the simulator (`@sim` in the name)."""
from __future__ import annotations

from .case import Case

ENGINES = (("", "None"), ("@sim", "'sim'"))

_SETUP = (
    "tack.set_default_device('cpu', engine={engine})\n"
    "@tack.func\ndef add(a, b):\n    return a + b\n"
    "@tack.func\ndef apply(f, a, b):\n    return f(a, b)\n"
    "@tack.func\ndef bump(f, a):\n    return f + a\n"
    "@tack.kernel\ndef pairwise(x, out, combine):\n    for i in range(out.shape[0]):\n"
    "        out[i] = combine(x[2 * i], x[2 * i + 1])\n"
    "@tack.kernel\ndef passed_on(x, out, combine):\n    for i in range(out.shape[0]):\n"
    "        out[i] = apply(combine, x[2 * i], x[2 * i + 1])\n"
    "@tack.kernel\ndef as_value(x, out, combine):\n    for i in range(out.shape[0]):\n"
    "        out[i] = combine + x[i]\n"
    "@tack.kernel\ndef as_value_inside(x, out, combine):\n    for i in range(out.shape[0]):\n"
    "        out[i] = bump(combine, x[i])\n"
    "@tack.kernel\ndef global_inside(x, out):\n    for i in range(out.shape[0]):\n"
    "        out[i] = bump(add, x[i])\n"
    "x = tack.array(np.arange(14, dtype=np.float32))\nout = tack.full(7, -5.0)\n")

_ROWS = [  # (name, call, expected class, position, mentions)
    ("value-called", "pairwise(x, out, 2.0)", "tack.TackTypeError", True, ("combine",)),
    ("value-called-inside", "passed_on(x, out, 3)", "tack.TackTypeError", True, ("'f'",)),
    ("plain-function", "pairwise(x, out, lambda a, b: a + b)", "tack.TackTypeError", False,
     ("combine", "@tack.func")),
    ("func-as-value", "as_value(x, out, add)", "tack.TackTypeError", True, ("add", "combine")),
    ("func-as-value-inside", "as_value_inside(x, out, add)", "tack.TackTypeError", True,
     ("add", "'f'")),
    ("global-func-as-value-inside", "global_inside(x, out)", "tack.TackTypeError", True,
     ("add", "'f'")),
    ("unknown-keyword", "pairwise(x, out, combin=add)", "tack.TackTypeError", False,
     ("pairwise", "combin")),
    ("keyword-twice", "pairwise(x, out, add, combine=add)", "tack.TackTypeError", False,
     ("pairwise", "combine")),
]


def _kernels() -> list[Case]:
    out = []
    for suffix, engine in ENGINES:
        setup = _SETUP.format(engine=engine)
        for name, call, err, pos, words in _ROWS:
            out.append(Case(f"func-args/{name}{suffix}", call, err, setup, position=pos,
                            mentions=words, unchanged=("x", "out"),
                            quick=(name, suffix) == ("func-as-value-inside", ""),
                            note="a @tack.func argument refused for what it is, before launch"))
        out.append(Case(
            f"func-args/by-keyword{suffix}", "pairwise(x, out, combine=add)", None, setup,
            check="assert (out.numpy() == np.arange(0, 14, 2) * 2 + 1).all(), out.numpy()\n",
            note="a @tack.func given by keyword is inlined where the parameter is called"))
    return out


_HOST = (
    "from tack.compiler import specialize\nfrom tack.runtime.sim.engine import SimEngine\n"
    "@tack.kernel\ndef scale(x, out):\n    for i in range(out.shape[0]):\n"
    "        out[i] = 2.0 * x[i]\n"
    "kir = specialize(scale, [tack.zeros(4), tack.zeros(4)], tack.device('cpu'))\n"
    "x = np.arange(4, dtype=np.float32)\nout = np.full(4, -5.0, np.float32)\n"
    "out.flags.writeable = False\n")

CASES: list[Case] = _kernels() + [
    Case("func-args/host-read-only-written@sim", "SimEngine().compile(kir).launch([x, out], 4)",
         "tack.TackValueError", _HOST, mentions=("scale", "out", "read-only"),
         unchanged=("x", "out"),
         note="the simulator ran into NumPy's read-only error mid-run; the Julia engine refused"),
]
