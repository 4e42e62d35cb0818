"""The builtin registry (python/tack/builtins/): every name a kernel can call is one entry, every
stage reads its entry, and a math function added as one entry works everywhere."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import tack
from tack import dtypes as dt
from tack import intrinsics
from tack.builtins.docs import GROUPS
from tack.builtins.registry import BARE, HOST_FUNCTIONS, REGISTRY, by_op, functions, resolve
from tack.frontend.typing.rules import RULES
from tack.frontend.vectors import ELEMENTWISE
from tack.ir.ops import MATH_BINARY, MATH_UNARY, Op
from tack.ir.semantics import NUMPY
from tack.render.julia.ka import OPS as JULIA_OPS
from tack.render.llvm.printer import LLVMRenderer
from tack.render.llvm.ptx import PTXRenderer

ROOT = Path(__file__).resolve().parents[2]
MATH = functions()


def test_every_host_object_a_kernel_calls_resolves_to_its_entry():
    for fn in intrinsics.ALL:
        b = resolve(fn)
        assert b is not None and REGISTRY[b.qualified] is b, fn
    for b in REGISTRY.values():
        if b.namespace == "tack." and b.form not in ("cast", "vector"):  # the device functions
            assert resolve(getattr(intrinsics, b.name, None) or tack.Matrix.identity) is b, b
            if b.name != "expect_dtype":  # library code's, from tack.intrinsics
                assert getattr(tack, b.name) is getattr(intrinsics, b.name), b.qualified
        for alias in b.aliases:
            assert resolve(alias) is b, (b.qualified, alias)
    for t in dt.STORAGE:
        assert resolve(t).dtype is t and resolve(t).op is Op.CAST
    for v in (tack.vec3, tack.mat4, tack.vector(3, tack.f64), tack.matrix(2, 3)):
        assert resolve(v).op is Op.VECTOR
    assert {"sqrt", "min", "len", "range", "print", "any"} <= set(BARE)
    assert not {"bool", "shared", "f32"} & set(BARE)  # reached through `tack.` only


def test_entries_are_well_formed():
    groups = {g for g, _, _ in GROUPS}
    for key, b in REGISTRY.items():
        assert key == b.qualified and b.group in groups and b.doc and b.call, key
        assert hasattr(_form_owner(), f"call_{b.form}"), (key, b.form)
        if b.typing is not None:
            assert b.op is not None and b.op in RULES, key
        if b.form in ("op", "minmax", "cast", "atomic", "mask"):
            assert b.op is not None, key


def test_a_statement_entry_used_as_a_value_is_refused(tmp_path):
    """`Builtin.statement` is what the parser and typechecker do: each builtin it marks, called
    where a value is needed, is refused as one."""
    statements = [b for b in REGISTRY.values() if b.statement]
    assert {"tack.barrier", "tack.async_wait", "tack.mma_store", "tack.wgmma_wait",
            "print"} <= {b.qualified for b in statements}
    lines = ["import tack", ""]
    for j, b in enumerate(statements):
        args = ", ".join(["a"] * b.arity[0]) if b.arity else "a"
        lines += ["@tack.kernel", f"def k{j}(a, out):", "    for i in range(out.shape[0]):",
                  f"        v = {b.qualified}({args})", "        out[i] = 1.0", ""]
    path = tmp_path / "statement_kernels.py"
    path.write_text("\n".join(lines))
    ns = {"__name__": "statement_kernels", "__file__": str(path)}
    exec(compile(path.read_text(), str(path), "exec"), ns)  # noqa: S102 - generated here
    a = tack.zeros(32, tack.f32)
    for j, b in enumerate(statements):
        with tack.device("sim"), pytest.raises(tack.TackError, match="used as a value"):
            ns[f"k{j}"](a, tack.zeros(32, tack.f32))


def _form_owner():
    from tack.frontend.parser.calls import Calls
    return Calls


@pytest.mark.parametrize("b", MATH, ids=[b.name for b in MATH])
def test_every_math_function_reaches_every_stage_from_its_entry(b):
    assert b.op is Op[b.name.upper()] and by_op(b.op) is b
    assert b.op in (MATH_UNARY if b.arity == (1, 1) else MATH_BINARY)
    assert b.op in RULES and b.op in ELEMENTWISE
    assert NUMPY[b.op] is b.numpy
    assert LLVMRenderer.EMIT[b.op] == PTXRenderer.EMIT[b.op] == "math"
    assert JULIA_OPS[b.op] == b.julia.name
    assert getattr(tack, b.name) is HOST_FUNCTIONS[b.name] is getattr(tack.math, b.name)


def _kernel(fn, arity):
    # `fn` is the host function: a kernel resolves it by identity to its entry.
    if arity == 1:
        @tack.kernel
        def one(x, y, out):
            for i in range(x.shape[0]):
                out[i] = fn(x[i])
        return one

    @tack.kernel
    def two(x, y, out):
        for i in range(x.shape[0]):
            out[i] = fn(x[i], y[i])
    return two


@pytest.mark.engines("cpu", "sim", "cuda",
                     reason="not julia: a kernel per function costs ~1 s to compile on Julia "
                            "1.5.3, about a minute here; julia/test/test_math_builtins.jl checks "
                            "the rendered functions against Julia's own")
@pytest.mark.parametrize("b", MATH, ids=[b.name for b in MATH])
def test_every_math_function_computes_its_numpy_function(b, engine):
    """Each entry, on each engine, in f32 and f64, against its own NumPy function (the
    simulator's) within a few ulps (engines call their own libm)."""
    k = _kernel(HOST_FUNCTIONS[b.name], b.arity[0])
    rng = np.random.default_rng(len(b.name))
    for t, rtol in ((np.float32, 2e-6), (np.float64, 1e-14)):
        for n in (1, 7, 1025):
            x = rng.uniform(0.05, 0.95, n).astype(t)  # inside every domain (asin, log, ...)
            y = rng.uniform(-2.0, 2.0, n).astype(t)
            out = tack.zeros(n, tack.f32 if t is np.float32 else tack.f64)  # on `engine`
            k(tack.array(x), tack.array(y), out)
            got = out.numpy()
            want = b.numpy(x) if b.arity[0] == 1 else b.numpy(x, y)
            np.testing.assert_allclose(got, want, rtol=rtol, atol=0, err_msg=b.name)


def test_page_is_generated_from_the_registry():
    from tack.builtins.docs import page_markdown

    page = (ROOT / "docs" / "builtins.md").read_text(encoding="utf-8")
    for key in REGISTRY:
        assert f"| `{key}` |" in page, key  # every name a kernel calls, findable by search
    assert page == page_markdown(), (
        "docs/builtins.md is out of date: python -m tack.builtins > docs/builtins.md")


# Appended to builtins/functions.py of a copy of the package: the one place a math function is
# declared. Two functions: one of any float dtype, one that only f32 takes (domain and lowerings).
NEW_ENTRIES = '''
from .. import dtypes as _dt
from .entry import F32 as _F32
add_function("expm1", "expm1(x)", "e**x - 1, exact near 0", numpy=np.expm1,
             cpu=library("expm1"), ptx=library("expm1"), julia=template("expm1({0})"),
             aliases=(np.expm1,))
add_function("log1pf", "log1pf(x)", "log(1 + x), of f32 only", numpy=np.log1p, domain=_F32,
             cpu=library("log1p", (_dt.f32,)), ptx=library("log1p", (_dt.f32,)),
             julia=template("log1p({0})", (_dt.f32,)))
'''

SCRIPT = '''
import numpy as np
import tack
from tack.builtins.docs import page_markdown
from tack.compiler import specialize
from tack.render.julia.ka import render_julia
from tack.render.llvm.printer import LLVMRenderer
from tack.render.llvm.ptx import PTXRenderer


@tack.kernel
def k(x, out):
    for i in range(x.shape[0]):
        out[i] = expm1(x[i]) + tack.expm1(x[i] * 2)


@tack.kernel
def k32(x, out):
    for i in range(x.shape[0]):
        out[i] = log1pf(x[i])


for engine in ("cpu", "sim"):
    for t in (np.float32, np.float64):
        for n in (1, 7, 1025):
            x = np.linspace(-1e-3, 2.0, n).astype(t)
            with tack.device(engine):
                out = tack.zeros(n, tack.f32 if t is np.float32 else tack.f64)
                k(tack.array(x), out)
                want = np.expm1(x) + np.expm1(x * t(2))
                rtol = 4e-6 if t is np.float32 else 1e-14
                np.testing.assert_allclose(out.numpy(), want, rtol=rtol)
    with tack.device(engine):
        x = np.linspace(0.0, 3.0, 7).astype(np.float32)
        out = tack.zeros(7, tack.f32)
        k32(tack.array(x), out)
        np.testing.assert_allclose(out.numpy(), np.log1p(x), rtol=4e-6)
        try:
            k32(tack.array(x.astype(np.float64)), tack.zeros(7, tack.f64))
        except tack.TackTypeError as exc:
            assert "log1pf() of f64: it takes f32 operands" in str(exc), exc
        else:
            raise AssertionError("log1pf took f64")

tack.set_default_device("cpu")
kir = specialize(k, [tack.zeros(7, tack.f32), tack.zeros(7, tack.f32)])
assert '@"expm1f"(float' in LLVMRenderer().render(kir)
assert "__nv_expm1f" in PTXRenderer().render(kir)
assert "expm1(" in render_julia(kir)
assert "| `expm1` | `expm1(x)` | 1 | float |" in page_markdown()
assert "| `log1pf` | `log1pf(x)` | 1 | f32 |" in page_markdown()
assert tack.expm1(0.5) == np.expm1(0.5) and tack.expm1.__doc__.startswith("expm1(x): e**x - 1")
print("ok")
'''


def test_a_math_function_is_one_entry(tmp_path):
    """CONTRIBUTING.md, "Adding a builtin": one `add_function` call in builtins/functions.py
    (here appended to a copy of the package) gives the op, the parser's and typechecker's rules,
    the simulator, the CPU, PTX and Julia lowerings, `tack.<name>` and the docs row."""
    pkg = tmp_path / "tack"
    shutil.copytree(ROOT / "python" / "tack", pkg,
                    ignore=shutil.ignore_patterns("__pycache__"))
    functions_py = pkg / "builtins" / "functions.py"
    functions_py.write_text(functions_py.read_text() + NEW_ENTRIES)
    (tmp_path / "script.py").write_text(textwrap.dedent(SCRIPT))
    r = subprocess.run([sys.executable, str(tmp_path / "script.py")], check=False,
                       cwd=tmp_path, env={**_env(), "PYTHONPATH": str(tmp_path)},
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and r.stdout.strip().endswith("ok"), r.stdout + r.stderr


# Inserted into builtins/registry.py of a copy of the package, before its lookup tables: the one
# place a device function is declared (here another name for the LANE_ID op).
NEW_DEVICE_ENTRY = '''
add_builtin("lane", "tack.lane()", "the lane index within the warp, again", group="device",
            arity=(0, 0), op=Op.LANE_ID, dtype=dt.i32, namespace="tack.", needs="workgroups")
'''

DEVICE_SCRIPT = '''
import numpy as np
import tack
from tack.builtins.docs import page_markdown
from tack.intrinsics import lane  # as library code imports a device function


@tack.kernel
def k(out, n):
    for i in range(n):
        out[i] = tack.lane() + 100 * lane()


with tack.device("sim"):
    out = tack.zeros(96, tack.i32)
    k(out, 96)
    np.testing.assert_array_equal(out.numpy(), np.arange(96) % 32 * 101)
assert tack.lane is lane and "lane" in tack.__all__ and "lane" in dir(tack)
try:
    tack.lane()
except tack.TackRuntimeError as exc:
    assert "lane() can only be used inside a @tack.kernel" in str(exc), exc
else:
    raise AssertionError("tack.lane() ran on the host")
assert tack.lane.__doc__ == "tack.lane(): the lane index within the warp, again."
assert "| `tack.lane` | `tack.lane()` | 0 | any | workgroups |" in page_markdown()
print("ok")
'''


def test_a_device_function_is_one_entry(tmp_path):
    """CONTRIBUTING.md, "Adding a builtin": one `add_builtin` call in builtins/registry.py (here
    inserted into a copy of the package) gives `tack.<name>` and `tack.intrinsics.<name>` (the
    host objects that raise from Python), its place in `tack.__all__`, its parsing and typing
    in a kernel that the simulator runs, and its docs row."""
    pkg = tmp_path / "tack"
    shutil.copytree(ROOT / "python" / "tack", pkg,
                    ignore=shutil.ignore_patterns("__pycache__"))
    registry_py = pkg / "builtins" / "registry.py"
    text = registry_py.read_text()
    marker = "\n# ---- lookups"
    assert marker in text
    registry_py.write_text(text.replace(marker, NEW_DEVICE_ENTRY + marker))
    (tmp_path / "script.py").write_text(textwrap.dedent(DEVICE_SCRIPT))
    r = subprocess.run([sys.executable, str(tmp_path / "script.py")], check=False,
                       cwd=tmp_path, env={**_env(), "PYTHONPATH": str(tmp_path)},
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and r.stdout.strip().endswith("ok"), r.stdout + r.stderr


def _env() -> dict:
    return {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


@tack.kernel
def roots(x, out):
    for i in range(x.shape[0]):
        out[i] = tack.sqrt(x[i]) + tack.tan(x[i])


@pytest.mark.parametrize("printer", ["cpu", "ptx", "julia"])
def test_a_dtype_an_engine_lowering_lacks_is_a_render_error(printer, monkeypatch):
    """Each lowering names the dtypes its engine supports (`Lowering.dtypes`): an f64 operand
    of a function whose lowering says f32 only is refused by that printer, naming the op."""
    import dataclasses

    from tack.builtins import registry
    from tack.builtins.entry import Lowering
    from tack.compiler import specialize
    from tack.render.julia.ka import render_julia

    tack.set_default_device("cpu")
    kir = specialize(roots, [tack.zeros(3, tack.f64), tack.zeros(3, tack.f64)])
    tan = registry.by_op(Op.TAN)
    low = getattr(tan, printer)
    narrowed = dataclasses.replace(tan, **{printer: Lowering(low.kind, low.name, (dt.f32,))})
    monkeypatch.setitem(registry._BY_OP, Op.TAN, narrowed)
    if printer == "julia":  # the Julia printer reads its table of dtypes at import
        import tack.render.julia.ka as jl
        monkeypatch.setitem(jl.DTYPES, Op.TAN, (dt.f32,))
    render = {"cpu": lambda k: LLVMRenderer().render(k), "ptx": lambda k: PTXRenderer().render(k),
              "julia": render_julia}[printer]
    with pytest.raises(tack.RenderError, match="TAN"):
        render(kir)
    monkeypatch.undo()
    assert "tan" in render(kir)
