"""matmul and batched_matmul on tensor cores (ops/matmul_mma.py: f16 and bf16 inputs, f32 with
precision="tf32"), on the simulator and a GPU: within the documented bound against float64
(testing/bounds.py: the f32 sums' gamma_k, 4 times it on a GPU, and the one rounding of a half
result) over shapes that take every edge path of the kernel — one element, K = 1, primes,
ragged K (a last slab of one), several tiles, the 16-byte copies and the element-wise ones,
batches, 1025 — and non-contiguous inputs; on the simulator, bit for bit the documented order
(each product exact, added in k order with one f32 rounding, the result rounded once); the
library kernels clean under tack.check; the harness's FAST tier on a GPU."""
import numpy as np
import pytest
import tack
import tack.testing
from tack import ops
from tack.ops import matmul_mma
from tack.testing.harness.tolerances import tolerance

from tests.kernels import mma as K
from tests.ops import refs
from tests.ops.tensor_matmul import DTYPES
from tests.ops.tensor_matmul import inputs as _inputs
from tests.ops.tensor_matmul import run as _run
from tests.ops.tensor_matmul import within_bound as _within_bound

pytestmark = pytest.mark.engines("sim", "cuda",
                                 reason="tensor-core kernels: the simulator and a GPU; the CPU "
                                        "engine refuses MMAs")
# (m, k, n): one element; K = 1 over two tiles each way; primes (every copy element-wise);
# k and n multiples of 8 (every copy 16 bytes) with a second column tile; a last slab of one;
# 1025 rows (nine row tiles); k below one copy
SHAPES = [(1, 1, 1), (130, 1, 129), (37, 53, 41), (64, 64, 136), (17, 33, 9), (1025, 7, 3),
          (5, 4, 2)]
BATCHED = [(3, 17, 9, 70), (2, 65, 33, 1), (2, 8, 40, 16)]


def _is_gpu(device) -> bool:
    return device.arch != "sim"


@pytest.mark.parametrize("m,k,n", SHAPES, ids=str)
@pytest.mark.parametrize("name", list(DTYPES))
def test_matmul_within_the_bound(device, name, m, k, n):
    a, b = _inputs((m, k), (k, n), name, m * 7 + k * 3 + n)
    got = _run(a, b, name)
    want = np.float32 if name == "tf32" else DTYPES[name]
    assert np.dtype(got.dtype.np) == np.dtype(want)
    _within_bound(got, a, b, name, _is_gpu(device))


@pytest.mark.parametrize("z,m,k,n", BATCHED, ids=str)
@pytest.mark.parametrize("name", list(DTYPES))
def test_batched_matmul_within_the_bound(device, name, z, m, k, n):
    a, b = _inputs((z, m, k), (z, k, n), name, z + m * k * n)
    _within_bound(_run(a, b, name), a, b, name, _is_gpu(device))


@pytest.mark.parametrize("name", ["bfloat16"])
def test_a_long_k(device, name):
    """k = 1025: 33 slabs of 32 through the two buffers, the last of one element."""
    a, b = _inputs((3, 1025), (1025, 5), name, 1025)
    _within_bound(_run(a, b, name), a, b, name, _is_gpu(device))


@pytest.mark.parametrize("name", list(DTYPES))
def test_noncontiguous_inputs(device, name):
    a, b = _inputs((33, 20), (20, 17), name, 5)
    at = np.asfortranarray(a)
    wide = np.zeros((20, 34), b.dtype)
    wide[:, ::2] = b
    got = _run(at, wide[:, ::2], name)
    _within_bound(got, a, b, name, _is_gpu(device))
    if not _is_gpu(device):  # the same inputs: the same bits
        assert np.array_equal(got.numpy().view(np.uint8), _run(a, b, name).numpy().view(np.uint8))


@pytest.mark.engines("sim",
                     reason="the documented order bit for bit: a GPU's tensor cores are held to "
                            "the bound only")
@pytest.mark.parametrize("shape", [(5, 37, 3), (2, 17, 40, 9), (2, 9, 24, 16)], ids=str)
@pytest.mark.parametrize("name", list(DTYPES))
def test_the_simulator_gives_the_documented_order(device, name, shape):
    """Bit for bit: for each element, d = 0 and d = round_f32(d + a[i, p] * b[p, j]) for p in
    order (exact rationals, tests/kernels/mma.py), TF32 operands rounded first, the result
    rounded once to its dtype: the zeros past the edges and the slabs change nothing."""
    *z, m, k, n = shape
    a, b = _inputs((*z, m, k), (*z, k, n), name, 3)
    got = _run(a, b, name).numpy().reshape(-1, m, n)
    ra, rb = (K.to_tf32(x) for x in (a, b)) if name == "tf32" else (a, b)
    for i, (ta, tb) in enumerate(zip(ra.reshape(-1, m, k), rb.reshape(-1, k, n))):
        want = K.reference_mma(ta, tb, np.zeros((m, n), np.float32)).astype(got.dtype)
        np.testing.assert_array_equal(got[i].view(np.uint8), want.view(np.uint8), f"batch {i}")


@pytest.mark.engines("sim", reason="on the simulator the bits do not tell which kernel ran (on a "
                     "GPU the tensor cores' do)")
@pytest.mark.parametrize("name", list(DTYPES))
def test_the_tensor_core_kernels_run(device, monkeypatch, name):
    """The simulator takes the MMA kernels for these inputs (the CUDA-core kernel gives the
    same bits there, so the bits alone do not tell)."""
    key = "tf32" if name == "tf32" else "half"
    calls = []
    kern, *stages = matmul_mma.KERNELS[key]
    monkeypatch.setitem(matmul_mma.KERNELS, key,
                        (lambda *args: calls.append(1) or kern(*args), *stages))
    a, b = _inputs((3, 4), (4, 5), name, 1)
    _run(a, b, name)
    assert calls == [1]
    ops.matmul(a.astype(np.float32), b.astype(np.float32))  # "ieee" f32: the CUDA-core kernel
    assert calls == [1]


@pytest.mark.engines("sim", reason="tack.check runs kernels on the simulator")
@pytest.mark.parametrize("m,k,n", [(37, 70, 20), (64, 96, 64)], ids=str)
@pytest.mark.parametrize("name", list(DTYPES))
def test_the_library_kernels_are_clean_under_check(device, name, m, k, n):
    """tack.check: no race on the shared tiles, every copy waited for before it is read, no
    buffer refilled while read, no uninitialized read, full warps at every collective: on the
    element-wise copies (37 × 70 × 20) and the 16-byte ones (64 × 96 × 64), over three slabs
    at least (a buffer refilled after its first use)."""
    a, b = _inputs((m, k), (k, n), name, 2)
    c = tack.zeros((m, n), tack.f32 if name == "tf32" else tack.array(a[:1]).dtype)
    kern, args = matmul_mma.launch(tack.array(a), tack.array(b), c, 1, m, k, n)
    report = tack.check(kern, *args).require_clean()
    _within_bound(tack.array(report.outputs["c"]), a, b, name, False)  # and it computed C


@pytest.mark.engines("cpu", "cuda",
                     reason="not sim: the FAST tier's 19 shapes take half a minute a dtype on the "
                            "simulator")
@pytest.mark.parametrize("name", list(DTYPES))
def test_through_the_harness(device, name):
    prec = "tf32" if name == "tf32" else "ieee"
    extra = {"tolerance_override": tolerance("tfloat32", op_class="reduction")} \
        if name == "tf32" else {}
    # TF32 products against float64 on the TF32-rounded operands: what the op promises to
    # multiply (docs/ops.md, "Precision"); on the unrounded ones, the rounding's own 2^-11 per
    # operand exceeds the table's tolerance wherever a sum cancels (on every engine)
    operand = refs.tf32_rounded if name == "tf32" else (lambda x: x)
    rec = tack.testing.test(lambda a, b: ops.matmul(a, b, precision=prec),
                            reference=lambda a, b: (operand(a).astype(np.float64)
                                                    @ operand(b).astype(np.float64)),
                            signature="(m,k),(k,n)->(m,n)",
                            dtypes=("float32",) if name == "tf32" else (name,),
                            op_class="reduction", baseline=False, records_dir=False,
                            name=f"matmul-{name}", **extra)
    assert rec.passed, rec.summary()


@pytest.mark.engines("sim",
                     reason="the documented order bit for bit: a GPU's tensor cores are held to "
                            "the bound only")
@pytest.mark.parametrize("name", list(DTYPES))
def test_the_simulator_gives_the_cpu_engines_bits(device, name):
    """The CPU engine's f32 fused multiply-add chain over k (on widened halves, or on operands
    rounded to TF32) rounded once is the documented order too: the same bits, at shapes that
    take the element-wise copies, the 16-byte ones, several slabs and tiles."""
    for m, k, n in [(37, 53, 41), (64, 64, 136), (3, 100, 5)]:
        a, b = _inputs((m, k), (k, n), name, k)
        got = _run(a, b, name).numpy()
        with tack.device("cpu"):
            want = _run(a, b, name).numpy()
        assert np.array_equal(got.view(np.uint8), want.view(np.uint8)), (m, k, n)


@pytest.mark.parametrize("name", list(DTYPES))
def test_special_values_stay_where_numpy_puts_them(device, name):
    """An infinity in the last column of k (the ragged slab) and a NaN: the padding zeros
    multiply only each other, so exactly the elements NumPy makes infinite or NaN are, and
    the others stay finite."""
    a, b = _inputs((5, 37), (37, 9), name, 4)
    a[2, 36], a[4, 0] = np.inf, np.nan
    b[36, 3] = 0.0  # inf * 0: NaN in C[2, 3]
    got = _run(a, b, name).numpy().astype(np.float64)
    with np.errstate(invalid="ignore"):  # inf * 0
        want = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(np.isinf(got), np.isinf(want))
    assert np.isnan(want[2, 3]) and np.isinf(want[2]).sum() == 8 and np.isnan(want[4]).all()
