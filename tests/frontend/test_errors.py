"""Tier 1: rejections name class, kernel, file:line:col, show the line and a caret; before launch."""
import inspect as pyinspect
import os

import numpy as np
import pytest
import tack
from tack.errors import TackError

HERE = os.path.abspath(__file__)


def where(fn, snippet, nth=0):
    """(line, col) in this file of the nth occurrence of `snippet` inside fn's source."""
    lines, first = pyinspect.getsourcelines(fn)
    seen = 0
    for k, text in enumerate(lines):
        if k == 0 and not snippet.startswith("def"):
            continue  # the def line names the kernel, which often contains the snippet
        col = text.find(snippet)
        if col >= 0:
            if seen == nth:
                return first + k, col + 1
            seen += 1
    raise AssertionError(snippet)


def arrays(n=4):
    return tack.array(np.arange(n, dtype=np.float32)), tack.zeros(n)


def check(exc_info, cls, fn, snippet, words, nth=0):
    err = exc_info.value
    assert isinstance(err, cls) and isinstance(err, TackError)
    msg = str(err)
    line, col = where(fn, snippet, nth)
    assert f"{HERE}:{line}:{col}" in msg, msg
    assert f"line {line}, column {col}" in msg, msg
    for w in words:
        assert w in msg, msg
    assert "^" in msg
    assert "/tack/frontend" not in msg and "/tack/passes" not in msg


def k_assert(x, out):
    for i in range(x.shape[0]):
        assert x[i] > 0
        out[i] = x[i]


def k_dict(x, out):
    for i in range(x.shape[0]):
        d = {1: 2}  # noqa: F841 - the unsupported dict display is the point
        out[i] = x[i]


def k_noloop(x, out):
    out[0] = 1.0


def k_two_loops(x, out):
    for i in range(x.shape[0]):
        out[i] = x[i]
    for j in range(x.shape[0]):
        out[j] = x[j]


def k_store_before(x, out):
    out[0] = 1.0
    for i in range(x.shape[0]):
        out[i] = x[i]


def k_break(x, out):
    for i in range(x.shape[0]):
        break


def k_unknown_name(x, out):
    for i in range(x.shape[0]):
        out[i] = x[i] * undefined_scale  # noqa: F821


def k_captured_float(x, out):
    for i in range(x.shape[0]):
        out[i] = x[i] * CAPTURED


CAPTURED = 2.5


def k_keyword_call(x, out):
    for i in range(x.shape[0]):
        out[i] = max(x[i], b=2.0)


def k_loop_var_after(x, out):
    for i in range(x.shape[0]):
        t = 0.0
        for k in range(3):
            t += k
        out[i] = t + k


def k_range_bound(x, out):
    for i in range(int(x.shape[0] / 2)):
        out[i] = x[i]


def k_float_index(x, out):
    for i in range(x.shape[0]):
        out[i] = x[x[i]]


def k_u64_mix(a, out):
    for i in range(a.shape[0]):
        out[i] = a[i] + 1


def k_wrong_rank(a, out):
    for i in range(a.shape[0]):
        out[i] = a[i, 0, 1]


def k_return(x, out):
    for i in range(x.shape[0]):
        return


def k_slice(x, out):
    for i in range(x.shape[0]):
        out[i] = x[1:3]


def k_string(x, out):
    for i in range(x.shape[0]):
        out[i] = "a"


def k_list(x, out):
    for i in range(x.shape[0]):
        for v in [1, 2]:
            out[i] = v


UNSUPPORTED = [
    (k_assert, "assert x[i] > 0", ["`assert` is not supported"]),
    (k_dict, "{1: 2}", ["a dict is not supported", "@tack.device_class"]),
    (k_noloop, "def k_noloop", ["has no parallel loop"]),
    (k_two_loops, "for j in", ["outside the parallel loop"]),
    (k_store_before, "out[0] = 1.0", ["store", "outside the parallel loop"]),
    (k_break, "break", ["break out of the parallel loop"]),
    (k_keyword_call, "max(x[i], b=2.0)", ["keyword"]),
    (k_range_bound, "int(x.shape[0] / 2)", ["Cannot resolve loop range expression"]),
    (k_return, "return", ["return"]),
    (k_slice, "1:3", ["slice"]),
    (k_string, '"a"', ["constant of type str"]),
    (k_list, "[1, 2]", ["range(...)"]),
]


@pytest.mark.parametrize("fn,snippet,words", UNSUPPORTED, ids=[u[0].__name__ for u in UNSUPPORTED])
def test_unsupported_syntax(fn, snippet, words):
    k = tack.kernel(fn)
    x, out = arrays()
    with pytest.raises(tack.UnsupportedSyntaxError) as ei:
        k(x, out)
    assert isinstance(ei.value, NotImplementedError)
    check(ei, tack.UnsupportedSyntaxError, fn, snippet, [f"Kernel '{fn.__name__}'"] + words)
    np.testing.assert_array_equal(out.numpy(), np.zeros(4))


@pytest.mark.parametrize("fn,snippet", [(k_unknown_name, "undefined_scale"),
                                        (k_captured_float, "CAPTURED")])
def test_free_names_are_name_errors(fn, snippet):
    x, out = arrays()
    with pytest.raises(NameError) as ei:
        tack.kernel(fn)(x, out)
    check(ei, NameError, fn, snippet, ["tack.constant"])


def test_loop_variable_after_loop():
    x, out = arrays()
    with pytest.raises(NameError) as ei:
        tack.kernel(k_loop_var_after)(x, out)
    check(ei, NameError, k_loop_var_after, "k\n".rstrip(), ["read after its loop"], nth=2)


def test_float_index_is_type_error():
    x, out = arrays()
    with pytest.raises(TypeError) as ei:
        tack.kernel(k_float_index)(x, out)
    check(ei, TypeError, k_float_index, "x[i]]", ["index needs an integer"])


def test_u64_with_signed_rejected():
    a = tack.array(np.arange(4, dtype=np.uint64))
    out = tack.zeros(4, tack.u64)
    with pytest.raises(TypeError) as ei:
        tack.kernel(k_u64_mix)(a, out)
    check(ei, TypeError, k_u64_mix, "a[i] + 1", ["tack.u64(1)"])


def test_wrong_index_count():
    a = tack.zeros((4, 4))
    out = tack.zeros(4)
    with pytest.raises(TypeError) as ei:
        tack.kernel(k_wrong_rank)(a, out)
    check(ei, TypeError, k_wrong_rank, "a[i, 0, 1]", ["3 indices", "2-dimensional"])


def test_argument_errors_before_launch():
    x, out = arrays()
    good = tack.kernel(_copy)
    with pytest.raises(TypeError, match="Kernel '_copy' expects 2 arguments, got 1"):
        good(x)
    with pytest.raises(TypeError, match="Unsupported argument type for parameter 'out'"):
        good(x, "nope")
    with pytest.raises(TypeError, match="Kernel '_copy' has no parameter 'y'"):
        good(x, y=out)
    with pytest.raises(TypeError, match="more than one argument for parameter 'x'"):
        good(x, x=out)
    with pytest.raises(TypeError, match="no argument for 'out'"):
        good(x=x)
    with pytest.raises(TypeError, match="outside"):
        good(x, 2 ** 70)
    np.testing.assert_array_equal(out.numpy(), np.zeros(4))


def _copy(x, out):
    for i in range(x.shape[0]):
        out[i] = x[i]


def test_unreadable_source():
    ns = {}
    exec("def f(x):\n    for i in range(1):\n        x[i] = 1\n", ns)  # noqa: S102 - no source file
    with pytest.raises(RuntimeError, match="Cannot read the source"):
        tack.kernel(ns["f"])


def test_device_and_option_errors_change_nothing():
    tack.set_default_device("cpu")
    with pytest.raises(ValueError, match="Unknown architecture: 'vulkan'"):
        tack.set_default_device("vulkan")
    with pytest.raises(ValueError, match="does not accept the option"):
        tack.set_default_device("cpu", workers=3)
    with pytest.raises(ValueError, match="num_threads"):
        tack.set_default_device("cpu", num_threads=0)
    from tack.devices import default_device

    assert default_device().arch == "cpu" and not default_device().options


def test_array_errors():
    with pytest.raises(TypeError, match="complex64"):
        tack.array(np.zeros(3, np.complex64))
    with pytest.raises(TypeError):
        tack.array(np.array([object()]))
    with pytest.raises(TypeError):
        tack.empty(3, dtype=np.complex64)
    a = tack.array(np.arange(4, dtype=np.float32))
    with pytest.raises(ValueError, match=r"Shape mismatch: array is \(4,\), got \(3,\)"):
        tack.copyto(a, np.zeros(3))
    np.testing.assert_array_equal(a.numpy(), np.arange(4))
