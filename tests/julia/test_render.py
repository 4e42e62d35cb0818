"""The Julia renderer: every rendered kernel parses (tree-sitter-julia) and keeps the rules of
docs/design/003-julia-rendering.md; hand-made IR covers what the corpus does not reach."""
import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from tack import dtypes as dt
from tack.errors import RenderError
from tack.ir import nodes as N
from tack.ir.nodes import Expr, KernelIR, Loc, Param
from tack.ir.ops import Op
from tack.ir.printer import kernel_str
from tack.render.julia.ka import _float_lit, render_julia

from tests.julia.golden import ALL_CASES, ROOT, case_ir
from tests.julia.jl_checks import literal_problems, parse_problems, structure_problems


def uses_f64(kir) -> bool:
    return "f64" in kernel_str(kir)


@pytest.mark.parametrize("case", ALL_CASES, ids=[c.name for c in ALL_CASES])
def test_rendered_corpus_kernel(case, jl_parser):
    kir = case_ir(case)
    text = render_julia(kir)
    assert parse_problems(jl_parser, text) == []
    assert literal_problems(jl_parser, text) == []
    assert structure_problems(jl_parser, text) == []
    assert text.count("@kernel function ") == 1
    if not uses_f64(kir):
        assert not re.search(r"Float64|Inf64|NaN64", text), "a Float32 kernel mentions Float64"
    assert render_julia(kir) == text  # stable: the same IR gives the same text and name


def test_every_julia_file_of_the_repo_parses(jl_parser):
    files = sorted((ROOT / "julia").rglob("*.jl"))
    assert len(files) >= 3
    for f in files:
        assert parse_problems(jl_parser, f.read_text()) == [], f


def test_every_kernel_file_has_a_julia_test():
    for case in ALL_CASES:
        test = ROOT / "julia" / "test" / f"test_{case.name}.jl"
        assert test.is_file(), f"{test} is missing"
        text = test.read_text()
        assert f'"{case.name}.jl"' in text and f"tack_{case.name}" in text
        assert f"function test_{case.name}(b)" in text


def test_specializations_get_distinct_names():
    from tests.kernels.corpus import CASES

    a, b = (render_julia(case_ir(c)) for c in CASES if c.name.startswith("int_divmod"))
    name = re.compile(r"@kernel function (\w+)\(")
    assert name.search(a).group(1) != name.search(b).group(1)


# -- hand-made IR -----------------------------------------------------------------------------

def L(line=3):
    return Loc("k.py", line, 5, line, 6)


def c(v, t):
    return Expr(Op.CONST, t, (), v, L())


def var(name, t):
    return Expr(Op.VAR, t, (), name, L())


def op(o, t, *args):
    return Expr(o, t, args, None, L())


def kernel(body, locals_=None, params=None):
    params = params if params is not None else [Param("out", "array", dt.f32, 1, (None,), True)]
    return KernelIR("k", params, body, dict(locals_ or {}), L(1), "k.py")


def store(value, idx=None, arr="out"):
    idx = idx if idx is not None else Expr(Op.LAUNCH, dt.i64, (), None, L())
    return N.Store(L(), arr, (idx,), value)


def render_ok(kir, parser):
    text = render_julia(kir)
    assert parse_problems(parser, text) == [], text
    assert structure_problems(parser, text) == [], text
    return text


def test_julia_keywords_and_reserved_names_are_renamed(jl_parser):
    names = ["end", "α", "_", "tk_t", "div", "__ctx__", "x"]
    body = [N.Assign(L(), n, c(1.0, dt.f32)) for n in names]
    body.append(store(var("end", dt.f32)))
    text = render_ok(kernel(body, {n: dt.f32 for n in names}), jl_parser)
    decl = re.findall(r"local (\S+)::Float32", text)
    assert len(set(decl)) == len(names)
    assert "x" in decl and not {"end", "_", "div", "__ctx__", "tk_t"} & set(decl)
    assert "tk_v_u3b1" in decl  # α, spelled in ASCII


@pytest.mark.parametrize("value,t,text", [
    (-2**63, dt.i64, "typemin(Int64)"), (-128, dt.i8, "typemin(Int8)"),
    (2**64 - 1, dt.u64, "UInt64(0xffffffffffffffff)"), (7, dt.u16, "UInt16(7)"),
    (-3, dt.i32, "Int32(-3)"), (1, dt.bool_, "true"), (0, dt.bool_, "false"),
    (0.1, dt.f64, "Float64(0.1)"), (float("inf"), dt.f64, "Inf64"),
    (float("-inf"), dt.f32, "(-Inf32)"), (float("nan"), dt.f32, "NaN32"),
    (-0.0, dt.f32, "(-0.0f0)"), (float(np.float32(0.1)), dt.f32, "0.1f0"),
    (1e-7, dt.f32, "1.0f-7"), (float(np.float32(3.4028235e38)), dt.f32, "3.4028235f38"),
])
def test_typed_constants(value, t, text, jl_parser):
    kir = kernel([N.Assign(L(), "v", c(value, t))], {"v": t})
    out = render_ok(kir, jl_parser)
    assert f"v = {text[1:-1] if text.startswith('(') else text}  #" in out
    assert literal_problems(jl_parser, out) == []


@given(st.floats(width=32, allow_nan=False, allow_infinity=False))
def test_float32_literals_round_trip(v):
    lit = _float_lit(v, dt.f32)
    if lit.startswith("Float32("):
        return
    mant, exp = lit.split("f")
    assert np.float32(float(f"{mant}e{exp}")) == np.float32(v)  # via Float64, as old parsers


@pytest.mark.parametrize("src,dst,text", [
    (dt.i32, dt.i8, "(x % Int8)"), (dt.i8, dt.u64, "(x % UInt64)"),
    (dt.u8, dt.i64, "(x % Int64)"), (dt.f32, dt.i32, "tk_fptoi(Int32, x)"),
    (dt.i64, dt.f32, "Float32(x)"), (dt.f32, dt.f64, "Float64(x)"),
    (dt.f32, dt.bool_, "(!iszero(x))"), (dt.i32, dt.bool_, "(!iszero(x))"),
    (dt.bool_, dt.i32, "Int32(x)"), (dt.bool_, dt.f32, "Float32(x)"),
])
def test_casts(src, dst, text, jl_parser):
    kir = kernel([N.Assign(L(), "y", op(Op.CAST, dst, var("x", src)))], {"x": src, "y": dst})
    out = render_ok(kir, jl_parser)
    expect = text[1:-1] if text.startswith("(") else text
    assert f"y = {expect}  #" in out


def test_shift_right_by_signedness(jl_parser):
    body = [N.Assign(L(), "a", op(Op.SHR, dt.i32, var("a", dt.i32), c(3, dt.i32))),
            N.Assign(L(), "b", op(Op.SHR, dt.u32, var("b", dt.u32), c(3, dt.u32)))]
    out = render_ok(kernel(body, {"a": dt.i32, "b": dt.u32}), jl_parser)
    assert "a = a >> Int32(3)" in out and "b = b >>> UInt32(3)" in out


def test_for_loops(jl_parser):
    n = Expr(Op.PARAM, dt.i32, (), "n", L())
    loops = [N.For(L(4), "k", c(0, dt.i32), c(10, dt.i32), None, [N.Break(L(5))]),
             N.For(L(6), "k", c(0, dt.i32), n, None, [N.Continue(L(7))]),
             N.For(L(8), "k", c(0, dt.i32), c(-2**31, dt.i32), None, [N.Break(L(9))]),
             N.For(L(10), "u", c(0, dt.u8), c(0, dt.u8), None, [N.Break(L(11))])]
    params = [Param("out", "array", dt.f32, 1, (None,), True), Param("n", "scalar", dt.i32)]
    out = render_ok(kernel(loops, {"k": dt.i32, "u": dt.u8}, params), jl_parser)
    assert "for outer k in Int32(0):Int32(9)  # k.py:4" in out
    assert "if Int32(0) < n  # k.py:6" in out
    assert "for outer k in Int32(0):(n - Int32(1))  # k.py:6" in out
    assert "k.py:8" not in out and "k.py:10" not in out  # range(0, typemin), range(0, 0): empty


def test_if_chains_use_elseif(jl_parser):
    cond = op(Op.LT, dt.bool_, var("x", dt.f32), c(0.0, dt.f32))
    inner = N.If(L(5), cond, [N.Assign(L(6), "x", c(1.0, dt.f32))],
                 [N.Assign(L(8), "x", c(2.0, dt.f32))])
    out = render_ok(kernel([N.If(L(4), cond, [], [inner])], {"x": dt.f32}), jl_parser)
    assert "elseif x < 0.0f0  # k.py:5" in out and out.count("end") == 3


def _continue_kernel(body):
    return kernel(body, {"x": dt.f32})


def test_parallel_continue_then_branch(jl_parser):
    cond = op(Op.LT, dt.bool_, var("x", dt.f32), c(0.0, dt.f32))
    orelse = [N.Assign(L(7), "x", c(1.0, dt.f32))]
    kir = _continue_kernel([N.If(L(4), cond, [N.Continue(L(5))], orelse), store(var("x", dt.f32))])
    before = kernel_str(kir)
    out = render_ok(kir, jl_parser)
    assert "if !(x < 0.0f0)  # k.py:4" in out and "continue" not in out
    assert kernel_str(kir) == before  # the rewrite does not touch its input


def test_parallel_continue_else_branch(jl_parser):
    cond = op(Op.LT, dt.bool_, var("x", dt.f32), c(0.0, dt.f32))
    kir = _continue_kernel([N.If(L(4), cond, [N.Assign(L(5), "x", c(1.0, dt.f32))],
                                 [N.Assign(L(7), "x", c(2.0, dt.f32)), N.Continue(L(8))]),
                            store(var("x", dt.f32))])
    out = render_ok(kir, jl_parser)
    lines = [ln.strip() for ln in out.splitlines()]
    i = lines.index("if x < 0.0f0  # k.py:4")
    assert lines[i + 1:i + 5] == ["x = 1.0f0  # k.py:5", "out[tk_t + 1] = x  # k.py:3", "else",
                                  "x = 2.0f0  # k.py:7"]


def test_parallel_continue_unconditional(jl_parser):
    kir = _continue_kernel([N.Assign(L(4), "x", c(1.0, dt.f32)), N.Continue(L(5)),
                            store(var("x", dt.f32))])
    out = render_ok(kir, jl_parser)
    assert "x = 1.0f0  # k.py:4" in out and "out[" not in out and "continue" not in out


def test_parallel_continue_fallback_loop(jl_parser):
    cond = op(Op.LT, dt.bool_, var("x", dt.f32), c(0.0, dt.f32))
    nested = N.If(L(4), cond, [N.If(L(5), cond, [N.Continue(L(6))], []),
                               N.Assign(L(7), "x", c(1.0, dt.f32))], [])
    out = render_ok(_continue_kernel([nested, store(var("x", dt.f32))]), jl_parser)
    assert "while true  # k.py:4" in out and out.count("break") == 2 and "continue" not in out


@pytest.mark.parametrize("make,what", [
    (lambda: op(Op.MIN, dt.bool_, c(1, dt.bool_), c(0, dt.bool_)), "MIN on bool"),
    (lambda: op(Op.FLOORDIV, dt.f32, var("x", dt.f32), var("x", dt.f32)), "FLOORDIV"),
    (lambda: op(Op.SQRT, dt.i32, c(4, dt.i32)), "SQRT on i32"),
])
def test_unspellable_ops_raise_render_error(make, what):
    kir = kernel([N.Assign(L(12), "x", make())], {"x": dt.f32})
    with pytest.raises(RenderError, match=what) as info:
        render_julia(kir)
    assert str(info.value).startswith("k.py:3:5: the Julia renderer cannot spell")


def test_float_min_max_let_the_number_win(jl_parser):
    kir = kernel([N.Assign(L(12), "x", op(Op.MIN, dt.f32, var("x", dt.f32), c(0.5, dt.f32)))],
                 {"x": dt.f32})
    assert "tk_minnum(x, 0.5f0)" in render_julia(kir)


def test_break_outside_a_loop_is_a_render_error():
    with pytest.raises(RenderError, match="break outside a loop"):
        render_julia(kernel([N.Break(L(4))]))


def test_store_of_another_dtype_and_multi_index_are_render_errors():
    with pytest.raises(RenderError, match="store of i32 into out"):
        render_julia(kernel([store(c(1, dt.i32))]))
    two = N.Store(L(), "out", (c(0, dt.i64), c(0, dt.i64)), c(1.0, dt.f32))
    with pytest.raises(RenderError, match="one flat i64 index"):
        render_julia(kernel([two]))
