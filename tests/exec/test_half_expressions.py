"""Random expressions over half arrays, f32 arrays and Python literals, against NumPy evaluating the
same text (docs/language.md, "Half precision"): NumPy 2's float16 and ml_dtypes' bfloat16 round each
operation once, widen beside float32 and let a Python number take the array's type (NEP 50), which
are Tack's rules, so every result must have the same bits on the CPU engine and the simulator.
A generator of whole expressions catches a wrong rounding point (a fused or skipped rounding, a
literal typed wrongly, a promotion) that one-op tests cannot."""
import math
import random
import sys

import ml_dtypes
import numpy as np
import pytest
import tack

HALVES = {"f16": np.float16, "bf16": ml_dtypes.bfloat16}
LITERALS = ["0.1", "3.0", "2", "0.5", "1e-3", "7"]
pytestmark = pytest.mark.filterwarnings("ignore:.*encountered:RuntimeWarning")


def expression(rng: random.Random, depth: int) -> str:
    """Kernel source of one half expression of `a[i] b[i] c[i]` and literals; with an f32 `s[i]`
    beside it at the top only (below, an f32 `x * y + z` would fuse: the f32 rule)."""
    e = half_expression(rng, depth)
    if rng.random() < 0.3:
        e = f"({e} {rng.choice('+-*/')} s[i])"
    return e


def half_expression(rng: random.Random, depth: int) -> str:
    """No operation of literals alone: Tack evaluates one at the precision it meets (weak) and
    makes `sqrt(7)` f32, where NumPy computes in double first."""
    if depth == 0 or rng.random() < 0.25:
        return rng.choice(["a[i]", "b[i]", "c[i]", rng.choice(LITERALS)])
    kind = rng.random()
    x = half_expression(rng, depth - 1)
    if "[i]" not in x:  # `sqrt(7)` is f32 in Tack (an integer argument), weak in Python
        x = rng.choice(["a[i]", "b[i]", "c[i]"])
    if kind < 0.1:
        return f"(-{x})"
    if kind < 0.2:
        return f"abs({x})"
    if kind < 0.27:
        return f"tack.sqrt(abs({x}))"
    y = half_expression(rng, depth - 1)
    if "[i]" not in x + y:
        y = rng.choice(["a[i]", "b[i]", "c[i]"])
    return f"({x} {rng.choice('+-*/')} {y})"


def _abs(x):
    return abs(x) if isinstance(x, (int, float)) else np.abs(x)  # a literal stays weak


def _sqrt(x):
    return math.sqrt(x) if isinstance(x, (int, float)) else np.sqrt(x)


def numpy_text(code: str) -> str:
    return code.replace("[i]", "").replace("tack.sqrt(", "_sqrt(").replace("abs(", "_abs(")


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    """40 kernels `k<j>(a, b, c, s, out)`, one expression each (a module on disk: Tack reads
    kernel sources), and their expressions."""
    rng = random.Random(20240611)
    exprs = [expression(rng, rng.randint(2, 5)) for _ in range(40)]
    lines = ["import tack", ""]
    for j, e in enumerate(exprs):
        lines += ["@tack.kernel", f"def k{j}(a, b, c, s, out):",
                  "    for i in range(out.shape[0]):", f"        out[i] = {e}", ""]
    path = tmp_path_factory.mktemp("half_exprs") / "half_exprs_kernels.py"
    path.write_text("\n".join(lines))
    ns = {"__name__": "half_exprs_kernels", "__file__": str(path)}
    sys.modules.pop("half_exprs_kernels", None)
    exec(compile(path.read_text(), str(path), "exec"), ns)  # noqa: S102 - generated here
    return [(ns[f"k{j}"], e) for j, e in enumerate(exprs)]


def inputs(np_t, n: int = 97):
    rng = np.random.default_rng(5)
    a, b, c = (rng.standard_normal(n) * 4.0 ** rng.integers(-3, 4, n) for _ in range(3))
    a[:4] = [0.0, -0.0, np.inf, np.nan]
    return a.astype(np_t), b.astype(np_t), c.astype(np_t), rng.standard_normal(n).astype(
        np.float32)


@pytest.mark.parametrize("half", list(HALVES))
def test_random_half_expressions_match_numpy(kernels, engine, half):
    """Every kernel on the CPU engine, the simulator and a GPU; the first 12 on Julia, whose
    compiles take seconds each."""
    a, b, c, s = inputs(HALVES[half])
    limit = 12 if engine.engine_name == "julia" else None
    for kernel, code in kernels[:limit]:
        with np.errstate(all="ignore"):
            env = {"_abs": _abs, "_sqrt": _sqrt, "a": a, "b": b, "c": c, "s": s}
            want = np.asarray(eval(numpy_text(code), env))  # the generated text
        want = np.broadcast_to(want, a.shape)
        out = tack.zeros(a.size, tack.dtypes.from_numpy(want.dtype))
        kernel(tack.array(a), tack.array(b), tack.array(c), tack.array(s), out)
        got = out.numpy()
        same = got.view(f"u{got.itemsize}") == want.view(f"u{want.itemsize}")
        same |= np.isnan(got.astype(np.float64)) & np.isnan(want.astype(np.float64))
        bad = np.flatnonzero(~same)
        assert not bad.size, (code, want.dtype, bad[:5], got[bad[:5]], want[bad[:5]])
