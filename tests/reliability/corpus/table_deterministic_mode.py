"""Deterministic mode (docs/numerics.md, "Deterministic mode"): one switch makes every engine give
the CPU engine's bits. Each row holds one class of what used to differ: the device library's
math left in a kernel rendered for CUDA, sums the CPU engine added in its own order (layer_norm,
rms_norm, `a.sum()`, dot, var, scans), softmax rows past the one-read limit, scans that took
another path on the simulator than on CUDA; and the mode's own contract: a separate specialization per
mode (the prebuilt call path included) and flags refused before any launch."""
from __future__ import annotations

from .case import Case

_KERNEL = '''
@tack.kernel
def math(x, y):
    for i in range(x.shape[0]):
        y[i] = exp(x[i]) + log(x[i]) * sin(x[i]) - cos(x[i]) * tanh(x[i])

def bits(a):
    a = np.asarray(a)
    return a.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])

def on(device, fn, *args):
    with tack.deterministic(), tack.device(device):
        out = fn(*args)
    return [np.asarray(o.numpy() if hasattr(o, "numpy") else o) for o in out]

rng = np.random.default_rng(5)
'''

_SAME = '''
for g, w in zip(got, want):
    assert np.array_equal(bits(g), bits(w)), (g.ravel()[:4], w.ravel()[:4])
'''


def _cases() -> list[Case]:
    ptx = ("from tack.compiler import specialize\n"
           "from tack.toolchain.nvptx import compile_ptx\n"
           "x = tack.array(np.linspace(0.1, 3, 7).astype(np.float32)); y = tack.zeros(7)\n"
           "m = compile_ptx(specialize(math.in_mode(True), [x, y], tack.device('cuda')))")
    rows = [
        ("ptx-without-libdevice", ptx,
         "assert not m.libdevice and '__nv_' not in m.llvm_ir",
         ("a kernel in deterministic mode rendered for CUDA kept libdevice's exp, log, sin, cos "
          "and tanh (its bits the device library's); now tack.lib's arithmetic, no libdevice")),
        ("norms-cpu-is-sim",
         ("x = (rng.standard_normal((3, 1025)) * 3 + 0.5).astype(np.float32)\n"
          "f = lambda a: [tack.ops.layer_norm(a), tack.ops.rms_norm(a)]\n"
          "got, want = on('cpu', f, x), on('sim', f, x)"),
         _SAME, ("the CPU engine added a norm's row in eight lanes, the workgroup engines in "
                 "256 lanes and a tree: in the mode the CPU takes the workgroup order")),
        ("sums-cpu-is-sim",
         ("import tack.algorithms as alg\n"
          "x = (rng.standard_normal(70001) * 3 + 0.5).astype(np.float32)\n"
          "f = lambda v: [np.float64(tack.array(v).sum()), np.float64(alg.dot(tack.array(v), "
          "tack.array(v))), np.float64(alg.var(tack.array(v)))]\n"
          "got, want = on('cpu', f, x), on('sim', f, x)"),
         _SAME, ("sum, dot and var added in the CPU engine's chunks; in the mode the CPU runs "
                 "the workgroup order and the warp tree of CUDA and the simulator")),
        ("long-softmax-row-cpu-is-sim",
         ("x = (rng.standard_normal((2, 8209)) * 3).astype(np.float32)\n"
          "f = lambda a: [tack.ops.softmax(a), tack.ops.log_softmax(a)]\n"
          "got, want = on('cpu', f, x), on('sim', f, x)"),
         _SAME, ("rows past 256 * 32 take the online kernel with workgroups; in the mode the "
                 "CPU engine follows its order")),
        ("scan-takes-cudas-path",
         ("import tack.algorithms as alg\n"
          "x = rng.standard_normal(300001).astype(np.float32)\n"
          "def f(v):\n    out = tack.zeros(v.size)\n    alg.inclusive_scan(tack.array(v), out)\n"
          "    return [out]\n"
          "got = on('sim', f, x)\n"
          "with tack.device('sim'), alg.tuning(scan='look_back'):\n    want = f(x)\n"
          "want = [w.numpy() for w in want]"),
         _SAME, ("the simulator scanned floats in two passes where CUDA takes the look-back: "
                 "in the mode every workgroup engine takes CUDA's path")),
        ("scan-cpu-is-sim",
         ("import tack.algorithms as alg\n"
          "x = rng.standard_normal(70001).astype(np.float64)\n"
          "def f(v):\n    out = tack.zeros(v.size, dtype=v.dtype)\n"
          "    alg.exclusive_scan(tack.array(v), out)\n    return [out]\n"
          "got, want = on('cpu', f, x), on('sim', f, x)"),
         _SAME, ("the CPU engine scanned in chunks of 2^16; in the mode it computes the "
                 "workgroup engines' additions, tile by tile")),
    ]
    out = [Case(f"deterministic/{name}", call, None, _KERNEL, check=check, quick=k < 2,
                note=note) for k, (name, call, check, note) in enumerate(rows)]
    out.append(Case(
        "deterministic/a-specialization-per-mode",
        "x = tack.array(np.linspace(0.5, 2, 9).astype(np.float32)); y = tack.zeros(9)\n"
        "math(x, y); math(x, y); math(x, y)\n"
        "with tack.deterministic():\n    math(x, y); math(x, y)",
        None, _KERNEL, check="assert math._twin is not None and len(math._twin._plans) == 1",
        quick=True, note="the mode reaches a kernel whose prebuilt call path exists already, "
                         "and its specializations are the twin's, not the default's"))
    for label, call, cls in (
            ("switch-string", "tack.set_deterministic('false')", "TypeError"),
            ("kernel-string", "tack.kernel(deterministic='yes')", "TypeError"),
            ("block-number", "tack.deterministic(2)", "TypeError"),
            ("op-keyword", "tack.ops.softmax(np.ones(3, np.float32), deterministic='on')",
             "TypeError"),
            ("with-fastmath", "tack.kernel(fastmath=True, deterministic=True)", "ValueError")):
        out.append(Case(f"deterministic/refuses-{label}", call, cls, _KERNEL,
                        quick=label == "switch-string",
                        note="a flag that is not True or False, or fast-math with the mode, "
                             "is refused before any launch"))
    return out


CASES = _cases()
