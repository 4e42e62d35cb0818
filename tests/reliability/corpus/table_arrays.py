"""Arrays at the boundary: read-only memory, `from_dlpack`, `copyto` and host access.

Read-only rows pair each way a kernel may write an array with each way of importing read-only
memory; every one must raise ValueError before launch, naming the kernel and the parameter, and
leave the memory as it was (a PROT_READ page would crash, so those rows run in a subprocess)."""
from __future__ import annotations

from .case import Case

# Ways a kernel may write its parameter `w` (reading `r`): (label, loop body). Each kernel is
# `def k(r, w)` over `range(r.shape[0])`.
_WRITES = [
    ("store", "w[i] = r[i]"),
    ("augassign", "w[i] += r[i]"),
    ("atomic-add", "tack.atomic_add(w, i, r[i])"),
    ("atomic-max", "tack.atomic_max(w, i, r[i])"),
    ("atomic-min-expr", "old = tack.atomic_min(w, 0, r[i])"),
    ("conditional", "if r[i] > 100.0:\n            w[i] = 0.0"),
    ("func", "put(w, i, r[i])"),
    ("nested-loop", "for j in range(1):\n            w[i + j] = 1.0"),
]

_FUNC = '''
@tack.func
def put(a, i, v):
    a[i] = v
'''

# Read-only memory imported as `ro` (float32, 8 elements, contents 0..7), and the NumPy array
# `src` that owns it: (label, setup, needs a subprocess).
_SOURCES = [
    ("writeable-false", ("src = np.arange(8, dtype=np.float32)\nsrc.flags.writeable = False\n"
                         "ro = tack.from_dlpack(src)\n"), False),
    ("memmap-r", ("import tempfile\n"
                  "_f = tempfile.NamedTemporaryFile(suffix='.bin', delete=False)\n"
                  "_f.write(np.arange(8, dtype=np.float32).tobytes()); _f.close()\n"
                  "src = np.memmap(_f.name, np.float32, mode='r', shape=(8,))\n"
                  "ro = tack.from_dlpack(src)\nos.unlink(_f.name)\n"), True),
    ("view-of-readonly", ("_b = np.arange(8, dtype=np.float32)\nsrc = _b.view()\n"
                          "src.flags.writeable = False\nro = tack.from_dlpack(src)\n"), False),
    ("reshape", ("src = np.arange(8, dtype=np.float32)\nsrc.flags.writeable = False\n"
                 "ro = tack.from_dlpack(src).reshape(8)\n"), False),
]


def _kernel(body: str) -> str:
    return (f"{_FUNC}\n@tack.kernel\ndef k(r, w):\n    for i in range(r.shape[0]):\n"
            f"        {body}\n")


def _read_only() -> list[Case]:
    out = []
    for wl, body in _WRITES:
        for sl, src, iso in _SOURCES:
            setup = src + _kernel(body) + "ok = tack.ones(8, tack.f32)\n"
            out.append(Case(f"arrays/read-only/{wl}/{sl}", "k(ok, ro)", "ValueError", setup,
                            mentions=("'k'", "'w'", "read-only"), unchanged=("src",),
                            isolate=iso, quick=wl == "store" and sl == "writeable-false",
                            note="a kernel never writes a read-only array"))
            # Reading it is fine, and the result is right.
            if wl == "store":
                out.append(Case(f"arrays/read-only/read/{sl}", "k(ro, ok)", None, setup,
                                unchanged=("src",), isolate=iso,
                                check="assert ok.numpy().tolist() == list(range(8))"))
    out += [
        Case("arrays/read-only/object-attribute", "k(Box(ro), ok)", "ValueError",
             _SOURCES[0][1] + _BOX, mentions=("'k'", "read-only"), unchanged=("src",)),
        Case("arrays/read-only/copyto", "tack.copyto(ro, np.ones(8, np.float32))", "ValueError",
             _SOURCES[0][1], unchanged=("src",)),
        Case("arrays/read-only/fill", "ro.fill(3.0)", "ValueError", _SOURCES[0][1],
             unchanged=("src",)),
        Case("arrays/read-only/copy-is-writable", "c = ro.copy(); c.fill(1.0)", None,
             _SOURCES[0][1], unchanged=("src",), check="assert not c.readonly"),
        Case("arrays/read-only/then-writable", "k(ok, ro)", "ValueError",
             _SOURCES[0][1] + _kernel("w[i] = r[i]") + "ok = tack.ones(8, tack.f32)\n"
             "k(ok, tack.zeros(8, tack.f32))\n", mentions=("'w'",), unchanged=("src",),
             note="a warm fast path for a writable array must not take a read-only one"),
    ]
    return out


_BOX = '''
@tack.device_class
class Box:
    def __init__(self, a):
        self.a = a

@tack.kernel
def k(b, r):
    for i in range(r.shape[0]):
        b.a[i] = r[i]
ok = tack.ones(8, tack.f32)
'''

# `from_dlpack` of things it must refuse: (label, setup, call, expected class).
_DLPACK = [
    ("object", "", "tack.from_dlpack(object())", "TypeError"),
    ("none", "", "tack.from_dlpack(None)", "TypeError"),
    ("list", "", "tack.from_dlpack([1, 2])", "TypeError"),
    ("int", "", "tack.from_dlpack(3)", "TypeError"),
    ("capsule-less", ("class P:\n    def __dlpack__(self, **kw):\n        raise BufferError('no')\n"
                      "    def __dlpack_device__(self):\n        return (1, 0)\n"),
     "tack.from_dlpack(P())", "BufferError"),
    ("strided", "a = np.arange(16, dtype=np.float32)", "tack.from_dlpack(a[::2])", "BufferError"),
    ("transposed", "a = np.zeros((4, 3), np.float32)", "tack.from_dlpack(a.T)", "BufferError"),
    ("big-endian-f4", "a = np.arange(4, dtype='>f4')", "tack.from_dlpack(a)", "BufferError"),
    ("big-endian-i8", "a = np.arange(4, dtype='>i8')", "tack.from_dlpack(a)", "BufferError"),
    ("bool", "a = np.zeros(4, np.bool_)", "tack.from_dlpack(a)", "TypeError"),
    ("complex64", "a = np.zeros(4, np.complex64)", "tack.from_dlpack(a)", "TypeError"),
    ("complex128", "a = np.zeros(4, np.complex128)", "tack.from_dlpack(a)", "TypeError"),
    ("misaligned-f4", "b = np.zeros(40, np.uint8)", "tack.from_dlpack(b[1:33].view(np.float32))",
     "ValueError"),
    ("misaligned-f8", "b = np.zeros(80, np.uint8)", "tack.from_dlpack(b[4:68].view(np.float64))",
     "ValueError"),
    ("misaligned-i2", "b = np.zeros(40, np.uint8)", "tack.from_dlpack(b[1:33].view(np.int16))",
     "ValueError"),
    ("misaligned-2d", "b = np.zeros(80, np.uint8)",
     "tack.from_dlpack(b[2:66].view(np.int32).reshape(4, 4))", "ValueError"),
]

# `from_dlpack` of things it must take (shared memory, writes seen by NumPy).
_DLPACK_OK = [
    ("f32", "a = np.arange(4, dtype=np.float32)", "t = tack.from_dlpack(a)",
     "assert t.shape == (4,) and not t.readonly"),
    ("u8-odd-address", "b = np.zeros(40, np.uint8)", "t = tack.from_dlpack(b[1:9])",
     "assert t.shape == (8,)"),
    ("0-d", "a = np.array(3.5, np.float32)", "t = tack.from_dlpack(a)", "assert t.shape == ()"),
    ("empty", "a = np.zeros(0, np.float64)", "t = tack.from_dlpack(a)", "assert t.size == 0"),
    ("aligned-view", "b = np.zeros(80, np.uint8)", "t = tack.from_dlpack(b[8:72].view(np.float64))",
     "assert t.shape == (8,)"),
    ("f16", "a = np.arange(4, dtype=np.float16)", "t = tack.from_dlpack(a)",
     "assert t.dtype is tack.f16 and t.numpy().tolist() == [0, 1, 2, 3]"),
    ("shares", "a = np.zeros(4, np.float32)", "t = tack.from_dlpack(a); t.fill(2.0)",
     "assert a.tolist() == [2.0] * 4"),
]


def _dlpack() -> list[Case]:
    out = [Case(f"arrays/from-dlpack/{label}", call, cls, setup, quick=label == "object",
                note="misaligned and foreign buffers are refused")
           for label, setup, call, cls in _DLPACK]
    out += [Case(f"arrays/from-dlpack/ok-{label}", call, None, setup, check=check)
            for label, setup, call, check in _DLPACK_OK]
    return out


# `copyto(dst, src)` sources: (label, source expression, expected class or None); dst is f32[4].
_COPYTO = [
    ("longdouble", "np.ones(4, np.longdouble)", "TypeError"),
    ("bool", "np.ones(4, np.bool_)", "TypeError"),
    ("complex", "np.ones(4, np.complex64)", "TypeError"),
    ("object", "np.array([1, 'a', None, 2], dtype=object)", "TypeError"),
    ("str", "'abcd'", "TypeError"),
    ("strings", "np.array(['a', 'b', 'c', 'd'])", "TypeError"),
    ("shape", "np.ones(5, np.float32)", "ValueError"),
    ("shape-2d", "np.ones((2, 2), np.float32)", "ValueError"),
    ("scalar", "1.0", "ValueError"),
    ("f64", "np.ones(4, np.float64)", None),
    ("f16", "np.ones(4, np.float16)", None),
    ("i32", "np.ones(4, np.int32)", None),
    ("list", "[1.0, 2.0, 3.0, 4.0]", None),
    ("tack-array", "tack.ones(4, tack.f64)", None),
]


def _copyto() -> list[Case]:
    setup = "dst = tack.full(4, 7.0, tack.f32)"
    out = []
    for label, src, cls in _COPYTO:
        out.append(Case(f"arrays/copyto/{label}", f"tack.copyto(dst, {src})", cls, setup,
                        unchanged=("dst",) if cls else (), quick=label == "longdouble",
                        note="copyto converts or refuses, leaving dst unchanged"))
    out.append(Case("arrays/copyto/not-an-array", "tack.copyto(np.zeros(4), dst)", "TypeError",
                    setup))
    return out


# Host access and array constructors with bad arguments: (label, call, expected class).
_HOST = [
    ("index-slice", "a[1:2]", "TypeError"), ("index-float", "a[1.0]", "TypeError"),
    ("index-str", "a['x']", "TypeError"), ("index-out", "a[4]", "IndexError"),
    ("index-negative-out", "a[-5]", "IndexError"), ("index-count", "a[0, 0]", "IndexError"),
    ("index-ellipsis", "a[...]", "TypeError"), ("index-none", "a[None]", "TypeError"),
    ("setitem", "a[0] = 1.0", "TypeError"), ("iterate", "list(a)", "TypeError"),
    ("reshape-count", "a.reshape(3)", "ValueError"), ("reshape-two-free", "a.reshape(-1, -1)",
                                                      "ValueError"),
    ("reshape-str", "a.reshape('x')", "TypeError"), ("astype-str", "a.astype('complex64')",
                                                     "TypeError"),
    ("zeros-negative", "tack.zeros(-1)", "ValueError"), ("zeros-float", "tack.zeros(2.5)",
                                                         "TypeError"),
    ("zeros-str", "tack.zeros('4')", "TypeError"), ("zeros-dtype", "tack.zeros(4, 'complex')",
                                                    "TypeError"),
    ("array-object", "tack.array(np.array([None, 1]))", "TypeError"),
    ("array-str", "tack.array(['a', 'b'])", "TypeError"),
    ("array-complex", "tack.array(np.zeros(3, np.complex64))", "TypeError"),
    ("array-longdouble", "tack.array(np.zeros(3, np.longdouble))", "TypeError"),
    ("array-ragged", "tack.array([[1, 2], [3]])", "ValueError"),
    ("array-vec-shape", "tack.array(np.zeros((4, 2), np.float32), tack.vec3)", "ValueError"),
    ("concat-empty", "tack.concat([])", "ValueError"),
    ("concat-dtypes", "tack.concat([a, tack.zeros(2, tack.f64)])", "TypeError"),
    ("concat-axis", "tack.concat([a, a], axis=3)", "ValueError"),
    ("full-str", "tack.full(3, 'x')", "TypeError"),  # a string is not a number (dtypes.host_value)
    ("arange-zero-step", "tack.arange(0, 4, 0)", "ValueError"),
]


def _host() -> list[Case]:
    return [Case(f"arrays/host/{label}", call, cls, "a = tack.arange(4, dtype=tack.f32)",
                 unchanged=("a",), quick=label == "setitem")
            for label, call, cls in _HOST]


CASES: list[Case] = [*_read_only(), *_dlpack(), *_copyto(), *_host()]
