"""Matrix multiply-accumulate (docs/language.md, "Matrix multiply-accumulate"): each row is a way
to misuse the fragments or `tack.mma` that must be refused before anything runs, with the
builtin and its position, or reported by tack.check (a partial-warp MMA or fragment load, a race
on the shared tiles feeding an MMA, an accumulator read before anything wrote it), and one row
that pins the simulator's accumulation order on a tile where every order gives other bits."""
from __future__ import annotations

from .case import Case

_SETUP = '''
@tack.kernel
def tile(A, B, C, D, n):
    for i in range(n):
        w = i // 32
        acc = tack.mma(tack.mma_load_a(A, w * 16, 0), tack.mma_load_b(B, w * 16, 0),
                       tack.mma_load_acc(C, w * 16, 0))
        tack.mma_store(acc, D, w * 16, 0)

@tack.kernel
def tile32(A, B, C, D, n):
    for i in range(n):
        w = i // 32
        acc = tack.mma(tack.mma_load_a(A, w * 16, 0), tack.mma_load_b(B, w * 8, 0),
                       tack.mma_load_acc(C, w * 16, 0))
        tack.mma_store(acc, D, w * 16, 0)

@tack.kernel
def branch(A, B, C, D, n):
    for i in range(n):
        acc = tack.mma_zeros()
        a = tack.mma_load_a(A, 0, 0)
        b = tack.mma_load_b(B, 0, 0)
        if tack.lane_id() < 16:
            acc = tack.mma(a, b, acc)
        tack.mma_store(acc, D, tack.warp_id() * 16, 0)

@tack.kernel
def load_branch(A, B, C, D, n):
    for i in range(n):
        a = tack.mma_load_a(A, 0, 0)
        if tack.lane_id() % 2 == 0:
            a = tack.mma_load_a(A, 16, 0)
        acc = tack.mma(a, tack.mma_load_b(B, 0, 0), tack.mma_zeros())
        tack.mma_store(acc, D, tack.warp_id() * 16, 0)

@tack.kernel
def scaled(A, B, C, D, n):
    for i in range(n):
        acc = tack.mma(tack.mma_load_a(A, 0, 0) * 2.0, tack.mma_load_b(B, 0, 0), tack.mma_zeros())
        tack.mma_store(acc, D, tack.warp_id() * 16, 0)

@tack.kernel
def half_started(A, B, C, D, n):
    for i in range(n):
        w = i // 32
        if w < 4:
            acc = tack.mma_zeros()
        acc = tack.mma(tack.mma_load_a(A, w * 16, 0), tack.mma_load_b(B, w * 16, 0), acc)
        tack.mma_store(acc, D, w * 16, 0)

@tack.kernel
def staged(A, B, C, D, n):
    for i in range(n):
        As = tack.shared(tack.f16, 256)
        t = tack.thread_id()
        As[t] = A[t // 16, t % 16]
        acc = tack.mma(tack.mma_load_a(As, 0, 0, 16), tack.mma_load_b(B, 0, 0), tack.mma_zeros())
        tack.mma_store(acc, D, tack.warp_id() * 16, 0)

rng = np.random.default_rng(3)
def awkward(shape, t):
    return (rng.standard_normal(shape) * 2.0 ** rng.integers(-12, 12, shape)).astype(t)
a, b = awkward((128, 16), np.float16), awkward((128, 8), np.float16)
c = awkward((128, 8), np.float32)
A, B, C = (tack.array(x, device=DEV) for x in (a, b, c))
D = tack.zeros((128, 8), device=DEV)
A32, B32 = tack.zeros((128, 8), device=DEV), tack.zeros((64, 8), device=DEV)
'''

# The documented order, by exact rationals: d = c; for k in order: d = round_f32(d + a*b).
_ORDER = '''
from fractions import Fraction
def rnd(x):
    lo = np.float32(float(x))  # within one f32 step of x: pick the nearest exactly, ties even
    cands = {float(lo), float(np.nextafter(lo, np.float32(np.inf))),
             float(np.nextafter(lo, np.float32(-np.inf)))}
    best = min(cands, key=lambda v: (abs(Fraction(v) - x),
                                     int(np.float32(v).view(np.uint32)) & 1))
    return best
d = D.numpy()
for w in range(8):
    ta, tb, tc = a[16*w:16*w+16], b[16*w:16*w+16], c[16*w:16*w+16]
    for i in range(16):
        for j in range(8):
            acc = float(tc[i, j])
            for k in range(16):
                acc = rnd(Fraction(acc) + Fraction(float(ta[i, k])) * Fraction(float(tb[k, j])))
            assert np.float32(acc).view(np.uint32) == d[16*w+i, j].view(np.uint32), (w, i, j)
'''


def _setup(dev: str) -> str:
    return f"DEV = {dev!r}\n" + _SETUP


def _cases() -> list[Case]:
    return [
        Case("mma/cpu-refuses-mma", "tile(A, B, C, D, 256)", "RuntimeError", _setup("cpu"),
             mentions=("tile", "mma", "workgroup"), unchanged=("D",), quick=True,
             note="the CPU engine runs iterations one by one: no warps, refused before launch"),
        Case("mma/f32-needs-tf32", "tile32(A32, B32, tack.zeros((128, 8), device=DEV), D, 256)",
             "tack.TackTypeError", _setup("sim"), position=True,
             mentions=("tile32", "TF32", '"tf32"'), unchanged=("D",), quick=True,
             note="precision is never silent: f32 inputs multiply as TF32 only when asked"),
        Case("mma/under-lane-dependent-branch", "branch(A, B, C, D, 256)",
             "tack.TackValueError", _setup("sim"), position=True,
             mentions=("branch", "tack.mma", "uniform workgroup participation"),
             unchanged=("D",), quick=True,
             note="mma.sync needs all 32 lanes of the warp"),
        Case("mma/fragment-load-under-lane-dependent-branch", "load_branch(A, B, C, D, 256)",
             "tack.TackValueError", _setup("sim"), position=True,
             mentions=("load_branch", "tack.mma_load_a", "uniform workgroup participation"),
             unchanged=("D",),
             note="a fragment load is a warp collective (a renderer may use ldmatrix)"),
        Case("mma/fragment-as-vector", "scaled(A, B, C, D, 256)", "tack.TackTypeError",
             _setup("sim"), position=True, mentions=("scaled", "fragment", "tack.mma_store"),
             unchanged=("D",),
             note="an A fragment's elements sit in a layout over the lanes: no elementwise math "
                  "(accumulator-shaped fragments take it, element by element of the tile)"),
        Case("mma/partial-workgroup", "tile(A, B, C, D, 200)", "tack.TackValueError",
             _setup("sim"), mentions=("tile", "256-lane groups"), unchanged=("D",)),
        Case("mma/check-reports-a-partial-warp-mma", "r = tack.check(branch, A, B, C, D, 256)",
             None, _setup("sim"),
             check=("(f,) = r.of_kind('barrier'); assert 'warp collective tack.mma ' in "
                    "f.message and f.severity == 'error', f.message"),
             note="tack.check runs what the contract refuses and names the lanes"),
        Case("mma/check-reports-a-race-on-the-shared-tile", "r = tack.check(staged, A, B, C, D, "
             "256)", None, _setup("sim"),
             check=("assert any(\"shared array 'As'\" in f.message for f in r.of_kind('race'))"
                    ", r.text()"),
             note="the shared A tile is read by the fragment load with no barrier after the "
                  "lanes stored it"),
        Case("mma/check-reports-an-unwritten-accumulator",
             "r = tack.check(tile, A, B, tack.empty((128, 8), device=DEV), D, 256)", None,
             _setup("sim"),
             check=("(f,) = r.of_kind('uninitialized'); assert \"'C'\" in f.message, "
                    "f.message"),
             note="mma_load_acc of an array nothing wrote"),
        Case("mma/check-reports-an-accumulator-unassigned-on-a-path",
             "r = tack.check(half_started, A, B, C, D, 256)", None, _setup("sim"),
             check=("(f,) = r.of_kind('uninitialized'); assert \"MMA fragment 'acc'\" in "
                    "f.message and f.lanes[0] == 128, f.message"),
             note="warps 4..7 multiply into an accumulator they never started"),
        Case("mma/simulator-order-bit-for-bit", "tile(A, B, C, D, 256)", None, _setup("sim"),
             check=_ORDER,
             note="products exact, added to C in k order, one f32 rounding per addition"),
    ]


CASES = _cases()
