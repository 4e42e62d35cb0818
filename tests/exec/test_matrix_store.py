"""Matrix element stores at a runtime index (`m[k, 0] = x`, `a[i][k, 1] *= 2`),
a local and an array element; an index outside the matrix writes nothing (docs/language.md,
"Vectors and matrices")."""
import numpy as np
import tack


@tack.kernel
def runtime_matrix_stores(a, ks, out):
    for i in range(a.shape[0]):
        m = tack.Matrix([[1.0, 2.0], [3.0, 4.0]])
        k = ks[i]
        m[k, 0] = 9.0
        a[i][k, 1] *= 2.0
        out[i] = m[0, 0] + m[1, 0] * 10.0


def test_matrix_element_store_at_runtime_index(engine):
    a0 = np.arange(12, dtype=np.float32).reshape(3, 2, 2)
    a = tack.array(a0, dtype=tack.matrix(2, 2, tack.f32))
    out = tack.zeros(3, tack.f32)
    runtime_matrix_stores(a, tack.array(np.array([0, 1, 5], np.int32)), out)
    assert out.numpy().tolist() == [39.0, 91.0, 31.0]  # k = 5: nothing written
    want = a0.copy()
    want[0, 0, 1] *= 2
    want[1, 1, 1] *= 2
    np.testing.assert_array_equal(a.numpy(), want)
