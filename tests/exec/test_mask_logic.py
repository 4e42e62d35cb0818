"""`and`, `or`, `not` and chained comparisons on vector masks, component by
component (docs/language.md, "Vectors and matrices")."""
import numpy as np
import pytest
import tack


@tack.kernel
def masks(vf, out):
    for i in range(vf.shape[0]):
        p = vf[i]
        m = -1.0 <= p <= 1.0
        out[i, 0] = all(m)
        out[i, 1] = any(not (p > 0.0))
        out[i, 2] = all((p > -5.0) and (p < 5.0) or p == 9.0)
        out[i, 3] = tack.select(m, p, 0.0).sum()
        out[i, 4] = (p > 0.0 and i > 0).sum()  # a scalar operand is repeated


@tack.kernel
def mask_condition(vf, out):
    for i in range(vf.shape[0]):
        if vf[i] > 0.0 and vf[i] < 1.0:
            out[i] = 1.0


def test_mask_and_or_not_chained(engine):
    vf = tack.array(np.array([[0.5, -0.5, 1.0], [2.0, 9.0, 0.0]], np.float32), dtype=tack.vec3)
    out = tack.zeros((2, 5), tack.f32)
    masks(vf, out)
    assert out.numpy().tolist() == [[1, 1, 1, 1.0, 0], [0, 1, 1, 0.0, 2]]


def test_mask_as_condition_still_names_any_all():
    vf = tack.array(np.zeros((2, 3), np.float32), dtype=tack.vec3)
    with pytest.raises(tack.UnsupportedSyntaxError, match=r"a vector mask used as a condition") \
            as e:
        mask_condition(vf, tack.zeros(2, tack.f32))
    assert "hint: reduce it with any(mask) or all(mask)" in str(e.value)
    assert e.value.loc.source_line() == "        if vf[i] > 0.0 and vf[i] < 1.0:"
