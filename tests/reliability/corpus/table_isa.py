"""The CPU engine's code for each instruction set: one kernel, the same bits whatever the target.

Rows compile the sibling sign/zero extensions of one 64-bit value (the shape LLVM 22's x86
backend miscompiled for AVX-512 targets: docs/design/002-cpu-engine.md, "Vector shifts by
out-of-range constants") for the host and, in a fresh process, for each target TACK_CPU_TARGET
names, and check every column against Python integers; a misspelled target is a TackValueError
at the call, before anything runs."""
from __future__ import annotations

from .case import Case

_SETUP = '''
@tack.kernel
def widen(a, out):
    for i in range(a.shape[0]):
        x = a[i]
        out[i, 0] = tack.i64(tack.i8(x)); out[i, 1] = tack.i64(tack.u8(x))
        out[i, 2] = tack.i64(tack.i16(x)); out[i, 3] = tack.i64(tack.u16(x))
        out[i, 4] = tack.i64(tack.i32(x)); out[i, 5] = tack.i64(tack.u32(x))
        out[i, 6] = tack.i64(x) < 0;       out[i, 7] = x < tack.u64(9223372036854775807)

v = np.array([1, 0xc5e58e92ef78f85b, 0x8000_0080, 2 ** 64 - 1] * 8, np.uint64)
a = tack.array(v)
out = tack.zeros((len(v), 8), tack.i64)

def low(x, bits, signed):
    m = x & ((1 << bits) - 1)
    return m - (1 << bits) if signed and m >> (bits - 1) else m

want = [[low(x, 8, True), low(x, 8, False), low(x, 16, True), low(x, 16, False),
         low(x, 32, True), low(x, 32, False), int(x >= 2 ** 63), int(x < 2 ** 63 - 1)]
        for x in map(int, v)]
'''

_CHECK = "assert out.numpy().tolist() == want, out.numpy()[:4].tolist()"

# (label, TACK_CPU_TARGET or None for the host, quick): a baseline every x86-64 machine runs
# (elsewhere LLVM ignores the unknown CPU name and the row runs the architecture's generic code)
_TARGETS = [("host", None, True), ("x86-64-v2", "x86-64-v2", False)]


def _cases() -> list[Case]:
    out = []
    for label, target, quick in _TARGETS:
        env = (("TACK_CPU_TARGET", target),) if target else ()
        out.append(Case(f"isa/widening-casts/{label}", "widen(a, out)", None, _SETUP,
                        check=_CHECK, env=env, quick=quick,
                        note="sibling i64(i16(x)), i64(u16(x)) stores: -1 in the unsigned "
                             "columns on AVX-512 hosts (LLVM 22 blend-to-OR of a poison "
                             "ashr lane)"))
    out.append(Case("isa/target/misspelled", "widen(a, out)", "tack.TackValueError", _SETUP,
                    env=(("TACK_CPU_TARGET", "x86 64 v2"),), mentions=("TACK_CPU_TARGET",),
                    unchanged=("a", "out"), quick=True,
                    note="a target that is not <cpu>[:<features>] is refused before any run"))
    return out


CASES: list[Case] = _cases()
