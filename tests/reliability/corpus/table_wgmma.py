"""Warpgroup MMA (docs/language.md, "Warpgroup MMA"): each row is a misuse of `tack.wgmma` and its
statements that must be refused before anything runs (on the CPU engine, on a GPU that is not
sm_90a, with a bad dtype, N, layout or launch), or reported by tack.check (an accumulator read
before the wait that covers it, a wait that leaves it pending, a tile restaged while a wgmma may
read it, a partial warpgroup, a tile staged where the hardware does not read it), and one row
that pins the simulator's accumulation order bit for bit."""
from __future__ import annotations

from .case import Case

_SETUP = '''
@tack.func
def stage(As, Bs, A, B, t):
    for e in range(32):
        s = t + 256 * e
        As[tack.wgmma_index(As, s // 64, s % 64, "swizzle128")] = A[s // 64, s % 64]
    for e in range(16):
        s = t + 256 * e
        Bs[tack.wgmma_index(Bs, s % 64, s // 64, "swizzle128")] = B[s // 64, s % 64]

@tack.kernel
def tile(A, B, C, n):
    for i in range(n):
        As = tack.shared_like(A, 8192)
        Bs = tack.shared_like(B, 4096)
        t = tack.thread_id()
        stage(As, Bs, A, B, t)
        tack.barrier()
        wg = t // 128
        acc = tack.wgmma_zeros(64)
        for k0 in range(0, 64, 16):
            tack.wgmma(acc, As, tack.wgmma_index(As, 64 * wg, k0, "swizzle128"), Bs,
                       tack.wgmma_index(Bs, 0, k0, "swizzle128"), "swizzle128")
        tack.wgmma_commit()
        tack.wgmma_wait(0)
        tack.wgmma_store(acc, C, 64 * wg, 0)

@tack.kernel
def no_wait(A, B, C, n):
    for i in range(n):
        As = tack.shared_like(A, 8192)
        Bs = tack.shared_like(B, 4096)
        t = tack.thread_id()
        stage(As, Bs, A, B, t)
        tack.barrier()
        acc = tack.wgmma_zeros(64)
        tack.wgmma(acc, As, tack.wgmma_index(As, 64 * (t // 128), 0, "swizzle128"), Bs, 0,
                   "swizzle128")
        tack.wgmma_commit()
        tack.wgmma_store(acc, C, 64 * (t // 128), 0)

@tack.kernel
def short_wait(A, B, C, n):
    for i in range(n):
        As = tack.shared_like(A, 8192)
        Bs = tack.shared_like(B, 4096)
        t = tack.thread_id()
        stage(As, Bs, A, B, t)
        tack.barrier()
        acc = tack.wgmma_zeros(64)
        for k0 in range(0, 64, 16):
            tack.wgmma(acc, As, tack.wgmma_index(As, 64 * (t // 128), k0, "swizzle128"), Bs,
                       tack.wgmma_index(Bs, 0, k0, "swizzle128"), "swizzle128")
            tack.wgmma_commit()
        tack.wgmma_wait(1)
        tack.wgmma_store(acc, C, 64 * (t // 128), 0)

@tack.kernel
def restaged(A, B, C, n):
    for i in range(n):
        As = tack.shared_like(A, 8192)
        Bs = tack.shared_like(B, 4096)
        t = tack.thread_id()
        stage(As, Bs, A, B, t)
        tack.barrier()
        acc = tack.wgmma_zeros(64)
        tack.wgmma(acc, As, tack.wgmma_index(As, 64 * (t // 128), 0, "swizzle128"), Bs, 0,
                   "swizzle128")
        tack.wgmma_commit()
        tack.barrier()
        stage(As, Bs, A, B, t)
        tack.wgmma_wait(0)
        tack.wgmma_store(acc, C, 64 * (t // 128), 0)

@tack.kernel
def partial(A, B, C, n):
    for i in range(n):
        As = tack.shared_like(A, 8192)
        Bs = tack.shared_like(B, 4096)
        t = tack.thread_id()
        stage(As, Bs, A, B, t)
        tack.barrier()
        acc = tack.wgmma_zeros(64)
        if t < 200:
            tack.wgmma(acc, As, tack.wgmma_index(As, 64 * (t // 128), 0, "swizzle128"), Bs, 0,
                       "swizzle128")
        tack.wgmma_commit()
        tack.wgmma_wait(0)
        tack.wgmma_store(acc, C, 64 * (t // 128), 0)

@tack.kernel
def misplaced(A, B, C, n):
    for i in range(n):
        As = tack.shared_like(A, 8192)
        Bs = tack.shared_like(B, 4096)
        t = tack.thread_id()
        for e in range(16):  # rows 0..63 only: warpgroup 1 reads rows 64..127
            s = t + 256 * e
            As[tack.wgmma_index(As, s // 64, s % 64, "swizzle128")] = A[s // 64, s % 64]
        for e in range(16):
            s = t + 256 * e
            Bs[tack.wgmma_index(Bs, s % 64, s // 64, "swizzle128")] = B[s // 64, s % 64]
        tack.barrier()
        acc = tack.wgmma_zeros(64)
        tack.wgmma(acc, As, tack.wgmma_index(As, 64 * (t // 128), 0, "swizzle128"), Bs, 0,
                   "swizzle128")
        tack.wgmma_commit()
        tack.wgmma_wait(0)
        tack.wgmma_store(acc, C, 64 * (t // 128), 0)

@tack.kernel
def f32_tiles(A, B, C, n):
    for i in range(n):
        As = tack.shared(tack.f32, 4096)
        Bs = tack.shared(tack.f32, 2048)
        acc = tack.wgmma_zeros(64)
        tack.wgmma(acc, As, 0, Bs, 0, "interleave")

@tack.kernel
def odd_n(A, B, C, n):
    for i in range(n):
        acc = tack.wgmma_zeros(100)
        tack.wgmma_store(acc, C, 0, 0)

rng = np.random.default_rng(5)
def awkward(shape):
    return (rng.standard_normal(shape) * 2.0 ** rng.integers(-12, 12, shape)).astype(np.float16)
a, b = awkward((128, 64)), awkward((64, 64))
A, B = tack.array(a, device=DEV), tack.array(b, device=DEV)
C = tack.zeros((128, 64), device=DEV)
'''

# The documented order, by exact rationals, on rows of every warp: d = 0; for k in order
# d = round_f32(d + a*b).
_ORDER = '''
from fractions import Fraction
def rnd(x):
    lo = np.float32(float(x))
    cands = {float(lo), float(np.nextafter(lo, np.float32(np.inf))),
             float(np.nextafter(lo, np.float32(-np.inf)))}
    return min(cands, key=lambda v: (abs(Fraction(v) - x), int(np.float32(v).view(np.uint32)) & 1))
d = C.numpy()
for i in (0, 17, 40, 63, 64, 90, 127):
    for j in range(0, 64, 5):
        acc = 0.0
        for k in range(64):
            acc = rnd(Fraction(acc) + Fraction(float(a[i, k])) * Fraction(float(b[k, j])))
        assert np.float32(acc).view(np.uint32) == d[i, j].view(np.uint32), (i, j)
'''

_PTX = ("from tack.compiler import specialize\nfrom tack.toolchain.nvptx import compile_ptx\n"
        "kir = specialize(tile, [A, B, C, 256], library_math=False)\n")


def _setup(dev: str) -> str:
    return f"DEV = {dev!r}\n" + _SETUP


def _check(kind: str, words: str) -> str:
    return (f"fs = r.of_kind({kind!r}); assert fs and all(w in fs[0].message for w in {words!r}),"
            " r.text()")


def _cases() -> list[Case]:
    return [
        Case("wgmma/cpu-refuses", "tile(A, B, C, 256)", "RuntimeError", _setup("cpu"),
             mentions=("tile", "wgmma", "workgroup"), unchanged=("C",), quick=True,
             note="the CPU engine has no warpgroups: refused before launch"),
        Case("wgmma/not-sm90-refuses", "compile_ptx(kir, 'sm_100')", "NotImplementedError",
             _setup("sim") + _PTX, position=True, mentions=("tile", "sm_90a", "sm_100"),
             quick=True, note="wgmma is an sm_90a feature: other GPUs are refused before "
                              "the kernel renders"),
        Case("wgmma/f32-needs-tf32", "f32_tiles(A, B, C, 256)", "tack.TackTypeError",
             _setup("sim"), position=True, mentions=("f32_tiles", "TF32", '"tf32"'),
             unchanged=("C",), quick=True, note="precision is never silent"),
        Case("wgmma/n-not-allowed", "odd_n(A, B, C, 256)", "tack.TackValueError",
             _setup("sim"), position=True, mentions=("odd_n", "multiple of 8"),
             unchanged=("C",), note="N is a multiple of 8 from 8 to 256"),
        Case("wgmma/under-lane-dependent-branch", "partial(A, B, C, 256)",
             "tack.TackValueError", _setup("sim"), position=True,
             mentions=("partial", "tack.wgmma", "uniform workgroup participation"),
             unchanged=("C",), note="a warpgroup issues its wgmma with all 128 lanes"),
        Case("wgmma/partial-workgroup", "tile(A, B, C, 200)", "tack.TackValueError",
             _setup("sim"), mentions=("tile", "256-lane groups"), unchanged=("C",),
             note="a workgroup is two whole warpgroups"),
        Case("wgmma/check-reports-a-store-before-the-wait", "r = tack.check(no_wait, A, B, C, "
             "256)", None, _setup("sim"),
             check=_check("pipeline", ("accumulator 'acc'", "before", "tack.wgmma_wait"))),
        Case("wgmma/check-reports-a-short-wait", "r = tack.check(short_wait, A, B, C, 256)",
             None, _setup("sim"),
             check=_check("pipeline", ("tack.wgmma_wait(1)", "tack.wgmma_wait(0) is the wait"))),
        Case("wgmma/check-reports-a-tile-restaged-in-flight", "r = tack.check(restaged, A, B, "
             "C, 256)", None, _setup("sim"),
             check=_check("pipeline", ("shared array", "may still be in flight"))),
        Case("wgmma/check-reports-a-partial-warpgroup", "r = tack.check(partial, A, B, C, 256)",
             None, _setup("sim"), check=_check("barrier", ("tack.wgmma", "lanes"))),
        Case("wgmma/check-reports-a-misplaced-tile", "r = tack.check(misplaced, A, B, C, 256)",
             None, _setup("sim"), check=_check("uninitialized", ("'As'",)),
             note="a wgmma reading rows of its tile that nothing staged"),
        Case("wgmma/simulator-order-bit-for-bit", "tile(A, B, C, 256)", None, _setup("sim"),
             check=_ORDER,
             note="products exact, added in k order over four wgmmas, one f32 rounding each"),
    ]


CASES = _cases()
