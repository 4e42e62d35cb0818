"""Bad and awkward arguments of the library: `tack.algorithms`, `tack.ops`, and the entry points
that make arrays and devices, run Dask and the testing harness.

Each group of rows comes from a small table and one function; the classes: an n (given or
defaulted) that reaches past an array, an output overlapping an input (the result must be
NumPy's), histogram edges and ranges, values and shapes no array holds, bad arguments of
tack.dask and tack.testing.test, DLPack's copy=True, and attention on head dimensions that once
took a thread's whole stack. Rows that wrote past an array or overflowed a stack run in their
own subprocess (`isolate`). The algorithm and op rows run on the CPU engine and on the
simulator (`@sim` in the name)."""
from __future__ import annotations

from .case import Case

ENGINES = (("", "None"), ("@sim", "'sim'"))  # (name suffix, the engine set_default_device takes)


def _on(engine: str) -> str:
    return f"tack.set_default_device('cpu', engine={engine})\nA = tack.algorithms\n"


# ---- n: defaulted to the source's flat length, or given, never past any array ----------------
_SOURCES = [  # (label, setup of src; dst is always 10 f32 holding -5)
    ("30", "src = tack.ones(30)"),
    ("vec3", "src = tack.ones(10, tack.vec3)"),  # 30 components into 10
    ("10M", "src = tack.full(10_000_000, 7.0)"),  # wrote far past dst: a crash
]
_WRITERS = [("copy", "A.copy(src, dst{n})"), ("inclusive_scan", "A.inclusive_scan(src, dst{n})"),
            ("exclusive_scan", "A.exclusive_scan(src, dst{n})"),
            ("copy_with_offset", "A.copy_with_offset(src, dst, 0{n})")]
_READERS = [  # (name, call with n), data: x, 7 f32
    ("var", "A.var(x, {n})"), ("std", "A.std(x, {n})"), ("norm", "A.norm(x, 2, {n})"),
    ("absmax", "A.absmax(x, {n})"), ("count_nonzero", "A.count_nonzero(x, {n})"),
    ("dot", "A.dot(x, x, {n})"), ("histogram", "A.histogram(x, 4, None, {n})"),
    ("fill_value", "A.fill_value(x, 1.0, {n})"), ("argsort", "A.argsort(k, {n})"),
    ("sort", "A.sort(k, {n})"), ("copy", "A.copy(x, x, {n})"),
]
_BAD_N = [("n8", "8", "TackValueError"), ("n-negative", "-1", "TackValueError"),
          ("n-huge", "2**62", "TackValueError"), ("n-float", "2.0", "TackTypeError"),
          ("n-bool", "True", "TackTypeError"), ("n-str", "'3'", "TackTypeError")]


def _counts() -> list[Case]:
    out = []
    for suffix, engine in ENGINES:
        for label, src in _SOURCES:
            setup = _on(engine) + f"{src}\ndst = tack.full(10, -5.0)\n"
            for name, call in _WRITERS:
                out.append(Case(
                    f"library/n/{name}-default-{label}{suffix}", call.format(n=""),
                    "tack.TackValueError", setup, mentions=(name, "dst"), unchanged=("dst",),
                    isolate=True, quick=(name, label, suffix) == ("copy", "10M", ""),
                    note="n defaulted to src's flat length and was never checked against dst"))
        setup = _on(engine) + "x = tack.array(np.arange(1, 8, dtype=np.float32))\n" \
            "k = tack.array(np.arange(7, dtype=np.int32))\n"
        for name, call in _READERS:
            for label, n, err in _BAD_N:
                out.append(Case(f"library/n/{name}-{label}{suffix}", call.format(n=n),
                                f"tack.{err}", setup, mentions=(name,), unchanged=("x", "k"),
                                isolate=label == "n-huge"))
    return out


# ---- outputs overlapping inputs: NumPy's result, as if the inputs had been copied first ------
_VIEWS = '''
base = (np.arange(1, 302, dtype=np.float64) % 17) - 8
src, dst = tack.from_dlpack(base[:300]), tack.from_dlpack(base[1:])
want = base.copy()
'''
_ALIASES = [  # (label, extra setup, call, check)
    ("copy-shifted-view", "want[1:] = base[:300]", "A.copy(src, dst)",
     "assert (base == want).all()"),
    ("inclusive_scan-shifted-view", "want[1:] = np.cumsum(base[:300])",
     "A.inclusive_scan(src, dst)", "assert np.allclose(base, want)"),
    ("exclusive_scan-shifted-view",
     "want[1:] = np.concatenate([[0.0], np.cumsum(base[:299])])",
     "A.exclusive_scan(src, dst)", "assert np.allclose(base, want)"),
    ("inclusive_scan-view-behind", "src, dst = dst, src\nwant[:300] = np.cumsum(base[1:])",
     "A.inclusive_scan(src, dst)", "assert np.allclose(base, want)"),
    ("copy_with_offset-self", "x = tack.array(base)\nwant[1:] = base[:300]",
     "A.copy_with_offset(x, x, 1, 300)", "assert (x.numpy() == want).all()"),
    ("inclusive_scan-in-place", "x = tack.array(base)\nwant = np.cumsum(base)",
     "A.inclusive_scan(x, x)", "assert np.allclose(x.numpy(), want)"),
    ("segmented_scan-shifted-view", """
f = tack.array((np.arange(300) % 50 == 0).astype(np.int32))
want[1:] = np.concatenate([np.cumsum(base[i:i + 50]) for i in range(0, 300, 50)])""",
     "A.segmented_inclusive_scan(src, f, dst)", "assert np.allclose(base, want)"),
]
_OP_ALIASES = [  # (label, setup, call, check): the float64 reference computed in setup
    ("matmul-out-a", """
a0 = np.random.default_rng(1).normal(size=(17, 17)).astype(np.float32)
b0 = np.random.default_rng(2).normal(size=(17, 17)).astype(np.float32)
a, b = tack.array(a0), tack.array(b0)
want = a0.astype(np.float64) @ b0""",
     "tack.ops.matmul(a, b, out=a)", "assert np.abs(a.numpy() - want).max() < 1e-4"),
    ("matmul-out-b-batched", """
a0 = np.random.default_rng(1).normal(size=(2, 9, 9))
b0 = np.random.default_rng(2).normal(size=(2, 9, 9))
a, b = tack.array(a0), tack.array(b0)
want = a0 @ b0""",
     "tack.ops.batched_matmul(a, b, out=b)", "assert np.abs(b.numpy() - want).max() < 1e-12"),
    ("relu-shifted-view", """
base = np.arange(-150, 151, dtype=np.float32)
x, o = tack.from_dlpack(base[:300]), tack.from_dlpack(base[1:])
want = base.copy()
want[1:] = np.maximum(base[:300], 0)""",
     "tack.ops.relu(x, out=o)", "assert (base == want).all()"),
    ("log_softmax-in-place", """
x0 = np.random.default_rng(3).normal(size=(3, 40))
x = tack.array(x0)
z = x0 - x0.max(-1, keepdims=True)
want = z - np.log(np.exp(z).sum(-1, keepdims=True))""",
     "tack.ops.log_softmax(x, out=x)", "assert np.abs(x.numpy() - want).max() < 1e-12"),
    ("rms_norm-weight-is-out", """
x0 = np.random.default_rng(4).normal(size=(3, 8))
buf = np.random.default_rng(5).normal(size=24)
w0 = buf[:8].copy()
o = tack.from_dlpack(buf).reshape(3, 8)
want = x0 / np.sqrt((x0 * x0).mean(-1, keepdims=True) + 1e-6) * w0""",
     "tack.ops.rms_norm(tack.array(x0), tack.from_dlpack(buf[:8]), out=o)",
     "assert np.abs(buf.reshape(3, 8) - want).max() < 1e-12"),
    ("attention-out-k", """
q0, k0, v0 = (np.random.default_rng(s).normal(size=(1, 2, 9, 5)) for s in (1, 2, 3))
q, k, v = tack.array(q0), tack.array(k0), tack.array(v0)
s_ = np.einsum('bhid,bhjd->bhij', q0, k0) / np.sqrt(5)
p = np.exp(s_ - s_.max(-1, keepdims=True))
want = np.einsum('bhij,bhjd->bhid', p / p.sum(-1, keepdims=True), v0)""",
     "tack.ops.attention(q, k, v, out=k)", "assert np.abs(k.numpy() - want).max() < 1e-12"),
]


def _aliases() -> list[Case]:
    out = []
    for suffix, engine in ENGINES:
        for label, extra, call, check in _ALIASES:
            out.append(Case(f"library/alias/{label}{suffix}", call, None,
                            _on(engine) + _VIEWS + extra + "\n", check=check,
                            note="overlapping arguments gave wrong results silently"))
        for label, setup, call, check in _OP_ALIASES:
            out.append(Case(f"library/alias/{label}{suffix}", call, None,
                            _on(engine) + setup + "\n", check=check,
                            quick=label == "matmul-out-a" and not suffix))
    return out


# ---- histogram: NumPy's edges (dtype, widening), its refusals, malformed arguments -----------
_HIST_DATA = [("f32-constant", "np.full(9, 7.0, np.float32)"),
              ("f32-one", "np.array([3.25], np.float32)"), ("i32-one", "np.array([3], np.int32)"),
              ("u8-ramp", "np.arange(200, dtype=np.uint8)"),
              ("f64-normal", "np.random.default_rng(0).normal(size=999)")]
_HIST_BAD = [  # (label, data, bins, range, error)
    ("nan-data", "np.array([1.0, np.nan])", "3", "None", "TackValueError"),
    ("inf-data", "np.array([1.0, np.inf])", "3", "None", "TackValueError"),
    ("f32-too-many-bins", "np.full(3, 1e8, np.float32)", "3", "None", "TackValueError"),
    ("range-one", "np.ones(4)", "3", "(1.0,)", "TackTypeError"),
    ("range-int", "np.ones(4)", "3", "5", "TackTypeError"),
    ("range-str", "np.ones(4)", "3", "('a', 'b')", "TackTypeError"),
    ("range-falls", "np.ones(4)", "3", "(2.0, 1.0)", "TackValueError"),
    ("range-inf", "np.ones(4)", "3", "(0.0, np.inf)", "TackValueError"),
    ("bins-huge", "np.ones(4)", "2**40", "None", "TackValueError"),
    ("bins-float", "np.ones(4)", "2.5", "None", "TackTypeError"),
]


def _histograms() -> list[Case]:
    out = []
    for suffix, engine in ENGINES:
        for label, data in _HIST_DATA:
            for bins in (1, 3):
                out.append(Case(
                    f"library/histogram/edges-{label}-{bins}{suffix}",
                    f"c, e = A.histogram(tack.array(d), {bins})", None,
                    _on(engine) + f"d = {data}\nwc, we = np.histogram(d, {bins})\n",
                    check="assert e.dtype == we.dtype and (e == we).all()\n"
                          "assert (c.numpy() == wc).all()",
                    note="edges other than NumPy's (a constant f32 range widened in f64)"))
        for label, data, bins, rng, err in _HIST_BAD:
            out.append(Case(f"library/histogram/{label}{suffix}",
                            f"A.histogram(tack.array({data}), {bins}, {rng})", f"tack.{err}",
                            _on(engine), mentions=("histogram",)))
    return out


# ---- attention: head_dim 0, and head dims past a thread's stack ------------------------------
def _attention() -> list[Case]:
    out = []
    ref = ("s_ = np.einsum('bhid,bhjd->bhij', q0, k0) / np.sqrt(q0.shape[-1])\n"
           "p = np.exp(s_ - s_.max(-1, keepdims=True))\n"
           "want = np.einsum('bhij,bhjd->bhid', p / p.sum(-1, keepdims=True), v0)\n")
    for suffix, engine in ENGINES:
        out.append(Case(f"library/attention/head-dim-0{suffix}",
                        "r = tack.ops.attention(q, q, q)", None,
                        _on(engine) + "q = np.zeros((2, 3, 4, 0), np.float32)\n",
                        check="assert r.shape == (2, 3, 4, 0)",
                        note="ZeroDivisionError from 1/sqrt(head_dim)"))
        dims = (2 ** 20,) if suffix else (2 ** 18 + 1, 2 ** 19 + 1, 2 ** 20)
        for d in dims:
            keys = 2 if suffix else 3
            setup = _on(engine) + (f"q0, k0, v0 = (np.random.default_rng(s).normal(size=(1, 1, "
                                   f"{keys}, {d})) * 0.02 for s in (1, 2, 3))\n") + ref
            out.append(Case(f"library/attention/head-dim-{d}{suffix}",
                            "r = tack.ops.attention(q0, k0, v0)", None, setup,
                            check="assert np.abs(r.numpy() - want).max() < 1e-9",
                            isolate=True, timeout=300, quick=d == 2 ** 20 and not suffix,
                            note="two local arrays of head_dim elements overflowed the stack"))
    return out


# ---- values and shapes no array holds; devices; tack.dask; tack.testing.test; DLPack ---------
_TEST = ("tack.testing.test(lambda x: x, lambda x: x, '(n)->(n)', records_dir=False, "
         "baseline=False, {})")
_ENTRY = [  # (label, setup, call, error)
    ("empty-2**63", "", "tack.empty(2**63)", "TackValueError"),
    ("zeros-2**62-f64", "", "tack.zeros(2**62, tack.f64)", "TackValueError"),
    ("zeros-square-2**31", "", "tack.zeros((2**31, 2**31))", "TackValueError"),
    ("ones-negative", "", "tack.ones((3, -1))", "TackValueError"),
    ("full-float-shape", "", "tack.full(1.5, 2.0)", "TackTypeError"),
    ("zeros-bool-shape", "", "tack.zeros((True, 2))", "TackTypeError"),
    ("arange-huge", "", "tack.arange(2**62)", "TackValueError"),
    ("arange-str", "", "tack.arange('a')", "TackTypeError"),
    ("fill-2**40-i32", "a = tack.zeros(4, tack.i32)", "a.fill(2**40)", "TackValueError"),
    ("fill-inf-i32", "a = tack.zeros(4, tack.i32)", "a.fill(float('inf'))", "TackValueError"),
    ("fill-array", "a = tack.zeros(4)", "a.fill(np.array([1.0, 2.0]))", "TackValueError"),
    ("fill-str", "a = tack.zeros(4)", "a.fill('3')", "TackTypeError"),
    ("full-2**70", "", "tack.full(4, 2**70, tack.i64)", "TackValueError"),
    ("fill_value-array", "a = tack.zeros(4)", "tack.algorithms.fill_value(a, np.ones(2))",
     "TackTypeError"),
    ("fill_value-2**64", "a = tack.zeros(4)", "tack.algorithms.fill_value(a, 2**64)",
     "TackValueError"),
    ("device-superscript", "", "tack.device('sim:²')", "TackValueError"),
    ("device-arabic-digit", "", "tack.device('sim:٣')", "TackValueError"),
    ("dask-not-a-kernel", "import tack.dask", "tack.dask.map_blocks(len, np.zeros(3))",
     "TackTypeError"),
    ("dask-no-arrays", "import tack.dask\n@tack.kernel\ndef k(x, out):\n    out[0] = x[0]",
     "tack.dask.map_blocks(k)", "TackValueError"),
    ("dask-halo-negative", "import tack.dask\n@tack.kernel\ndef k(x, out):\n    out[0] = x[0]",
     "tack.dask.map_blocks(k, np.zeros(3), halo=-1)", "TackValueError"),
    ("dask-halo-float", "import tack.dask\n@tack.kernel\ndef k(x, out):\n    out[0] = x[0]",
     "tack.dask.map_blocks(k, np.zeros(3), halo=1.5)", "TackTypeError"),
    ("testing-dtype-bogus", "import tack.testing", _TEST.format("dtypes='bogus'"),
     "TackValueError"),
    ("testing-dtype-complex", "import tack.testing", _TEST.format("dtypes='complex64'"),
     "TackValueError"),
    ("testing-seed-str", "import tack.testing", _TEST.format("seed='abc'"), "TackTypeError"),
    ("testing-seed-negative", "import tack.testing", _TEST.format("seed=-1"),
     "TackValueError"),
    ("dlpack-copy-true", "a = tack.array(np.arange(4.0))", "a.__dlpack__(copy=True)",
     "tack.TackBufferError"),
]


def _entry_points() -> list[Case]:
    return [Case(f"library/entry/{label}", call, err if "." in err else f"tack.{err}", setup,
                 quick=label in ("empty-2**63", "device-superscript"),
                 isolate=label.startswith(("empty", "zeros", "arange")))
            for label, setup, call, err in _ENTRY]


CASES: list[Case] = _counts() + _aliases() + _histograms() + _attention() + _entry_points()
