"""The shared corpus's float kernels with their f32 arrays in f16 and in bf16: the CPU engine and
the simulator give the same bits (docs/language.md, "Half precision": one rounding rule, decided
in the IR, on every engine). The references of tests/kernels/corpus.py are f32/f64 computations,
so this compares engines, not values; tests/exec/test_half.py compares each op with NumPy. A
kernel calling a transcendental may differ by one half ulp: the CPU's and NumPy's f32 math
libraries may differ in an f32 last bit, which shows next to a half rounding boundary."""
import inspect
import re

import ml_dtypes
import numpy as np
import pytest
import tack

from tests.kernels.corpus import CASES, written

HALVES = {"f16": np.float16, "bf16": ml_dtypes.bfloat16}
pytestmark = pytest.mark.filterwarnings("ignore:.*encountered:RuntimeWarning")


def _float_cases():
    """Cases whose `make` gives at least one NumPy f32 array (at their smallest two sizes)."""
    rng = np.random.default_rng(0)
    out = []
    for c in CASES:
        made = c.make(rng, min(c.sizes))
        if any(isinstance(a, np.ndarray) and a.dtype == np.float32 for a in made):
            out.append(c)
    return out


FLOAT_CASES = _float_cases()
_MATH = re.compile(r"\b(exp2?|log(2|10)?|sin|cos|tan|asin|acos|atan2?|sinh|cosh|tanh|pow)\(|\*\*")


def _run(case, n: int, half, engine: str) -> list[np.ndarray]:
    made = case.make(np.random.default_rng(1), n)
    args = [tack.array(a.astype(half) if a.dtype == np.float32 else a)
            if isinstance(a, np.ndarray) else a for a in made]
    with tack.device(engine):
        args = [a.to(tack.device(engine)) if isinstance(a, tack.Array) else a for a in args]
        case.kernel(*args)
    keys = [k for k, a in enumerate(made) if isinstance(a, np.ndarray)]
    return [written(args, k) for k in keys]


def test_the_corpus_has_float_kernels():
    assert len(FLOAT_CASES) >= 10, [c.name for c in FLOAT_CASES]


@pytest.mark.parametrize("half", list(HALVES))
@pytest.mark.parametrize("case", FLOAT_CASES, ids=lambda c: c.name)
def test_corpus_in_half_same_bits_on_cpu_and_sim(case, half):
    for n in sorted(case.sizes)[:2]:
        try:
            cpu = _run(case, n, HALVES[half], "cpu")
        except tack.TackTypeError as exc:  # an atomic on a float array: refused everywhere
            assert "atomic update of a" in str(exc)
            pytest.skip(f"not run: {case.name} updates a float array atomically ({half})")
        sim = _run(case, n, HALVES[half], "sim")
        for k, (a, b) in enumerate(zip(cpu, sim)):
            assert a.dtype == b.dtype and a.shape == b.shape
            same = (_bytes(a) == _bytes(b)).all(axis=1)
            if a.dtype.kind == "f" or a.dtype == np.dtype(ml_dtypes.bfloat16):
                same |= np.isnan(a.astype(np.float64).reshape(-1)) & \
                    np.isnan(b.astype(np.float64).reshape(-1))
            if _MATH.search(inspect.getsource(case.kernel.fn)) and a.dtype.kind in "fV":
                wa, wb = a.astype(np.float64).reshape(-1), b.astype(np.float64).reshape(-1)
                same |= np.abs(wa - wb) <= np.spacing(np.abs(a).astype(a.dtype)).astype(
                    np.float64).reshape(-1)
            assert same.all(), (case.name, n, k, a, b)


def _bytes(a: np.ndarray) -> np.ndarray:
    """One row of bytes per element."""
    return np.ascontiguousarray(a).reshape(-1).view(np.uint8).reshape(a.size, a.dtype.itemsize)
