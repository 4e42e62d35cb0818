"""TF32 rounding (docs/language.md, "TF32"): `tack.tf32` and the rounding `tack.mma(a, b, acc,
"tf32")` applies to its f32 inputs are one definition (python/tack/lib/tf32.py), so they agree on
every class of float32, NaNs included: each row holds them against a NumPy model written from
the definition (the top 19 bits kept, plus one where the 13 dropped are half a unit or more; an
infinity kept; a NaN quieted with its top ten fraction bits) over the class boundaries of every
binade, both signs."""
from __future__ import annotations

from .case import Case

_SETUP = '''
U32 = np.uint32
e = np.arange(256, dtype=U32) << 23
edges = np.concatenate([e | f for f in (0, 0xFFF, 0x1000, 0x1001, 0x1FFF, 0x2000, 0x3FFFFF,
                                        0x400000, 0x7FFFFF)])
x = np.concatenate([edges, edges | 0x80000000]).view(np.float32)

def model(x):
    u = x.view(U32).astype(np.int64)
    sign, mag = u & 0x80000000, u & 0x7FFFFFFF
    head = (mag >> 13) + ((mag & 0x1FFF) >= 0x1000)
    special = np.where(mag == 0x7F800000, mag, (mag | 0x400000) & 0x7FFFE000)
    return (sign | np.where(mag < 0x7F800000, head << 13, special)).astype(U32)

@tack.kernel
def round_all(x, y):
    for i in range(x.shape[0]):
        y[i] = tack.tf32(x[i])

@tack.kernel
def tile32(A, B, C, D, n):
    for i in range(n):
        w = i // 32
        acc = tack.mma(tack.mma_load_a(A, w * 16, 0), tack.mma_load_b(B, w * 8, 0),
                       tack.mma_load_acc(C, w * 16, 0), "tf32")
        tack.mma_store(acc, D, w * 16, 0)

# each value alone in a row of A (the rest -0.0), B's first row ones, C -0.0: every element of
# D's row is the rounded value itself (every other product is a zero, every sum exact)
warps = -(-x.size // 128) * 8
a = np.full((16 * warps, 8), -0.0, np.float32)
a[:x.size, 0] = x
b = np.zeros((8 * warps, 8), np.float32)
b[0::8] = 1.0
A, B = tack.array(a, device="sim"), tack.array(b, device="sim")
C = tack.array(np.full((16 * warps, 8), -0.0, np.float32), device="sim")
D = tack.zeros((16 * warps, 8), device="sim")
'''

_SAME = '''
bad = [(hex(w), hex(g), hex(m)) for w, g, m in zip(x.view(U32), got, model(x)) if g != m]
assert not bad, bad[:5]
'''


def _cases() -> list[Case]:
    return [
        Case("tf32/rounding-every-class-cpu",
             "y = tack.zeros(x.shape, tack.f32, device='cpu'); "
             "round_all(tack.array(x, device='cpu'), y); got = y.numpy().view(U32)",
             None, _SETUP, check=_SAME, quick=True,
             note="tack.tf32 on the class boundaries of every binade (subnormals, ties, "
                  "overflow, infinities, signalling and quiet NaNs) against the model"),
        Case("tf32/mma-rounds-as-tack-tf32", "tile32(A, B, C, D, 32 * warps)", None, _SETUP,
             check="got = D.numpy()[:x.size, 0].view(U32)\n" + _SAME,
             note="an MMA's f32 inputs kept a NaN as it was (its payload in the dropped bits "
                  "too) while tack.tf32 quieted it: one definition now serves both"),
    ]


CASES = _cases()
