"""Errors name Python constructs as a Python programmer would (not by their AST class), say what
to write instead, and recognize a kernel called from a kernel and a NumPy array passed where a
Tack array belongs."""
import inspect as pyinspect

import numpy as np
import pytest
import tack


def where(fn, snippet):
    """(line, col) of the first occurrence of `snippet` in fn's body."""
    lines, first = pyinspect.getsourcelines(fn)
    for k, text in enumerate(lines[1:], 1):
        col = text.find(snippet)
        if col >= 0:
            return first + k, col + 1
    raise AssertionError(snippet)


def k_listcomp(a):
    for i in range(a.shape[0]):
        v = [a[j] for j in range(3)]  # noqa: F841 - the comprehension is the point


def k_fstring(a):
    for i in range(a.shape[0]):
        print(f"{i}")


def k_lambda(a):
    for i in range(a.shape[0]):
        f = lambda v: v  # noqa: F841 - the lambda is the point


def k_try(a):
    for i in range(a.shape[0]):
        try:
            a[i] = 1.0
        except ValueError:
            pass


def k_generator(a):
    for i in range(a.shape[0]):
        g = (a[j] for j in range(2))  # noqa: F841 - the generator is the point


@tack.kernel
def fill_one(a):
    for i in range(a.shape[0]):
        a[i] = 1.0


def k_calls_kernel_statement(a):
    for i in range(a.shape[0]):
        fill_one(a)


def k_calls_kernel_value(a):
    for i in range(a.shape[0]):
        a[i] = fill_one(a)


@pytest.mark.parametrize("fn, snippet, words, hint", [
    (k_listcomp, "[a[j] for j in range(3)]", "a list comprehension is not supported",
     "tack.local_array"),
    (k_fstring, 'f"{i}"', "an f-string is not supported", 'print("x =", x)'),
    (k_lambda, "lambda v: v", "a lambda is not supported", "@tack.func"),
    (k_try, "try:", "try/except is not supported", "cannot raise or catch"),
    (k_generator, "(a[j] for j in range(2))", "a generator expression is not supported",
     "accumulator"),
    (k_calls_kernel_statement, "fill_one(a)", "a kernel cannot call another @tack.kernel",
     "@tack.func"),
    (k_calls_kernel_value, "fill_one(a)", "a kernel cannot call another @tack.kernel",
     "@tack.func"),
])
def test_constructs_are_named_in_python_terms(fn, snippet, words, hint):
    a = tack.zeros(4)
    with pytest.raises(tack.UnsupportedSyntaxError) as ei:
        tack.kernel(fn)(a)
    err = ei.value
    line, col = where(fn, snippet)
    assert (err.loc.line, err.loc.col) == (line, col)
    text = str(err)
    assert words in text and "hint: " in text and hint in text
    for ast_name in ("ListComp", "JoinedStr", "Lambda", "GeneratorExp", "Try", "ast."):
        assert ast_name not in text
    assert (a.numpy() == 0).all()


def test_a_numpy_array_argument_says_how_to_wrap_it():
    with pytest.raises(TypeError) as ei:
        fill_one(np.zeros(4, np.float32))
    text = str(ei.value)
    assert isinstance(ei.value, tack.TackError)
    assert "tack.array(x)" in text and "tack.from_dlpack(x)" in text


def test_a_list_argument_says_what_to_pass():
    with pytest.raises(TypeError, match=r"tack\.array\(\.\.\.\)"):
        fill_one([1.0, 2.0])
