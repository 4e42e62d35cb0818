"""`tack.ops.matmul` on tensor cores (docs/ops.md, "Tensor cores") and `ldmatrix` fragment loads
(docs/language.md, "Matrix multiply-accumulate"): rows for each way the tensor-core path can go
wrong — the wrong kernel for an engine, a result outside the documented bound or off the
documented order, an edge past a tile or a slab read as data, an output that overlaps its
inputs, a bad argument that reaches a launch — and for the `ldmatrix` lowering: taken where its
rows are provably aligned, refused otherwise, and each lane receiving its fragment as the PTX
ISA describes."""
from __future__ import annotations

from .case import Case

_SETUP = '''
import ml_dtypes
from tack import ops
from tack.testing.bounds import MATMUL_HALF_UNIT, mma_matmul_bound, tf32_matmul_bound
DEV = {dev!r}
rng = np.random.default_rng(5)
def inputs(m, k, n, dtype, z=None):
    pre = () if z is None else (z,)
    return (rng.standard_normal(pre + (m, k)).astype(dtype),
            rng.standard_normal(pre + (k, n)).astype(dtype))
def within(got, a, b, name):
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    exact, mags = a64 @ b64, np.abs(a64) @ np.abs(b64)
    k = a.shape[-1]
    if name == "tf32":
        limit = tf32_matmul_bound(k) * mags
    else:
        u = MATMUL_HALF_UNIT[name]
        limit = u * np.abs(exact) + (1 + u) * mma_matmul_bound(k) * mags + 2.0**-25
    err = np.abs(np.asarray(got, np.float64) - exact)
    assert (err <= limit).all(), float(np.max(err - limit))
tack.set_default_device(DEV)
'''

# The documented order: per element, d = 0; d = round_f32(d + a*b) for k in order (exact
# rationals), then one rounding to the result's dtype.
_ORDER = '''
from fractions import Fraction
def rnd(x):
    lo = np.float32(float(x))
    cands = {float(lo), float(np.nextafter(lo, np.float32(np.inf))),
             float(np.nextafter(lo, np.float32(-np.inf)))}
    return min(cands, key=lambda v: (abs(Fraction(v) - x),
                                     int(np.float32(v).view(np.uint32)) & 1))
want = np.zeros(got.shape, np.float32)
for i in range(a.shape[0]):
    for j in range(b.shape[1]):
        d = 0.0
        for p in range(a.shape[1]):
            d = rnd(Fraction(d) + Fraction(float(a[i, p])) * Fraction(float(b[p, j])))
        want[i, j] = d
g = got.numpy()
assert np.array_equal(g.view(np.uint8), want.astype(g.dtype).view(np.uint8))
'''

_PTX = '''
from tack.compiler import specialize
from tack.toolchain.nvptx import compile_ptx

@tack.kernel
def staged(A, D, n, ld, col):
    for i in range(n):
        As = tack.shared(tack.f16, 64 * 40)
        t = tack.thread_id()
        As[t] = A[t]
        tack.barrier()
        a = tack.mma_load_a(As, 16, 8, 40)
        b = tack.mma_load_b(As, 16, 24, 40)
        tack.mma_store(tack.mma(a, b, tack.mma_zeros()), D, 0, 0)
        a2 = tack.mma_load_a(As, 0, col, 40)
        b2 = tack.mma_load_b(As, 0, 8, ld)
        tack.mma_store(tack.mma(a2, b2, tack.mma_zeros()), D, 0, 8)

with tack.device("cpu"):
    kir = specialize(staged, [tack.zeros(256, tack.f16), tack.zeros((16, 16)), 256, 40, 8],
                     library_math=False)
ptx = compile_ptx(kir, "sm_90").ptx
'''

_ISA = '''
from tack.ir.mma import LDMATRIX, VARIANTS
for role in ("a", "b"):
    how = LDMATRIX[role]
    lay = getattr(VARIANTS["m16n8k16.bf16"], role)
    rows = {t: how.row(t) for t in range(32)}
    for t in range(32):
        for i in range(lay.size):
            reg, half = how.register(i)
            if how.trans:  # column t // 4 of the stored matrix, rows 2 (t % 4) + half
                r, c = rows[8 * reg + 2 * (t % 4) + half]
                got = (r, c + t // 4)
            else:  # row t // 4, elements 2 (t % 4) + half
                r, c = rows[8 * reg + t // 4]
                got = (r, c + 2 * (t % 4) + half)
            assert got == lay.coords(t, i), (role, t, i)
'''


def _setup(dev: str) -> str:
    return _SETUP.format(dev=dev)


def _cases() -> list[Case]:
    sim = _setup("sim")
    return [
        Case("tensor-matmul/sim-takes-the-mma-kernels",
             "import tack.ops.matmul_mma as mm; seen = []; k0 = mm.KERNELS['half']\n"
             "mm.KERNELS['half'] = (lambda *x: seen.append(1) or k0[0](*x),) + k0[1:]\n"
             "a, b = inputs(3, 4, 5, np.float16); got = ops.matmul(a, b)", None, sim,
             check="mm.KERNELS['half'] = k0; assert seen == [1]; within(got.numpy(), a, b, "
                   "'float16')", quick=True,
             note="an engine with capabilities.tensor_cores runs the half matmul on tensor cores"),
        Case("tensor-matmul/cpu-keeps-its-kernels",
             "a, b = inputs(7, 13, 5, np.float16); got = ops.matmul(a, b)", None,
             _setup("cpu"), check="assert got.dtype == tack.f16; within(got.numpy(), a, b, "
                                  "'float16')", quick=True,
             note="the CPU engine has no warps: the f32 kernels on a widened copy"),
        Case("tensor-matmul/edges-are-zeros",
             "a, b = inputs(37, 53, 41, ml_dtypes.bfloat16); got = ops.matmul(a, b)", None, sim,
             check=_ORDER,
             note="primes: every tile and slab overhangs; bit for bit the documented order"),
        Case("tensor-matmul/k-one-and-batches",
             "a, b = inputs(130, 1, 9, np.float16, z=2); got = ops.batched_matmul(a, b)", None,
             sim, check="within(got.numpy(), a, b, 'float16')",
             note="K = 1: a slab of one column; two row tiles, two matrices"),
        Case("tensor-matmul/tf32-documented-order",
             "a, b = inputs(5, 19, 3, np.float32); got = ops.matmul(a, b, precision='tf32')\n"
             "bits = lambda x: ((x.view(np.uint32).astype(np.uint64) + 0x1000) & 0xFFFFE000)"
             ".astype(np.uint32).view(np.float32)\n"
             "a, b = bits(a), bits(b)", None, sim, check=_ORDER,
             note="f32 operands rounded to TF32 (nearest, ties away) by tack.mma, then the "
                  "half rows' order"),
        Case("tensor-matmul/out-overlapping-an-input",
             "a, b = inputs(9, 9, 9, np.float16); want = a.astype(np.float64) @ b\n"
             "t = tack.array(a); got = ops.matmul(t, b, out=t)", None, sim,
             check="assert got is t; within(t.numpy(), a, b, 'float16')",
             note="each element of C reads a row of A: computed apart, then delivered"),
        Case("tensor-matmul/wrong-out-dtype", "ops.matmul(a, b, out=out)",
             "tack.TackTypeError",
             sim + "a, b = inputs(4, 4, 4, np.float16); out = tack.zeros((4, 4), device=DEV)\n",
             mentions=("matmul", "out"), unchanged=("out",),
             note="checked before any launch, the output untouched"),
        Case("tensor-matmul/ldmatrix-where-aligned", "pass", None, _PTX,
             check=("import re\n"
                    "assert len(re.findall(r'ldmatrix.sync.aligned.m8n8.x4.shared.b16', ptx))"
                    " == 1, ptx\n"
                    "assert len(re.findall(r'ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16'"
                    ", ptx)) == 1, ptx"),
             note="constant ld = 40 and columns 8, 24: one ldmatrix each; a column or a "
                  "stride passed as an argument is not provably aligned: plain loads"),
        Case("tensor-matmul/ldmatrix-lanes-match-the-isa", "pass", None, "", check=_ISA,
             quick=True,
             note="the rows each lane addresses and the register order give every lane its "
                  "fragment elements (PTX ISA, ldmatrix and mma.m16n8k16 fragment tables)"),
    ]


CASES = _cases()
