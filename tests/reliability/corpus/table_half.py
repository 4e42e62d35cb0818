"""Half precision (tack.f16, tack.bf16): one rounding per operation and per conversion, the same
bits on every engine and instruction set as NumPy's float16 and ml_dtypes' bfloat16
(docs/language.md, "Half precision").

Each row is a class of wrong half result: a conversion rounded twice (f64 → f32 → half, a 64-bit
integer → f64 → bf16), subnormals flushed by a conversion instruction (AVX-512 BF16's
`vcvtneps2bf16`), a half multiply-add fused, a CPU without F16C calling conversion routines the
process lacks, an atomic on half data, a Julia kernel asking for `zero` of a type without one."""
from __future__ import annotations

from .case import Case

_SETUP = '''
import ml_dtypes

BF16, F16 = np.dtype(ml_dtypes.bfloat16), np.dtype(np.float16)

@tack.kernel
def store(a, out):
    for i in range(out.shape[0]):
        out[i] = a[i]

@tack.kernel
def fma_shape(a, b, out):
    for i in range(out.shape[0]):
        out[i] = a[i] * b[i] + a[i]

def bits(x):
    return np.asarray(x).view(np.uint16).tolist()

def stored(values, t, engine):
    with tack.device(engine):
        out = tack.zeros(len(values), t)
        store(tack.array(values), out)
        return out.numpy()
'''

# Values just off a rounding tie: rounded to f32 first, each becomes the tie, which then rounds
# to even, the wrong way (1 + 2**-8 + 2**-40 is bf16 1 + 2**-7, not 1).
_F64 = "np.array([1 + 2**-8 + 2**-40, -(1 + 2**-11 + 2**-40), 2.0**-134 * (1 + 2**-40)])"
_I64 = "np.array([2**62 + 2**54 + 1, -(2**62 + 2**54 + 1), 2**63 - 2**54 - 1], np.int64)"
# bf16 subnormals and the f32 subnormals that round to them
_SUB = "np.array([1.1754942e-38, 9.2e-41, -3e-39, 1e-45, 2.0**-133], np.float32)"


def _conversion(name, values, t, ref, engine, env=(), quick=False, note=""):
    return Case(f"half/{name}/{engine}" + ("-x86-64-v2" if env else ""),
                f"got = stored({values}, tack.{t}, {engine!r})", None, _SETUP,
                check=f"assert bits(got) == bits({values}.astype({ref})), (got, {values})",
                env=env, quick=quick, note=note)


def _cases() -> list[Case]:
    out = []
    v2 = (("TACK_CPU_TARGET", "x86-64-v2"),)
    for engine in ("cpu", "sim"):
        quick = engine == "cpu"
        out += [
            _conversion("f64-to-bf16-rounds-once", _F64, "bf16", "BF16", engine, quick=quick,
                        note="f64 → f32 → bf16 rounds twice; the pass rounds to odd in f32"),
            _conversion("f64-to-f16-rounds-once", _F64, "f16", "F16", engine,
                        note="f64 → f32 → f16 rounds twice"),
            _conversion("i64-to-bf16-rounds-once", _I64, "bf16", "BF16", engine, quick=quick,
                        note="i64 → f64 → bf16 rounds twice; a sticky bit keeps it once"),
            _conversion("f32-to-bf16-keeps-subnormals", _SUB, "bf16", "BF16", engine,
                        quick=quick, note="vcvtneps2bf16 (AVX-512 BF16) flushes them to zero"),
            Case(f"half/muladd-two-roundings/{engine}",
                 f"with tack.device({engine!r}):\n"
                 "    o = tack.zeros(len(x), tack.f16)\n"
                 "    fma_shape(tack.array(x), tack.array(y), o)\n"
                 "    got = o.numpy()",
                 None, _SETUP + "x = np.array([1 + 2**-10, 3.0, 0.1], F16)\n"
                                "y = np.array([1 - 2**-10, 1 / 3, 10.0], F16)\n",
                 check="assert bits(got) == bits(x * y + x), (got, x * y + x)", quick=quick,
                 note="a fused half multiply-add differs from NumPy's two roundings"),
        ]
    out += [
        _conversion("f64-to-f16-rounds-once", _F64, "f16", "F16", "cpu", env=v2,
                    note="no F16C: LLVM would call __truncsfhf2, which the process may lack; "
                         "the module's integer conversion instead"),
        _conversion("f32-to-bf16-keeps-subnormals", _SUB, "bf16", "BF16", "cpu", env=v2),
        Case("half/atomic-refused", "atomic_kernel(a, v)", "tack.TackTypeError",
             _SETUP + "@tack.kernel\ndef atomic_kernel(a, v):\n"
                      "    for i in range(v.shape[0]):\n"
                      "        tack.atomic_add(a, 0, v[i])\n"
                      "a, v = tack.zeros(2, tack.f16), tack.ones(3, tack.f16)\n",
             position=True, mentions=("atomic", "f16"), unchanged=("a",), quick=True,
             note="no engine has half atomics: refused before launch, everywhere"),
        Case("half/f16-with-bf16-is-f32",
             "t = tack.dtypes.promote(tack.f16, tack.bf16)", None, _SETUP,
             check="assert t is tack.f32, t", quick=True,
             note="neither half type holds the other (the wider-bits rule picked f16)"),
        Case("half/host-cast-rounds-once", "got = [tack.bf16(2**62 + 2**54 + 1), "
             "tack.bf16(1 + 2**-8 + 2**-40)]", None, _SETUP,
             check="assert bits(got) == bits(np.array([2**62 + 2**55, 1 + 2**-7], BF16)), got",
             quick=True, note="the host cast is the kernel's conversion"),
        Case("half/julia-bf16-local-zero",
             "text = render_julia(specialize(fma_shape, [x, x, x]))", None,
             _SETUP + "from tack.compiler import specialize\n"
                      "from tack.render.julia.ka import render_julia\n"
                      "x = tack.zeros(4, tack.bf16)\n",
             check="assert 'zero(TkBFloat16)' not in text and 'TkBFloat16' in text, text",
             quick=True, note="TackRuntime's own bf16 type has no `zero` method"),
    ]
    return out


CASES: list[Case] = _cases()
