"""Tuple unpacking of a vector (`x, y = v`) or of a matrix's rows, the value
computed once; a width that does not match is a TypeError at the value (docs/language.md,
"Vectors and matrices")."""
import numpy as np
import pytest
import tack


@tack.kernel
def unpack(vf, out):
    for i in range(vf.shape[0]):
        x, y, z = vf[i]
        m = tack.Matrix([[1.0, 2.0], [3.0, 4.0]])
        r0, r1 = m
        a, b = [0.1, 0.2]
        y, x = [x, y]  # a swap through a list: the whole right side first
        out[i, 0] = x + 10.0 * y + 100.0 * z
        out[i, 1] = r1[0] + r0[1]
        out[i, 2] = a + b


@tack.kernel
def too_few(vf, out):
    for i in range(vf.shape[0]):
        x, y = vf[i]
        out[i] = x + y


def test_tuple_unpacking_of_a_vector(engine):
    vf = tack.array(np.array([[1, 2, 3], [4, 5, 6]], np.float64), dtype=tack.vector(3, tack.f64))
    out = tack.zeros((2, 3), tack.f64)
    unpack(vf, out)
    assert out.numpy().tolist() == [[2 + 10 * 1 + 300, 5.0, 0.1 + 0.2],
                                    [5 + 10 * 4 + 600, 5.0, 0.1 + 0.2]]


def test_unpacking_width_mismatch():
    vf = tack.array(np.zeros((2, 3), np.float32), dtype=tack.vec3)
    with pytest.raises(TypeError, match=r"Kernel 'too_few': unpacking a tack.vector\(3\) \(3 "
                                        r"components\) into 2 names") as e:
        too_few(vf, tack.zeros(2, tack.f32))
    assert e.value.loc.source_line() == "        x, y = vf[i]"
    assert (e.value.loc.col, e.value.loc.end_col) == (16, 21)
