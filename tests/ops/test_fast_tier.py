"""Every op through `tack.testing.test` on its FAST tier (tile boundaries, size-1 dimensions,
primes, extreme aspect ratios, strided/transposed/reversed inputs; float32 and float64) against
the float64 references of tests/ops/refs.py, on the device under test. The other files here add
tighter tolerances, special values, argument errors, and attention (whose FAST tier would
take minutes on the CPU, and whose scores of the tier's large inputs, up to 1e12, make the
softmax one-hot on a rounding difference)."""
import pytest
import tack.testing
from tack import ops

from tests.ops import refs

CASES = {
    "add": (lambda x, y: ops.add(x, y, alpha=0.5), lambda x, y: refs.add(x, y, 0.5),
            "(n),(n)->(n)", "elementwise"),
    "relu": (ops.relu, refs.relu, "(n)->(n)", "elementwise"),
    "gelu_tanh": (ops.gelu, refs.gelu_tanh, "(n)->(n)", "transcendental"),
    "gelu_erf": (lambda x: ops.gelu(x, approximate="none"), refs.gelu_erf, "(n)->(n)",
                 "transcendental"),
    "silu": (ops.silu, refs.silu, "(n)->(n)", "transcendental"),
    "softmax": (ops.softmax, lambda x: refs.softmax(x, -1), "(m,n)->(m,n)", "transcendental"),
    "softmax_axis0": (lambda x: ops.softmax(x, axis=0), lambda x: refs.softmax(x, 0),
                      "(m,n)->(m,n)", "transcendental"),
    "log_softmax": (ops.log_softmax, lambda x: refs.log_softmax(x, -1), "(m,n)->(m,n)",
                    "transcendental"),
    "layer_norm": (lambda x, w, b: ops.layer_norm(x, w, b, return_stats=True),
                   lambda x, w, b: refs.layer_norm(x, w, b, 1e-5),
                   "(m,n),(n),(n)->(m,n),(m),(m)", "reduction"),
    "rms_norm": (ops.rms_norm, lambda x, w: refs.rms_norm(x, w, 1e-6), "(m,n),(n)->(m,n)",
                 "reduction"),
    "matmul": (ops.matmul, refs.matmul, "(m,k),(k,n)->(m,n)", "reduction"),
    "batched_matmul": (ops.batched_matmul, refs.matmul, "(z,m,k),(z,k,n)->(z,m,n)",
                       "reduction"),
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.engines("cpu", "cuda",
                     reason="not sim: the FAST tier of every op takes minutes on the simulator; "
                            "tests/ops/test_workgroup_paths.py runs its workgroup paths")
def test_fast_tier(device, name):
    subject, reference, signature, op_class = CASES[name]
    # A product's k-long sum of the tier's large values (up to 1e6) cancels: one more stage of
    # rounding (the tolerance table's fused-op rule) covers float32's error relative to |C|.
    fused = ("matmul",) if "matmul" in name else ()
    rec = tack.testing.test(subject, reference=reference, signature=signature,
                            dtypes=("float32", "float64"), name=name, op_class=op_class,
                            fused_ops=fused, baseline=False, records_dir=False, progress=False)
    assert rec.passed, rec.summary()
