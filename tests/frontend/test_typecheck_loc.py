"""Typechecker errors keep their source position as data: `.loc` names the culprit's span."""
import inspect as pyinspect
import os

import numpy as np
import pytest
import tack

HERE = os.path.abspath(__file__)


def k_mixes(x, out):
    for i in range(x.shape[0]):
        out[i] = x[i] + tack.u64(1)


def k_dead_loop_var(x, out):
    for i in range(x.shape[0]):
        for j in range(3):
            out[i] = x[i]
        out[i] = j


def k_mask_condition(x, out):
    for i in range(x.shape[0]):
        v = [x[i], x[i]]
        if v > 0:
            out[i] = 1.0


def k_vector_value(x, out):
    for i in range(x.shape[0]):
        out[i] = [x[i], x[i]]


def k_unknown_method(x, out):
    for i in range(x.shape[0]):
        v = [x[i], x[i]]
        out[i] = v.frobnicate()


CASES = [
    (k_mixes, tack.TackTypeError, "x[i] + tack.u64(1)", "mixes"),
    (k_dead_loop_var, tack.TackNameError, "out[i] = j", "read after its loop"),
    (k_mask_condition, tack.UnsupportedSyntaxError, "v > 0", "vector mask used as a condition"),
    (k_vector_value, tack.UnsupportedSyntaxError, "out[i] = [x[i], x[i]]", "vector or matrix where"),
    (k_unknown_method, tack.UnsupportedSyntaxError, "v.frobnicate()", "unknown vector method"),
]


@pytest.mark.parametrize("fn, cls, snippet, words", CASES, ids=[c[0].__name__ for c in CASES])
def test_typecheck_error_carries_loc(fn, cls, snippet, words):
    lines, first = pyinspect.getsourcelines(fn)
    k = next(k for k, text in enumerate(lines) if k and snippet in text)
    line, col = first + k, lines[k].find(snippet) + 1
    x, out = tack.array(np.ones(4, np.int32 if fn is k_mixes else np.float32)), tack.zeros(4)
    with pytest.raises(cls, match=words) as info:
        tack.kernel(fn)(x, out)
    loc = info.value.loc
    assert loc is not None and (loc.file, loc.line) == (HERE, line)
    assert col <= loc.col and loc.end_col <= col + len(snippet)  # inside the culprit's line
    assert f"{HERE}:{loc.line}:{loc.col}" in str(info.value)
