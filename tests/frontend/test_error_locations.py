"""Errors keep their source position as data: `.loc` (file, line, col, end) beside the text; a
foreign exception inside a parser visitor comes out wrapped once, at the innermost node."""
import inspect as pyinspect
import os

import numpy as np
import pytest
import tack
from tack.errors import TackError
from tack.frontend.parser import InternalCompilerError, Parser

HERE = os.path.abspath(__file__)


def where(fn, snippet):
    """(line, col) in this file of the first occurrence of `snippet` in fn's body."""
    lines, first = pyinspect.getsourcelines(fn)
    for k, text in enumerate(lines[1:], 1):
        col = text.find(snippet)
        if col >= 0:
            return first + k, col + 1
    raise AssertionError(snippet)


def arrays(n=4):
    return tack.array(np.arange(n, dtype=np.float32)), tack.zeros(n)


def raised(fn, *args):
    with pytest.raises(TackError) as ei:
        tack.kernel(fn)(*args)
    return ei.value


def assert_at(err, fn, snippet, length=None):
    """`err.loc` is where `snippet` starts in `fn` (and spans it, when `length` is given)."""
    line, col = where(fn, snippet)
    loc = err.loc
    assert loc is not None, str(err)
    assert (loc.file, loc.line, loc.col) == (HERE, line, col), (loc, str(err))
    assert f"{HERE}:{line}:{col}" in str(err)
    if length is not None:
        assert (loc.end_line, loc.end_col) == (line, col + length), loc


# -- .loc on the errors the parser raises on purpose ----------------------------------------------
def k_dict(x, out):
    for i in range(x.shape[0]):
        d = {1: 2}
        out[i] = x[i] + d


def k_unknown(x, out):
    for i in range(x.shape[0]):
        out[i] = x[i] * nowhere  # noqa: F821


def k_bound(x, out):
    for i in range(int(x.shape[0] / 2)):
        out[i] = x[i]


def k_string_operand(x, out):
    for i in range(x.shape[0]):
        out[i] = x[i] + (1.0 * "s")


def k_no_such_intrinsic(x, out):
    for i in range(x.shape[0]):
        out[i] = tack.no_such_intrinsic(x[i])


@pytest.mark.parametrize("fn,cls,snippet,length", [
    (k_dict, tack.UnsupportedSyntaxError, "{1: 2}", 6),
    (k_unknown, NameError, "nowhere", 7),
    (k_bound, tack.UnsupportedSyntaxError, "int(x.shape[0] / 2)", 19),
    (k_string_operand, tack.UnsupportedSyntaxError, '"s"', 3),
    (k_no_such_intrinsic, tack.UnsupportedSyntaxError, "tack.no_such_intrinsic", 22),
], ids=lambda v: getattr(v, "__name__", None))
def test_parser_errors_carry_their_loc(fn, cls, snippet, length):
    err = raised(fn, *arrays())
    assert isinstance(err, cls) and not isinstance(err, InternalCompilerError)
    assert err.__cause__ is None
    assert_at(err, fn, snippet, length)


@tack.device_class
class Plain:  # no __tack_iterate__
    def __init__(self, out):
        self.out = out
        self.n = 4


def k_iterate_plain(p):
    for c in p:
        p.out[c] = 1.0


def k_unknown_attr(p):
    for i in range(p.n):
        p.out[i] = p.missing


def test_device_class_errors_carry_their_loc():
    p = Plain(tack.zeros(4))
    err = raised(k_iterate_plain, p)
    assert isinstance(err, TypeError) and "declares no __tack_iterate__" in str(err)
    assert_at(err, k_iterate_plain, "p:", 1)
    err = raised(k_unknown_attr, p)
    assert isinstance(err, ValueError) and "p.missing" in str(err)
    assert_at(err, k_unknown_attr, "p.missing", 9)


@tack.func
def _bad_helper(v):
    return v + {}


def k_calls_bad_helper(x, out):
    for i in range(x.shape[0]):
        out[i] = _bad_helper(x[i])


def test_error_in_a_device_function_points_into_it():
    err = raised(k_calls_bad_helper, *arrays())
    assert isinstance(err, tack.UnsupportedSyntaxError)
    assert "Device function '_bad_helper' (inlined into kernel 'k_calls_bad_helper')" in str(err)
    assert_at(err, _bad_helper.fn, "{}", 2)


# -- foreign exceptions: wrapped once, at the innermost node --------------------------------------
def _boom(self, node):
    raise KeyError("boom")


def k_sum(x, out):
    for i in range(x.shape[0]):
        out[i] = -(x[i] + 1.0)


def k_augment(x, out):
    for i in range(x.shape[0]):
        t = x[i]
        t += 1.0
        out[i] = t


@tack.func
def _compare(v):
    return 1.0 if v < 2.0 else 0.0


def k_calls_compare(x, out):
    for i in range(x.shape[0]):
        out[i] = _compare(x[i])


def wrapped(fn, monkeypatch, visitor, *args):
    monkeypatch.setattr(Parser, visitor, _boom)
    with pytest.raises(InternalCompilerError) as ei:
        tack.kernel(fn)(*(args or arrays()))
    err = ei.value
    assert isinstance(err, TackError) and isinstance(err, RuntimeError)
    assert type(err.__cause__) is KeyError and err.__cause__.args == ("boom",)
    assert err.__cause__.__cause__ is None  # wrapped once: no second layer
    assert "internal error" in str(err) and "KeyError: 'boom'" in str(err)
    assert "bug in tack" in str(err)
    return err


def test_foreign_exception_in_an_expression_is_wrapped_at_it(monkeypatch):
    err = wrapped(k_sum, monkeypatch, "expr_BinOp")
    assert_at(err, k_sum, "x[i] + 1.0", 10)  # the BinOp, not the UnaryOp or the Assign around it
    assert "Kernel 'k_sum'" in str(err) and "BinOp" in str(err)


def test_foreign_exception_in_a_statement_is_wrapped_at_it(monkeypatch):
    err = wrapped(k_augment, monkeypatch, "visit_AugAssign")
    assert_at(err, k_augment, "t += 1.0", 8)


def test_foreign_exception_in_a_device_function_is_wrapped_there(monkeypatch):
    err = wrapped(k_calls_compare, monkeypatch, "expr_Compare")
    assert_at(err, _compare.fn, "v < 2.0", 7)
    assert "Device function '_compare' (inlined into kernel 'k_calls_compare')" in str(err)


def test_foreign_exception_outside_any_node_is_reported_at_the_def(monkeypatch):
    monkeypatch.setattr(Parser, "_ir_params", lambda self: {}["boom"])
    with pytest.raises(InternalCompilerError) as ei:
        tack.kernel(k_sum)(*arrays())
    line, _ = where(k_sum, "for i")
    assert ei.value.loc.line == line - 1 and type(ei.value.__cause__) is KeyError


def test_tack_errors_pass_through_untouched():
    # An error raised on purpose deep inside expressions keeps its class, text and position.
    err = raised(k_string_operand, *arrays())
    assert type(err) is tack.UnsupportedSyntaxError and err.__context__ is None
