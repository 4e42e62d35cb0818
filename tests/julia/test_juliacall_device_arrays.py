"""tack.Arrays on real Julia GPU backends through juliacall: Julia >= 1.10 with KernelAbstractions
and the backend's package (CUDA.jl, Metal.jl, AMDGPU.jl, oneAPI.jl) and a device. Each backend
that is missing is skipped, saying why ("not run: ..."); nothing where Tack was built could run
them (docs/julia.md). Run alone (`pytest -m julia tests/julia/test_juliacall_device_arrays.py`):
in a session that also runs the Julia 1.5.3 tier, the engine's Julia is that tier's."""
import numpy as np
import pytest
import tack

from tests.julia.device_sample import SAMPLE, axpy
from tests.julia.extra_kernels import EXTRA_CASES
from tests.kernels.corpus import CASES, WORKGROUP_CASES, assert_matches, run_case

pytestmark = pytest.mark.julia


@pytest.fixture(params=["cuda", "metal", "hip", "level_zero"])
def real_gpu(request, julia_engine_available):
    dev = tack.device(request.param, engine="julia")
    try:
        dev.engine.storage()  # loads the backend's package, or says what is missing
    except RuntimeError as exc:
        pytest.skip(f"not run: {exc}")
    tack.set_default_device(dev)
    return dev


@pytest.mark.parametrize("case", [c for c in CASES + WORKGROUP_CASES + EXTRA_CASES
                                  if c.name in SAMPLE],
                         ids=lambda c: c.name)
def test_case_on_a_gpu_backend(real_gpu, case):
    try:
        actual, expected = run_case(case, case.sizes[0])
    except TypeError as exc:  # Metal and oneAPI refuse f64 kernels before rendering
        if real_gpu.supports_f64 or "tack.f64" not in str(exc):
            raise
        pytest.skip(f"not run: {exc}")
    assert_matches(case, actual, expected)


def test_arrays_stay_on_the_gpu(real_gpu, monkeypatch):
    x, y = tack.array(np.arange(1 << 16, dtype=np.float32)), tack.zeros(1 << 16)
    store = real_gpu.engine.storage()
    seen = []
    for name in ("tk_upload!", "tk_download!"):
        fn = store.fn[name]
        monkeypatch.setitem(store.fn, name, lambda *a, _f=fn, _n=name: (seen.append(_n), _f(*a)))
    for _ in range(3):
        axpy(2.0, x, y)
    assert seen == []
    np.testing.assert_array_equal(y.numpy(), 6 * np.arange(1 << 16, dtype=np.float32))
    assert seen == ["tk_download!"] and y[5] == 30.0
