# Tack's Julia test suite. Each julia/test/test_<case>.jl includes the generated kernel
# julia/kernels/<case>.jl and defines `test_<case>(backend)`, which compares the kernel with an
# independent Julia reference (NNlib where it applies, plain Julia otherwise). `testsuite(backend)`
# runs them all, on CPU() always and on every functional GPU backend.
#
#   julia --project=julia/test -e 'import Pkg; Pkg.instantiate(); include("julia/test/runtests.jl")'
#
# julia/test/Project.toml declares what the suite loads, the GPU packages included, with [compat].
# A GPU backend is used when its package loads and is functional; one that fails either is
# reported with `@warn` and left out, so the CPU tests still run. TACK_TEST_CUDA=no (METAL,
# AMDGPU, ONEAPI) turns one off.
# Without KernelAbstractions.jl (Julia 1.5 from Debian, docs/julia.md) the suite runs on Tack's
# stand-in (julia/test/standin) and says so; without NNlib its cases are skipped and counted.
# The last lines printed are `TACK_JULIA_SKIP count=… reason=…`, one per reason a test was
# skipped, and `TACK_JULIA_SUITE files=… passed=… skipped=… standin=…`.
using Test
import Random          # the random inputs of every case (`test_rng`)

include(joinpath(@__DIR__, "standin", "load.jl"))
using KernelAbstractions
const KA = KernelAbstractions  # not `import ... as KA`: Julia 1.5 has no `as`

const HAVE_NNLIB = Base.find_package("NNlib") !== nothing
HAVE_NNLIB && import NNlib
# NNlib >= 0.9.28 defines gelu_erf's methods in its SpecialFunctions extension
# (https://github.com/FluxML/NNlib.jl/blob/master/ext/NNlibSpecialFunctionsExt.jl)
HAVE_NNLIB && Base.find_package("SpecialFunctions") !== nothing && import SpecialFunctions

const JULIA_DIR = normpath(joinpath(@__DIR__, ".."))
const KERNEL_DIR = joinpath(JULIA_DIR, "kernels")
include(joinpath(JULIA_DIR, "src", "TackRuntime.jl"))
using .TackRuntime

# -- backends --------------------------------------------------------------------------------

make_backend(mod, ctor) = getproperty(mod, :functional)() ? getproperty(mod, ctor)() : nothing

"""The KA backend of GPU package `pkg` if it is installed, wanted and functional; a package that
fails to load or to answer `functional()` is reported and left out, so the CPU tests still run."""
function gpu_backend(pkg::Symbol, ctor::Symbol)
    get(ENV, "TACK_TEST_$(uppercase(String(pkg)))", "auto") == "no" && return nothing
    Base.find_package(String(pkg)) === nothing && return nothing
    try
        mod = Base.require(Main, pkg)                     # what `import CUDA` does
        return Base.invokelatest(make_backend, mod, ctor) # its methods are newer than this one
    catch err
        @warn "$pkg is installed but unusable; its backend is not tested" exception = err
        return nothing
    end
end

const BACKENDS = Any[CPU()]
if !TACK_STANDIN[]  # the stand-in has no GPU backend
    for (pkg, ctor) in ((:CUDA, :CUDABackend), (:Metal, :MetalBackend), (:AMDGPU, :ROCBackend),
                        (:oneAPI, :oneAPIBackend))
        b = gpu_backend(pkg, ctor)
        b === nothing || push!(BACKENDS, b)
    end
end
backend_name(b) = string(nameof(typeof(b)))

# -- helpers the test files share --------------------------------------------------------------

"""The random stream of a case's inputs: `Xoshiro(seed)` where it exists (Julia >= 1.7), else
`MersenneTwister(seed)`; each case compares with a reference computed from the same inputs."""
test_rng(seed::Integer) = @static isdefined(Random, :Xoshiro) ? Random.Xoshiro(seed) :
                                                                Random.MersenneTwister(seed)

"""
    run!(kernel, backend, n, args...)

Launch a generated kernel the way the Python engine does (`TackRuntime.launch!`): `n` work-items,
arrays as 1-D host vectors (copied to a GPU and back), scalars of the kernel's exact types.
The arrays are updated in place; returns `args`.
"""
function run!(kernel, backend, n, args...)
    TackRuntime.launch!(kernel, backend, n, map(a -> a isa AbstractArray, args), args...)
    return args
end

"""Elementwise `isapprox` (Base's array `isapprox` compares norms), NaNs equal."""
allclose(got, ref; rtol = 0.0, atol = 0.0) =
    size(got) == size(ref) && all(isapprox.(got, ref; rtol = rtol, atol = atol, nans = true))

include(joinpath(@__DIR__, "suite_counts.jl"))  # skip_test, suite_counts

"""True, after recording a skipped test, on a backend without Float64 (Metal, most oneAPI)."""
function skip_without_f64(b)
    KA.supports_float64(b) && return false
    skip_test("Float64 is not supported on $(backend_name(b))")
    return true
end

"""Whether `b` fails TackRuntime's Float16 probe (KA has no `supports_float16`; the Julia
engine refuses half kernels there the same way), recording the skip with the probe's reason."""
function skip_without_f16(b)
    why = TackRuntime.tk_half_probe(b, Float16)
    isempty(why) && return false
    skip_test("Float16 is not supported on $(backend_name(b)): $why")
    return true
end


# -- the suite ---------------------------------------------------------------------------------

include(joinpath(@__DIR__, "ops_helpers.jl"))  # what the tack.ops files (test_add.jl, ...) share

const TEST_FILES = sort!(filter(f -> startswith(f, "test_") && endswith(f, ".jl"),
                                readdir(@__DIR__)))
for f in TEST_FILES
    include(joinpath(@__DIR__, f))
end
const CASE_TESTS = [getfield(@__MODULE__, Symbol(first(splitext(f)))) for f in TEST_FILES]

function testsuite(backend)
    @testset "$(backend_name(backend))" begin
        for t in CASE_TESTS
            @testset "$(nameof(t))" begin  # one case's failure leaves the others running
                t(backend)
            end
        end
    end
end

const SUITE = @testset "Tack kernels (julia/kernels)" begin
    @test length(CASE_TESTS) == length(filter(f -> endswith(f, ".jl"), readdir(KERNEL_DIR)))
    for b in BACKENDS
        testsuite(b)
    end
end

let c = suite_counts(Test.get_test_counts(SUITE))
    for (reason, n) in sort!(collect(SKIP_REASONS))
        println("TACK_JULIA_SKIP count=$n reason=$reason")
    end
    println("TACK_JULIA_SUITE files=$(length(TEST_FILES)) passed=$(c.passed) ",
            "skipped=$(c.skipped) standin=$(TACK_STANDIN[]) julia=$(VERSION)")
end
