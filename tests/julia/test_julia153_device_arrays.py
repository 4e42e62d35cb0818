"""tack.Arrays on a Julia GPU device, executed on Julia 1.5.3: the engine's "cuda" backend is a
stand-in GPU backend (below) whose memory is separate Julia arrays, and whose kernels run with
KernelAbstractions' CPU semantics (Tack's stand-in). So `tk_alloc`, `tk_upload!`, `tk_download!`,
`tk_typed` views and `launch_resident!` (julia/src/TackRuntime.jl) run as they would on CUDA,
and the whole corpus runs on device-resident arrays. Not run: any real GPU backend."""
import os

import numpy as np
import pytest
import tack
from tack.runtime.julia import engine as rj

from tests.julia.device_sample import SAMPLE, axpy
from tests.julia.extra_kernels import EXTRA_CASES
from tests.kernels.corpus import CASES, WORKGROUP_CASES, assert_matches, run_case

pytestmark = pytest.mark.julia

# A backend of its own type (so nothing takes KA's CPU paths for it): `allocate` gives fresh
# Julia arrays, launches run the kernel as KA's CPU backend would, and it counts both.
STANDIN_GPU = """
struct TkStandinGPU <: KernelAbstractions.Backend end
const TK_STANDIN_GPU = Dict(:allocs => 0, :launches => 0, :syncs => 0)
KernelAbstractions.isgpu(::TkStandinGPU) = false
function KernelAbstractions.allocate(::TkStandinGPU, ::Type{T}, dims::Tuple) where {T}
    TK_STANDIN_GPU[:allocs] += 1
    return fill(T(0x5a), dims)  # not zero: Tack must zero what it hands out
end
KernelAbstractions.synchronize(::TkStandinGPU) = (TK_STANDIN_GPU[:syncs] += 1; nothing)
function (k::KernelAbstractions.Kernel{TkStandinGPU})(args...; kw...)
    TK_STANDIN_GPU[:launches] += 1
    cpu = KernelAbstractions.Kernel(KernelAbstractions.CPU(), k.f, k.workgroupsize, k.ndrange)
    return cpu(args...; kw...)
end
tk_standin_count(k) = TK_STANDIN_GPU[Symbol(k)]
"""


@pytest.fixture
def gpu(julia153_engine):
    """The Julia engine's "cuda" device on the stand-in GPU backend, the current device: a
    `tack.Device` of its own, not the shared one, so that its engine (bound to the stand-in)
    ends with the test."""
    session = rj._Session.get()
    session.jl.seval("isdefined(@__MODULE__, :TkStandinGPU) || include_string(@__MODULE__, "
                     f"{rj._jl_str(STANDIN_GPU)})")
    session.backends["cuda"] = session.jl.seval("TkStandinGPU()")
    try:
        with tack.Device("cuda", engine="julia") as dev:
            yield dev
    finally:
        session.backends.pop("cuda", None)


def _count(what: str) -> int:
    return rj._Session.get().jl.seval(f"tk_standin_count(\"{what}\")")


CASES = [c for c in CASES + WORKGROUP_CASES + EXTRA_CASES
         if os.environ.get("TACK_JULIA_DEVICE_CORPUS") == "all" or c.name in SAMPLE]


@pytest.mark.parametrize("case,n", [pytest.param(c, n, id=f"{c.name}-{n}")
                                    for c in CASES for n in c.sizes[:1]])
def test_case_on_device_resident_arrays(gpu, case, n):
    actual, expected = run_case(case, n)
    assert_matches(case, actual, expected)


def test_arrays_stay_on_the_device_between_launches(gpu, monkeypatch):
    x = tack.array(np.arange(1000, dtype=np.float32))
    y = tack.zeros(1000)
    assert x.device is gpu and not gpu.is_host
    store = gpu.engine.storage()
    seen = []
    for name in ("tk_upload!", "tk_download!"):
        fn = store.fn[name]
        monkeypatch.setitem(store.fn, name, lambda *a, _f=fn, _n=name: (seen.append(_n), _f(*a)))
    launches = _count("launches")
    for _ in range(3):
        axpy(2.0, x, y)
    assert seen == [] and _count("launches") == launches + 3  # three launches, no copy
    np.testing.assert_array_equal(y.numpy(), 6 * np.arange(1000, dtype=np.float32))
    assert seen == ["tk_download!"]
    assert y[999] == 5994.0 and y.to("cpu").numpy()[1] == 6.0


def test_the_cpu_engine_refuses_a_device_array(gpu):
    """An array in the Julia GPU's memory given to a native CPU kernel: refused on its first call
    and on its prebuilt path, before any launch."""
    on_gpu = tack.zeros(3)
    with tack.device("cpu"):
        x, y = tack.array(np.ones(3, np.float32)), tack.zeros(3)
        with pytest.raises(RuntimeError, match="belongs to"):
            tack.kernel(axpy.fn)(2.0, on_gpu, y)  # a fresh kernel: its first call
        axpy(2.0, x, y)
        with pytest.raises(RuntimeError, match="belongs to"):
            axpy(2.0, on_gpu, y)  # the path built by the call above
    np.testing.assert_array_equal(y.numpy(), np.full(3, 2.0, np.float32))


def test_storage_round_trips_and_device_copies(gpu):
    for dtype in (np.int8, np.uint16, np.int32, np.uint64, np.float64):
        host = (np.arange(24) % 7).astype(dtype).reshape(2, 3, 4)
        a = tack.array(host)
        np.testing.assert_array_equal(a.numpy(), host)
        b = a.copy()  # device to device
        np.testing.assert_array_equal(b.numpy(), host)
        assert a[1, 2, 3] == host[1, 2, 3]
    z = tack.zeros((3, 5), tack.i64)  # allocated as 0x5a bytes, zeroed by Tack
    np.testing.assert_array_equal(z.numpy(), np.zeros((3, 5), np.int64))
    z.fill(-2)
    assert z.numpy().sum() == -30


@tack.kernel
def transpose_into(a, out):
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            out[j, i] = a[i, j]


def test_two_dimensional_arrays_keep_numpys_layout(gpu):
    host = np.arange(12, dtype=np.float32).reshape(3, 4)
    a, out = tack.array(host), tack.zeros((4, 3))
    transpose_into(a, out)
    np.testing.assert_array_equal(out.numpy(), host.T)
    flat = out.reshape(12)  # a view of the same device memory
    np.testing.assert_array_equal(flat.numpy(), host.T.reshape(-1))


def test_reductions_run_on_the_device(gpu):
    a = tack.array(np.arange(3000, dtype=np.float32))
    assert a.sum() == pytest.approx(3000 * 2999 / 2)
    assert (a.min(), a.max()) == (0.0, 2999.0)
