"""Literals and values in the places they meet: integer expressions of literals computed exactly
(or refused where no integer type holds them), weak float literals through device functions, a
vector where one number is required, a scratch array bound to another name, and chains of nested
device functions. Each row runs on the CPU engine unless it says otherwise; the simulator rows
check that both engines agree (docs/language.md, "Literals", "Device functions")."""
from __future__ import annotations

from .case import Case


def _kernel(body: str, params: str = "out") -> str:
    """A kernel `k` whose loop body is `body` (one line, or lines joined by newlines)."""
    lines = "\n".join("        " + ln for ln in body.splitlines())
    return f"@tack.kernel\ndef k({params}):\n    for i in range(out.shape[0]):\n{lines}\n"


# -- integer expressions of literals --------------------------------------------------------------
_EXACT = [  # (name, expression, its value)
    ("pow", "2 ** 40", 2 ** 40), ("pow-10", "10 ** 12", 10 ** 12), ("shl", "1 << 40", 1 << 40),
    ("u64", "2 ** 64 - 1 - 2 ** 63", 2 ** 63 - 1), ("neg-pow", "-(2 ** 63)", -(2 ** 63)),
    ("invert", "~(2 ** 40)", ~(2 ** 40)), ("floordiv", "(1 << 62) // 3", (1 << 62) // 3),
    ("cmp-u64", "(2 ** 64 - 1 > -1) + 0", 1), ("max", "max(2 ** 64 - 1, -1) // 2 ** 33",
                                              (2 ** 64 - 1) // 2 ** 33),
    ("abs", "abs(-(2 ** 63)) - 1", 2 ** 63 - 1), ("shr", "(1 << 200) >> 190", 1024),
    ("constant", "K * K // 2 ** 41", 2 ** 39),
]


def _exact(name: str, expr: str, value: int, device: str) -> Case:
    setup = ("K = tack.constant(1 << 40)\n" + _kernel(f"out[i] = {expr}")
             + f"tack.set_default_device({device!r})\nout = tack.zeros(3, tack.i64)\n")
    return Case(f"literals/exact/{name}/{device}", "k(out)", None, setup,
                check=f"assert out.numpy().tolist() == [{value}] * 3, out.numpy()",
                quick=name == "pow", note="integer literal expressions were computed in 32 bits")


def _refused(name: str, expr: str, expect: str, word: str) -> Case:
    setup = _kernel(f"out[i] = {expr}") + "out = tack.zeros(3, tack.i64)\n"
    return Case(f"literals/refused/{name}", "k(out)", expect, setup, position=True,
                mentions=(word,), unchanged=("out",), quick=name == "too-wide",
                note="a literal expression no integer type holds")


_OFFSET = Case(
    "literals/exact/index-offset",
    "ir = tack.inspect(k, out, mode='ir')",
    None,
    "@tack.kernel\ndef k(out):\n    for i in range(out.shape[0] - 2 ** 32):\n"
    "        out[i + 2 ** 32] = 1\nout = tack.zeros(4, tack.i8)\n",
    check="assert '4294967296' in ir, ir",
    note="out[i + 2**32] silently became out[i]")

_BOUND = Case(
    "literals/exact/range-bound",
    "k(out)",
    None,
    "@tack.kernel\ndef k(out):\n    for i in range(2 ** 3 - 8, 2 ** 2):\n        out[i] = i\n"
    "out = tack.zeros(4, tack.i32)\n",
    check="assert out.numpy().tolist() == [0, 1, 2, 3], out.numpy()",
    note="a parallel range bound of literals with ** was refused")


# -- weak float literals through device functions ----------------------------------------------
_WEAK_FUNCS = ("@tack.func\ndef pick(c):\n    if c > 0.0:\n        return 0.1\n    return 0.2\n"
               "@tack.func\ndef center():\n    return tack.Vector([1.0 / 3.0, 0.1, 0.5])\n")


def _weak(name: str, body: str, value: str, device: str) -> Case:
    setup = (_WEAK_FUNCS + _kernel(body, "a, out") + f"tack.set_default_device({device!r})\n"
             "a = tack.array(np.ones(3))\nout = tack.zeros(3, tack.f64)\n")
    return Case(f"literals/weak/{name}/{device}", "k(a, out)", None, setup,
                check=f"assert out.numpy().tolist() == [{value}] * 3, out.numpy()",
                quick=name == "two-returns" and device == "cpu",
                note="weak float literals through device functions were rounded to f32")


# -- a vector or matrix where one number is required ---------------------------------------------
_SLOTS = [  # (name, loop body reading the vector v)
    ("range", "for j in range(v):\n    out[i] += 1.0"),
    ("range-step", "for j in range(0, 4, v):\n    out[i] += 1.0"),
    ("unroll", "for j in tack.unroll(range(v), 2):\n    out[i] += 1.0"),
    ("ndrange", "for p, q in tack.ndrange(v, 2):\n    out[i] += 1.0"),
    ("scratch-size", "s = tack.local_array(tack.f32, v)\nout[i] = s[0]"),
    ("scratch-index", "s = tack.local_array(tack.f32, 4)\ns[v] = 1.0\nout[i] = s[0]"),
    ("atomic-value", "tack.atomic_add(out, i, v)"),
    ("condition", "if v:\n    out[i] = 1.0"),
    ("while", "while v:\n    break"),
    ("store", "out[i] = v"),
]


def _slot(name: str, body: str) -> Case:
    expect = "UnsupportedSyntaxError" if name in ("condition", "while") else "TypeError"
    setup = _kernel("v = [1, 2]\n" + body) + "out = tack.zeros(4, tack.f32)\n"
    return Case(f"literals/vector-slot/{name}", "k(out)", expect, setup, position=True,
                unchanged=("out",), quick=name == "range",
                note="a vector as a range() bound raised a raw AttributeError")


_SCRATCH = [
    Case("literals/scratch/tuple", "k(out)", "UnsupportedSyntaxError",
         _kernel("s = tack.local_array(tack.f32, 4)\na, b = 1.0, s\nout[i] = a")
         + "out = tack.zeros(4, tack.f32)\n", position=True, mentions=("scratch array 's'",),
         quick=True, note="a scratch array in a tuple raised TackTypeError"),
    Case("literals/scratch/operand", "k(out)", "UnsupportedSyntaxError",
         _kernel("s = tack.local_array(tack.f32, 4)\nout[i] = s + 1.0")
         + "out = tack.zeros(4, tack.f32)\n", position=True, mentions=("scratch array 's'",)),
]


# -- chains of nested device functions -------------------------------------------------------------
def _chain(n: int, early_return: bool) -> Case:
    """n device functions, each calling the previous one, written to a file and imported."""
    body = ("    if x > 1.0e30:\n        return x\n" if early_return else "")
    setup = (
        "import importlib.util, tempfile\n"
        f"lines = ['import tack', '@tack.func', 'def f0(x):', '    return x + 1.0']\n"
        f"for k in range(1, {n}):\n"
        "    lines += ['@tack.func', f'def f{k}(x):']\n"
        f"    lines += {body.splitlines()!r}\n"
        "    lines += [f'    return f{k - 1}(x) + 1.0']\n"
        "lines += ['@tack.kernel', 'def k(a, out):', '    for i in range(a.shape[0]):',\n"
        f"          '        out[i] = f{n - 1}(a[i])']\n"
        "path = os.path.join(tempfile.mkdtemp(), 'chain.py')\n"
        "open(path, 'w').write('\\n'.join(lines) + '\\n')\n"
        "spec = importlib.util.spec_from_file_location('chain', path)\n"
        "mod = importlib.util.module_from_spec(spec)\nspec.loader.exec_module(mod)\n"
        "a = tack.array(np.arange(3, dtype=np.float32))\nout = tack.zeros(3)\n")
    kind = "early-return" if early_return else "plain"
    return Case(f"literals/func-chain/{kind}-{n}", "mod.k(a, out)", None, setup,
                check=f"assert out.numpy().tolist() == [{n}.0, {n + 1}.0, {n + 2}.0], out.numpy()",
                isolate=True, timeout=600,
                note="about 110 nested @tack.func calls were an internal compiler error")


CASES: list[Case] = [
    *(_exact(n, e, v, "cpu") for n, e, v in _EXACT),
    *(_exact(n, e, v, "sim") for n, e, v in _EXACT if n in ("pow", "u64", "constant")),
    _OFFSET, _BOUND,
    _refused("too-wide", "2 ** 64 + 1", "TypeError", "outside the 64-bit ranges"),
    _refused("too-narrow", "-(2 ** 63) - 1", "TypeError", "outside the 64-bit ranges"),
    _refused("huge", "2 ** 10 ** 10", "TypeError", "larger than"),
    _refused("negative-shift", "1 << -1", "ValueError", "negative shift count"),
    *(_weak(n, b, v, d) for d in ("cpu", "sim") for n, b, v in [
        ("two-returns", "out[i] = a[i] * pick(a[i])", "0.1"),
        ("vector-return", "out[i] = a[i] * center()[0]", "1 / 3"),
        ("vector-local", "c = center()\nout[i] = a[i] * c[1]", "0.1")]),
    *(_slot(n, b) for n, b in _SLOTS),
    *_SCRATCH,
    _chain(300, False), _chain(300, True),
]
