"""The CPU engine's target (the host, or one chosen with TACK_CPU_TARGET / llvm_host.cpu_target)
and the workaround for vector shifts by out-of-range constants (docs/design/002-cpu-engine.md,
"Vector shifts by out-of-range constants"): sibling sign and zero extensions of one 64-bit value,
which LLVM 22's x86 backend miscompiled for AVX-512 hosts."""
import ctypes
import os
import platform
import re
import subprocess
import sys

import numpy as np
import pytest
import tack
from tack.testing.shapes import noncontiguous
from tack.toolchain import llvm_host, objload

X86 = platform.machine().lower() in ("x86_64", "amd64")
HAS_AVX512 = X86 and "+avx512f" in llvm_host.live_host_info()["features"].split(",")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

WIDEN_SRC = '''
import tack

@tack.kernel
def widen(a, out):
    for i in range(a.shape[0]):
        x = a[i]
        out[i, 2] = tack.i64(tack.i16(x)); out[i, 3] = tack.i64(tack.u16(x))
        out[i, 4] = tack.i64(tack.i32(x)); out[i, 5] = tack.i64(tack.u32(x))
        out[i, 6] = tack.i64(x) < 0;       out[i, 7] = x < tack.u64(9223372036854775807)
'''


def _load_widen(tmp_path, tag=""):
    """A fresh `widen` kernel object (nothing specialized yet)."""
    path = tmp_path / f"widen_kernel{tag}.py"
    path.write_text(WIDEN_SRC)
    ns = {"__name__": f"widen_kernel{tag}", "__file__": str(path)}
    exec(compile(WIDEN_SRC, str(path), "exec"), ns)  # noqa: S102 - the test's own kernel
    return ns["widen"]


def _widen_reference(v: np.ndarray) -> np.ndarray:
    """Python ints: the low 16/32 bits, sign- or zero-extended; the two comparisons."""
    out = np.zeros((len(v), 8), np.int64)
    for r, x in enumerate(int(e) for e in v):
        def low(bits, signed, x=x):
            m = x & ((1 << bits) - 1)
            return m - (1 << bits) if signed and m >> (bits - 1) else m
        out[r, 2:] = [low(16, True), low(16, False), low(32, True), low(32, False),
                      int(low(64, True) < 0), int(x < 2 ** 63 - 1)]
    return out


def _values(n: int) -> np.ndarray:
    rng = np.random.default_rng(n)
    v = rng.integers(0, 2 ** 64, n, dtype=np.uint64, endpoint=False)
    v[: min(n, 4)] = [1, 0xc5e58e92ef78f85b, 0x8000, 0xffff_ffff_8000_7fff][: min(n, 4)]
    return v


@pytest.fixture(autouse=True)
def _cpu():
    tack.set_default_device("cpu")


@pytest.mark.parametrize("n", [1, 4, 5, 31, 257])
@pytest.mark.parametrize("layout", ["contiguous", "strided"])
def test_regression_widening_casts_of_one_value(tmp_path, n, layout):
    """The defects issue's kernel: -1 in the u16/u32 columns for n >= 4 on AVX-512 hosts."""
    v = _values(n)
    a = tack.array(noncontiguous(v, "strided") if layout == "strided" else v)
    out = tack.zeros((n, 8), tack.i64)
    _load_widen(tmp_path)(a, out)
    np.testing.assert_array_equal(out.numpy(), _widen_reference(v))


@pytest.mark.skipif(not X86, reason="x86 targets")
@pytest.mark.parametrize("target", ["x86-64-v2", "x86-64-v3"] +
                         (["x86-64-v3:+avx512f", "x86-64-v4"] if HAS_AVX512 else []))
def test_widening_casts_for_each_target(tmp_path, target):
    """The same kernel compiled for baseline ISAs and, where the host runs them, for the
    AVX-512 ones the miscompile needed (+avx512f alone is enough)."""
    v = _values(31)
    out = tack.zeros((31, 8), tack.i64)
    with llvm_host.cpu_target(target):
        _load_widen(tmp_path, target.replace("-", "_").replace(":", "_").replace("+", ""))(
            tack.array(v), out)
    np.testing.assert_array_equal(out.numpy(), _widen_reference(v))


# The reduced form: two sibling blends in one block, so the shift-amount constant has two uses
# and keeps its out-of-range lane into instruction selection.
MINIMAL_LL = """
target triple = "x86_64-unknown-linux-gnu"

define void @g(ptr %p, ptr %out) {
  %x = load <2 x i64>, ptr %p, align 8
  %ashr = ashr <2 x i64> %x, <i64 1, i64 64>
  %and = and <2 x i64> %x, <i64 0, i64 255>
  %r = shufflevector <2 x i64> %ashr, <2 x i64> %and, <2 x i32> <i32 0, i32 3>
  store <2 x i64> %r, ptr %out, align 8
  %p2 = getelementptr i64, ptr %p, i64 2
  %out2 = getelementptr i64, ptr %out, i64 2
  %x2 = load <2 x i64>, ptr %p2, align 8
  %ashr2 = ashr <2 x i64> %x2, <i64 1, i64 64>
  %and2 = and <2 x i64> %x2, <i64 0, i64 255>
  %r2 = shufflevector <2 x i64> %ashr2, <2 x i64> %and2, <2 x i32> <i32 0, i32 3>
  store <2 x i64> %r2, ptr %out2, align 8
  ret void
}
"""


@pytest.mark.skipif(not HAS_AVX512, reason="the miscompile needs an AVX-512 target")
def test_minimal_ir_through_the_toolchain():
    """The reduced IR, compiled by llvm_host for an AVX-512 target and run: lane 1 is x & 255
    (250 for -6), not the sign fill of the discarded ashr lane (-1)."""
    with llvm_host.cpu_target("x86-64-v3:+avx512f"):
        obj = llvm_host.compile_here(MINIMAL_LL)
    image = objload.map_object(obj)
    g = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)(image.address("g"))
    a, out = np.full(4, -6, np.int64), np.zeros(4, np.int64)
    g(a.ctypes.data, out.ctypes.data)
    assert out.tolist() == [-3, 250, -3, 250]


def test_defined_shift_amounts_rewrites_only_undefined_lanes():
    text = ("  %a = ashr exact <4 x i64> %s, <i64 48, i64 65535, i64 32, i64 4294967295>\n"
            "  %b = lshr <2 x i32> %t, <i32 poison, i32 31>\n"
            "  %c = shl nuw <8 x i16> %u, splat (i16 16)\n"
            "  %d = ashr <4 x i64> %v, splat (i64 63)\n"
            "  %e = ashr <2 x i8> %w, <i8 -1, i8 7>\n"
            "  %f = and <4 x i64> %s, <i64 poison, i64 65535, i64 poison, i64 4294967295>\n"
            "  %g = ashr i64 %x, 70\n")
    got = llvm_host.defined_shift_amounts(text).splitlines()
    assert got == [
        "  %a = ashr exact <4 x i64> %s, <i64 48, i64 0, i64 32, i64 0>",
        "  %b = lshr <2 x i32> %t, <i32 0, i32 31>",
        "  %c = shl nuw <8 x i16> %u, splat (i16 0)",
        "  %d = ashr <4 x i64> %v, splat (i64 63)",
        "  %e = ashr <2 x i8> %w, <i8 0, i8 7>",
        "  %f = and <4 x i64> %s, <i64 poison, i64 65535, i64 poison, i64 4294967295>",
        "  %g = ashr i64 %x, 70"]
    assert llvm_host.defined_shift_amounts("\n".join(got)) == "\n".join(got)


_SHIFT_LANES = re.compile(r"= (?:ashr|lshr|shl)[^<\n]*<\d+ x i(\d+)> [^,\n]+, "
                          r"(<[^>\n]*>|splat \(i\d+ -?\d+\))")


def test_optimized_ir_keeps_vectors_without_undefined_shift_lanes(tmp_path):
    """What code generation gets (`inspect(mode="optimized")`): still vectorized (the main loop
    and the rows), and no constant shift lane outside [0, width)."""
    v = _values(64)
    text = tack.inspect(_load_widen(tmp_path), tack.array(v), tack.zeros((64, 8), tack.i64),
                        mode="optimized")
    assert re.search(r"<\d+ x i64>", text)
    for m in _SHIFT_LANES.finditer(text):
        bits = int(m.group(1))
        for lane in re.findall(r"i\d+ (-?\d+|poison|undef)", m.group(2)):
            assert lane not in ("poison", "undef") and 0 <= int(lane) < bits, m.group(0)


@pytest.mark.skipif(not X86, reason="x86 targets")
def test_chosen_target_changes_the_code_and_its_cache_key(tmp_path):
    kern, args = _load_widen(tmp_path), (tack.array(_values(8)), tack.zeros((8, 8), tack.i64))
    host_key = llvm_host.code_key(["ir", "x"])
    with llvm_host.cpu_target("x86-64-v2"):
        assert llvm_host.target_info()["cpu"] == "x86-64-v2"
        assert llvm_host.code_key(["ir", "x"]) != host_key
        baseline = tack.inspect(kern, *args, mode="optimized")
    assert llvm_host.chosen_target() is None and llvm_host.code_key(["ir", "x"]) == host_key
    host = tack.inspect(kern, *args, mode="optimized")
    # SSE4.2: no 256- or 512-bit vectors of i64 (the loop stays scalar); an AVX2 or AVX-512 host
    # takes 256 bits or more (LLVM keeps to 256 on CPUs it tunes so, e.g. Emerald Rapids)
    assert not re.search(r"<(4|8) x i64>", baseline)
    if X86 and "+avx2" in llvm_host.live_host_info()["features"].split(","):
        assert re.search(r"<(4|8) x i64>", host)


@pytest.mark.parametrize("spec", ["x86 64", "x86-64-v2:avx2", "x86-64-v2:+avx2,", ":+sse2"])
def test_badly_spelled_target_is_a_value_error(spec):
    with pytest.raises(tack.TackValueError, match="not a CPU target"), \
            llvm_host.cpu_target(spec):
        pass


@pytest.mark.skipif(not X86, reason="x86 targets")
def test_environment_variable_chooses_the_target(tmp_path):
    """TACK_CPU_TARGET in a fresh process: the baseline's code, right results; misspelled, a
    TackValueError at the call, before anything runs."""
    script = tmp_path / "run.py"
    script.write_text(WIDEN_SRC + '''
import numpy as np
from tack.toolchain import llvm_host
tack.set_default_device("cpu")
out = tack.zeros((5, 8), tack.i64)
try:
    widen(tack.array(np.array([1] + [0xc5e58e92ef78f85b] * 4, np.uint64)), out)
except tack.TackValueError as e:
    print("ERROR", e)
else:
    print(llvm_host.target_info()["cpu"], out.numpy()[4, 2:].tolist())
''')
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    for value, want in (("x86-64-v2", "x86-64-v2 [-1957, 63579, -277284773, 4017682523, 1, 0]"),
                        ("x86 64", "ERROR TACK_CPU_TARGET='x86 64' is not a CPU target")):
        env["TACK_CPU_TARGET"] = value
        got = subprocess.run([sys.executable, str(script)], env=env, capture_output=True,
                             check=False, text=True, timeout=120)
        assert got.stdout.startswith(want), got.stdout + got.stderr


def test_an_llvmlite_without_opaque_pointers_is_refused_with_the_fix(monkeypatch):
    """llvmlite 0.44 (LLVM 15) cannot parse the `ptr` of Tack's IR: refused by name, with the
    upgrade, instead of a parsing error at every kernel; the installed one passes."""
    import llvmlite
    import llvmlite.binding as llvm

    llvm_host._require_opaque_pointers(llvm)  # the installed llvmlite is new enough
    monkeypatch.setattr(llvmlite, "__version__", "0.44.0")
    with pytest.raises(ImportError, match=r"llvmlite >= 0\.45 .* found llvmlite 0\.44\.0 .*"
                                          r"pip install -U llvmlite"):
        llvm_host._require_opaque_pointers(llvm)
