"""The Julia engine (tack.runtime.julia). Without Julia: its error paths and argument handling,
against a fake juliacall. With Julia (marked `julia`): the whole corpus against its references."""
import importlib.abc
import sys
import urllib.error

import numpy as np
import pytest
import tack
from tack.runtime.julia import engine as rj

from tests.julia.golden import ALL_CASES, case_ir


def _saxpy():
    case = next(c for c in ALL_CASES if c.name == "saxpy")
    return case_ir(case)


def test_unknown_device_is_a_value_error_before_julia():
    with pytest.raises(ValueError, match="Unknown device for the Julia engine: 'vulkan'"):
        rj.JuliaEngine("vulkan")


def test_missing_juliacall_says_what_to_install(monkeypatch, fresh_session):
    monkeypatch.setitem(sys.modules, "juliacall", None)  # import juliacall → ImportError
    with pytest.raises(RuntimeError, match=r"missing dependency juliacall.*pip install"):
        rj.JuliaEngine("cpu").compile(_saxpy())


class _NoJulia(importlib.abc.MetaPathFinder):
    """`import juliacall` as it fails without Julia and without network: juliapkg's attempt to
    download Julia raises `urllib.error.URLError` at once."""

    calls = 0

    def find_spec(self, name, path=None, target=None):
        if name == "juliacall":
            type(self).calls += 1
            raise urllib.error.URLError("Name or service not known")


def test_julia_that_cannot_start_is_a_runtime_error_once(monkeypatch, fresh_session):
    monkeypatch.delitem(sys.modules, "juliacall", raising=False)
    monkeypatch.setattr(sys, "meta_path", [_NoJulia()] + sys.meta_path)
    _NoJulia.calls = 0
    with pytest.raises(RuntimeError, match="Install Julia >= 1.10") as first:
        rj.JuliaEngine("cpu").compile(_saxpy())
    assert isinstance(first.value.__cause__, urllib.error.URLError)
    with pytest.raises(RuntimeError, match="Install Julia"):  # remembered, not retried
        rj.JuliaEngine("cuda").compile(_saxpy())
    assert _NoJulia.calls == 1


def test_missing_runtime_package_names_the_dependencies(fake, monkeypatch):
    """TackRuntime.jl imports BFloat16s (and KA, Atomix, StaticArrays) with no fallback: an
    environment without one fails to start, with Julia's error and what to install."""
    seval = fake.seval

    def no_bfloat16s(code: str):
        if code.startswith("Base.include"):
            raise RuntimeError('ArgumentError: Package BFloat16s not found in current path')
        return seval(code)

    monkeypatch.setattr(fake, "seval", no_bfloat16s)
    with pytest.raises(RuntimeError, match=r"Package BFloat16s not found.*StaticArrays, "
                                           r"BFloat16s\) are declared in tack/juliapkg\.json.*"
                                           r"PYTHON_JULIACALL_PROJECT"):
        rj.JuliaEngine("cpu").compile(_saxpy())


def test_missing_gpu_package_names_it(fake):
    fake.packages = set()
    with pytest.raises(RuntimeError, match=r"Metal\.jl is not installed.*juliapkg\.add\('Metal'"):
        rj.JuliaEngine("metal").compile(_saxpy())


def test_gpu_package_without_a_device(fake):
    fake.functional = False
    with pytest.raises(RuntimeError, match=r"CUDA\.functional\(\) is false"):
        rj.JuliaEngine("cuda").compile(_saxpy())


def test_gpu_package_loaded_only_for_its_device(fake):
    rj.JuliaEngine("cpu").compile(_saxpy())
    assert not any("CUDA" in e for e in fake.evals)
    rj.JuliaEngine("cuda").compile(_saxpy())
    assert "import CUDA" in fake.evals and "CUDA.CUDABackend()" in fake.evals


def test_f64_refused_where_the_backend_has_none(fake):
    fake.packages, fake.f64 = {"Metal"}, False
    f64_case = next(c for c in ALL_CASES if c.name == "weak_literals_f64")
    with pytest.raises(TypeError, match="uses tack.f64.*'metal'"):
        rj.JuliaEngine("metal").compile(case_ir(f64_case))
    rj.JuliaEngine("metal").compile(_saxpy())


def test_64_bit_atomics_refused_on_metal(fake):
    from tack.compiler import specialize

    fake.packages = {"Metal"}
    case = next(c for c in ALL_CASES if c.name == "histogram")
    host = case.make(np.random.default_rng(0), 7)
    tack.set_default_device("cpu")
    args = [tack.array(a) if isinstance(a, np.ndarray) else a for a in host]
    rj.JuliaEngine("metal").compile(case_ir(case))  # Int32 atomics: fine
    with pytest.raises(TypeError, match="debug mode's i64 counters need 64-bit atomics.*'metal'"):
        rj.JuliaEngine("metal").compile(specialize(case.kernel, args, debug=True))
    rj.JuliaEngine("cpu").compile(specialize(case.kernel, args, debug=True))


@tack.kernel
def _count_u8(keys, counts):
    for i in range(keys.shape[0]):
        tack.atomic_add(counts, keys[i], 1)


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.uint32, np.int64])
@pytest.mark.parametrize("ka_010", [True, False], ids=["ka0.10", "ka0.9"])
def test_narrow_atomics_on_julia_cpu_follow_the_ka_version(fake, dtype, ka_010):
    """KA 0.10's CPU backend runs on PoCL, whose atomics are 32- and 64-bit: 8- and 16-bit ones
    are refused before launch there, and accepted on KA 0.9's CPU backend (Julia's threads)."""
    from tack.compiler import specialize
    from tack.errors import CapabilityError

    fake.ka_version = "0.10.0" if ka_010 else "0.9.41"  # TackRuntime.tk_ka_version()
    tack.set_default_device("cpu")
    args = [tack.array(np.zeros(5, np.int32)), tack.array(np.zeros(3, dtype))]
    kir = specialize(_count_u8, args)
    if ka_010 and np.dtype(dtype).itemsize < 4:
        with pytest.raises(CapabilityError, match=r"needs (8|16)-bit atomics, which julia:cpu "
                                                  r"under KernelAbstractions 0\.10 \(PoCL\)"):
            rj.JuliaEngine("cpu").compile(kir)
    else:
        rj.JuliaEngine("cpu").compile(kir)


@tack.kernel
def _scale_half(x, out):
    for i in range(x.shape[0]):
        out[i] = x[i] * 2.0


@pytest.mark.parametrize("dtype,jl", [(tack.f16, "Float16"), (tack.bf16, "TkBFloat16")])
def test_half_refused_where_the_backend_fails_the_probe(fake, dtype, jl):
    """KA has no query for half support: the engine runs TackRuntime's probe kernel once per
    device and half type, and refuses a half kernel before it compiles where the probe failed,
    saying why; f32 kernels never probe."""
    from tack.compiler import specialize
    from tack.errors import CapabilityError

    fake.packages = {"oneAPI"}
    fake.half = {("<oneAPI.oneAPIBackend()>", jl): "InvalidIRError: unsupported use of half"}
    tack.set_default_device("cpu")
    kir = specialize(_scale_half, [tack.zeros(4, dtype), tack.zeros(4, dtype)])
    for _ in range(2):
        with pytest.raises(CapabilityError, match=rf"uses tack\.{dtype.name}, which the Julia "
                                                  rf"engine's 'level_zero' device cannot run: a "
                                                  rf"probe kernel in {jl} failed there "
                                                  r"\(InvalidIRError: unsupported use of half\)"):
            rj.JuliaEngine("level_zero").compile(kir)
    probes = [e for e in fake.evals if "tk_half_probe" in e]
    assert probes == [f"b -> TackRuntime.tk_half_probe(b, {jl})"]  # asked once
    assert not any(e.startswith("# Tack kernel") for e in fake.evals)  # nothing was defined
    rj.JuliaEngine("cpu").compile(kir)  # the CPU backend passed its own probe
    assert sum("tk_half_probe" in e for e in fake.evals) == 2
    rj.JuliaEngine("cpu").compile(_saxpy())
    assert sum("tk_half_probe" in e for e in fake.evals) == 2


def test_each_source_is_evaluated_once(fake):
    eng = rj.JuliaEngine("cpu")
    k1, k2 = eng.compile(_saxpy()), rj.JuliaEngine("cpu").compile(_saxpy())
    assert sum(e.startswith("# Tack kernel") for e in fake.evals) == 1
    assert k1.fn == k2.fn and k1.fn.startswith("<fn tk_saxpy_")


def test_launch_passes_views_and_exact_scalars(fake):
    k = rj.JuliaEngine("cpu").compile(_saxpy())
    x, y, out = (np.arange(6, dtype=np.float32).reshape(2, 3) for _ in range(3))
    k.launch([2.5, x, y, out], 6)
    fn, backend, n, written, a, xv, _, ov = fake.launches[-1]
    assert (fn, backend) == (k.fn, "<KernelAbstractions.CPU()>")
    assert type(n) is np.int64 and n == 6
    assert written.tolist() == [False, False, False, True]
    assert type(a) is np.float32 and a == np.float32(2.5)
    assert xv.shape == (6,) and np.shares_memory(xv, x) and np.shares_memory(ov, out)


def test_launch_accepts_tack_arrays_and_skips_empty_launches(fake):
    k = rj.JuliaEngine("cpu").compile(_saxpy())
    x = tack.zeros(4)
    k.launch([1.0, x, x, x], 0)
    assert fake.launches == []
    k.launch([1.0, x, x, x], 4)
    assert np.shares_memory(fake.launches[-1][5], x._host)


@pytest.mark.parametrize("args,err,msg", [
    ([1.0, np.zeros(3), np.zeros(3, np.float32), np.zeros(3, np.float32)], TypeError,
     "'x' has dtype float64"),
    ([1.0, np.zeros((3, 2), np.float32)[:, 0]] + [np.zeros(3, np.float32)] * 2, ValueError,
     "C-contiguous"),
    ([1.0] + [np.zeros(3, np.float32)] * 3 + [1], TypeError, "expects 4 arguments"),
    ([np.zeros(3, np.float32)] * 4, TypeError, "'a' expects a scalar, got ndarray"),
])
def test_bad_arguments(fake, args, err, msg):
    k = rj.JuliaEngine("cpu").compile(_saxpy())
    with pytest.raises(err, match=msg):
        k.launch(args, 3)


def test_read_only_written_array_is_refused(fake):
    k = rj.JuliaEngine("cpu").compile(_saxpy())
    out = np.zeros(3, np.float32)
    out.flags.writeable = False
    with pytest.raises(ValueError, match="'out' may be written"):
        k.launch([1.0, np.zeros(3, np.float32), np.zeros(3, np.float32), out], 3)


def test_julia_errors_name_the_kernel(fake):
    k = rj.JuliaEngine("cpu").compile(_saxpy())

    def boom(*a):
        raise RuntimeError("BoundsError: attempt to access 3-element Vector{Float32}")

    rj._Session._current.launch = boom
    with pytest.raises(RuntimeError, match="Kernel 'saxpy' failed on julia:cpu: BoundsError"):
        k.launch([1.0] + [np.zeros(3, np.float32)] * 3, 3)


# -- with Julia --------------------------------------------------------------------------------

@pytest.mark.julia
@pytest.mark.parametrize("case,n", [(c, n) for c in ALL_CASES for n in c.sizes],
                         ids=[f"{c.name}-{n}" for c in ALL_CASES for n in c.sizes])
def test_corpus_on_julia_cpu(case, n, julia_engine_available):
    from tack.compiler import specialize

    rng = np.random.default_rng(0)
    host = case.make(rng, n)
    tack.set_default_device("cpu")
    args = [tack.array(a) if isinstance(a, np.ndarray) else a for a in host]
    kir = specialize(case.kernel, args)
    kernel = rj.JuliaEngine("cpu").compile(kir)
    start, stop, step = case.kernel.parsed.host_range.evaluate(*args)
    hidden = [start, step][:len(kir.hidden)]
    kernel.launch(list(args) + hidden, len(range(start, stop, step)))
    for k, exp in case.expect(host).items():
        got = args[k].numpy()
        if got.dtype.kind in "iu" and case.rtol == 0 and case.atol == 0:
            np.testing.assert_array_equal(got, exp)
        else:
            np.testing.assert_allclose(got, exp, rtol=case.rtol, atol=case.atol, equal_nan=True)
