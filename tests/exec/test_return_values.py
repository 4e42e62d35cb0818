"""Kernel return values (docs/language.md, "Kernels and calls"): a final `return expr` with a
return annotation."""
import numpy as np
import pytest
import tack

from tests.kernels.language import mean


@tack.kernel
def count_positive(x, c) -> int:
    for i in range(x.shape[0]):
        if x[i] > 0:
            tack.atomic_add(c, 0, 1)
    return c[0]


@tack.kernel
def no_annotation(x):
    for i in range(x.shape[0]):
        x[i] = 0.0
    return 1.0


@tack.kernel
def reads_loop_local(x) -> float:
    for i in range(x.shape[0]):
        t = x[i]
    return t


@pytest.mark.parametrize("n", [1, 7, 1025])
def test_return_values(engine, n):
    h = np.random.default_rng(n).normal(size=n)
    got = mean(tack.array(h), tack.zeros(1, tack.f64))
    assert isinstance(got, float)
    assert got == pytest.approx(h.mean(), rel=1e-12, abs=1e-12)
    c = count_positive(tack.array(h), tack.zeros(1, tack.i32))
    assert isinstance(c, int) and c == int((h > 0).sum())


def test_return_rejections():
    with pytest.raises(tack.UnsupportedSyntaxError, match="return annotation"):
        no_annotation(tack.zeros(2))
    with pytest.raises(NameError, match="'t'"):
        reads_loop_local(tack.zeros(2))
