"""The Julia engine's hardening: scalar types, juliacall's options, atomics refused
where the backend has none. Without Julia against the fake juliacall of fake_julia.py; with the
Julia 1.5.3 tier (marked `julia`) the scalar types through the stand-in juliacall."""
import dataclasses
import os

import numpy as np
import pytest
import tack
from tack import dtypes as dt
from tack.errors import CapabilityError
from tack.ir.nodes import Param
from tack.ir.printer import kernel_str
from tack.runtime.julia import engine as rj

from tests.julia.golden import ALL_CASES, case_ir


def _every_scalar_ir():
    """saxpy's IR with one more scalar parameter of every dtype (unused: they only have to
    arrive with the type the kernel's signature declares, or Julia finds no method)."""
    kir = case_ir(next(c for c in ALL_CASES if c.name == "saxpy"))
    extra = [Param(f"s_{t.name}", "scalar", t) for t in SCALAR_TYPES]
    return dataclasses.replace(kir, params=list(kir.params) + extra)


SCALAR_TYPES = [dt.bool_, dt.i8, dt.u8, dt.i16, dt.u16, dt.i32, dt.u32, dt.i64, dt.u64, dt.f32,
                dt.f64]
VALUES = [np.bool_(True), -3, 200, -300, 40000, -7, 3_000_000_000, -(2**40), 2**63, 0.5, 0.25]


def _args(n=4):
    x, out = np.arange(n, dtype=np.float32), np.zeros(n, np.float32)
    return [np.float32(2), x, x, out] + VALUES, out


def test_every_scalar_has_the_exact_type_the_specialization_declares(fake):
    kir = _every_scalar_ir()
    args, _ = _args()
    rj.JuliaEngine("cpu").compile(kir).launch(args, 4)
    got = fake.launches[-1][8:]
    assert type(got[0]) is bool  # not np.bool_: NumPy 2's numpy.bool misses PythonCall's rule
    assert [type(v) for v in got[1:]] == [t.np.type for t in SCALAR_TYPES[1:]]
    assert [v.item() if isinstance(v, np.generic) else v for v in got] == [
        True, *VALUES[1:]]


@pytest.mark.julia
def test_every_scalar_type_reaches_julia(julia153_engine):
    """Through the stand-in juliacall, which passes each value with the Julia type juliacall
    would (and refuses an np.bool_ under NumPy 2 as juliacall mis-converts it)."""
    args, out = _args()
    rj.JuliaEngine("cpu").compile(_every_scalar_ir()).launch(args, 4)
    np.testing.assert_array_equal(out, 3 * np.arange(4))


# -- juliacall's threads and signals -----------------------------------------------------------

@pytest.mark.parametrize("env,xopts,want", [
    ({}, {}, {"PYTHON_JULIACALL_THREADS": "1", "PYTHON_JULIACALL_HANDLE_SIGNALS": "no"}),
    ({"JULIA_NUM_THREADS": "4"}, {},
     {"PYTHON_JULIACALL_THREADS": "4", "PYTHON_JULIACALL_HANDLE_SIGNALS": "yes"}),
    ({"PYTHON_JULIACALL_THREADS": "auto"}, {}, {"PYTHON_JULIACALL_HANDLE_SIGNALS": "yes"}),
    ({"PYTHON_JULIACALL_THREADS": "auto", "PYTHON_JULIACALL_HANDLE_SIGNALS": "no"}, {}, {}),
    ({}, {"juliacall-threads": "2", "juliacall-handle-signals": "no"}, {}),
])
def test_juliacall_options_are_set_unless_the_user_set_them(env, xopts, want):
    assert rj.juliacall_options(env, xopts) == want


def test_session_start_sets_the_options(fake, monkeypatch):
    for k in ("PYTHON_JULIACALL_THREADS", "PYTHON_JULIACALL_HANDLE_SIGNALS", "JULIA_NUM_THREADS"):
        monkeypatch.delenv(k, raising=False)
    monkeypatch.setenv("JULIA_NUM_THREADS", "3")
    rj.JuliaEngine("cpu").compile(_every_scalar_ir())
    assert os.environ["PYTHON_JULIACALL_THREADS"] == "3"
    assert os.environ["PYTHON_JULIACALL_HANDLE_SIGNALS"] == "yes"


# -- 8/16-bit atomics: refused for CUDA and Metal before rendering -----------------------------

@tack.kernel
def count_u8(keys, counts):
    for i in range(keys.shape[0]):
        tack.atomic_add(counts, keys[i], 1)


@pytest.mark.parametrize("arch", ["cuda", "metal"])
def test_narrow_atomics_refused_naming_dtype_and_backend(arch):
    keys, counts = tack.zeros(4, tack.i32), tack.zeros(4, tack.u8)
    dev = tack.Device(arch, engine="julia")
    with pytest.raises(CapabilityError, match=rf"u8.*julia:{arch}"):
        tack.compiler.specialize(count_u8, [keys, counts], device=dev)


def test_narrow_atomics_run_on_the_julia_cpu_device():
    keys, counts = tack.zeros(4, tack.i32), tack.zeros(4, tack.u8)
    kir = tack.compiler.specialize(count_u8, [keys, counts],
                                   device=tack.Device("cpu", engine="julia"))
    assert "atomic_add" in kernel_str(kir)


# -- Metal: barriers fence device memory only from Metal.jl 1.6.2 ------------------------------

def test_old_metal_is_refused_naming_the_version(fake):
    fake.packages, fake.recent = {"Metal"}, False
    with pytest.raises(RuntimeError, match=r"Metal.jl 1.5.0 is older than 1.6.2.*version='1.6.2'"):
        rj.JuliaEngine("metal").compile(_every_scalar_ir())


# -- overlapping arguments on a GPU backend: one upload per run of overlapping memory ----------

# A "device" whose buffers are separate host Vectors: device_copies and copy_back! (the upload
# and download bookkeeping of TackRuntime.launch! on a GPU) run as they would on CUDA.
_FAKE_DEVICE = """
struct TkFakeDevice <: KernelAbstractions.Backend end
KernelAbstractions.allocate(::TkFakeDevice, ::Type{T}, dims::Tuple) where {T} =
    Array{T}(undef, dims)
function tk_overlap_check(base::Vector{Float32})
    h = TackRuntime.host_vector
    GC.@preserve base begin
        a = h(unsafe_wrap(Array, pointer(base, 1), 6))   # base[1:6]
        b = h(unsafe_wrap(Array, pointer(base, 4), 6))   # base[4:9], overlapping a
        c = h(unsafe_wrap(Array, pointer(base, 11), 2))  # base[11:12], apart
        dev, runs = TackRuntime.device_copies(TkFakeDevice(), (a, 2.5f0, b, c))
        length(runs) == 2 || return "runs: $(length(runs))"
        parent(dev[3]) === dev[1].parent || return "b is not a view of a's buffer"
        dev[2] === 2.5f0 || return "scalar"
        dev[1][5] = 100f0                 # base[5], seen through b at its 2nd element
        dev[3][6] = 200f0                 # base[9]
        dev[3][2] == 100f0 || return "aliasing lost on the device"
        TackRuntime.copy_back!(runs, (false, false, true, false))
    end
    return base[5] == 100f0 && base[9] == 200f0 && base[11] == 11f0 ? "ok" : "copy back: $base"
end
"""


@pytest.mark.julia
def test_overlapping_views_share_one_device_buffer(julia153_engine):
    jl = rj._Session.get().jl
    jl.seval("isdefined(@__MODULE__, :TkFakeDevice) || include_string(@__MODULE__, "
             f"{rj._jl_str(_FAKE_DEVICE)})")
    assert jl.seval("tk_overlap_check(Float32.(1:12))") == "ok"


# -- float atomic min/max: compare-and-swap on the bit pattern ---------------------------------

@tack.kernel
def extremes_into(x, lo, hi):
    for i in range(x.shape[0]):
        tack.atomic_min(lo, i % 2, x[i])
        tack.atomic_max(hi, i % 2, x[i])


@pytest.mark.julia
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_float_atomic_extremes_replace_a_nan(julia153_engine, dtype):
    x = np.array([3, -0.0, np.nan, 5, -2, np.nan, 0.0, 7], dtype)
    lo, hi = (tack.array(np.full(2, np.nan, dtype)) for _ in range(2))  # a number beats NaN
    extremes_into(tack.array(x), lo, hi)
    np.testing.assert_array_equal(lo.numpy(), np.array([-2, -0.0], dtype))
    np.testing.assert_array_equal(hi.numpy(), np.array([3, 7], dtype))


@tack.kernel
def _read_past_end(x, out):
    for i in range(out.shape[0]):
        out[i] = x[i + 3]


@pytest.mark.julia
def test_an_exception_in_a_kernel_names_the_kernel(julia153_engine):
    """An exception inside a kernel on the CPU is KA 0.10's KernelException (the stand-in
    models it: the exception's name and message), raised as a RuntimeError naming the kernel;
    the engine stays usable."""
    x, out = tack.array(np.arange(4, dtype=np.float32)), tack.zeros(4)
    with pytest.raises(RuntimeError, match=r"Kernel '_read_past_end' failed on julia:cpu: "
                                           r"(.|\n)*KernelException: A BoundsError was thrown"):
        _read_past_end(x, out)
    _read_past_end(tack.array(np.arange(7, dtype=np.float32)), out)
    assert out.numpy().tolist() == [3.0, 4.0, 5.0, 6.0]
