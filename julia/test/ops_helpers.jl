# What the tack.ops test files (test_add.jl ... test_attention.jl) share: moving inputs to a
# backend, the tolerance table, and NNlib comparisons that are skipped (and counted) where NNlib
# is absent. Included by runtests.jl before the test files.

"""`x` on backend `b` (a copy on the CPU too, so that a bridge never aliases the reference)."""
ops_on(b, x::AbstractArray) =
    b isa KA.CPU ? copy(x) : copyto!(KA.allocate(b, eltype(x), size(x)), x)

"""A zero-filled output of `x`'s element type and size `dims` on backend `b`."""
ops_zeros(b, ::Type{T}, dims...) where {T} = fill!(KA.allocate(b, T, dims...), zero(T))

"""Whether a test runs the workgroup kernels, the portable ones, or both: both everywhere (the
bridge picks one by backend; the other is forced with `workgroups =`)."""
const OPS_TIERS = (false, true)

# The tolerance table (docs/julia.md, "tack.ops from Julia"): kernels in T against references
# computed in Float64 from the definitions, elementwise `isapprox` with these rtol/atol.
const OPS_TOL = Dict(
    (:elementwise, Float32) => (rtol = 1e-5, atol = 1e-6),  # add, relu, gelu, silu
    (:elementwise, Float64) => (rtol = 1e-12, atol = 1e-14),
    (:softmax, Float32) => (rtol = 1e-4, atol = 1e-7),      # softmax, log_softmax
    (:softmax, Float64) => (rtol = 1e-10, atol = 1e-14),
    (:norm, Float32) => (rtol = 1e-4, atol = 1e-5),         # layer and RMS norm: the mean of a
    (:norm, Float64) => (rtol = 1e-10, atol = 1e-12),       # long row, times the weight
    (:matmul, Float32) => (rtol = 1e-4, atol = 1e-4),       # k-term dot products
    (:matmul, Float64) => (rtol = 1e-10, atol = 1e-10),
    (:attention, Float32) => (rtol = 2e-4, atol = 2e-5),    # two dot products and an online softmax
    (:attention, Float64) => (rtol = 1e-10, atol = 1e-12),
    # Float16 (elementwise, softmax, norms: f32 math, each output rounded once to 11 bits)
    (:elementwise, Float16) => (rtol = 1e-3, atol = 1e-5),
    (:softmax, Float16) => (rtol = 1e-3, atol = 1e-6),
    (:norm, Float16) => (rtol = 1e-3, atol = 1e-3),
)

"""`@test` that `got` (any backend) is `ref` within the table's tolerance for `class`."""
function ops_check(got, ref, class::Symbol, ::Type{T}) where {T}
    tol = OPS_TOL[(class, T)]
    @test allclose(Array(got), ref; rtol = tol.rtol, atol = tol.atol)
end

# The half bounds of docs/numerics.md ("Half precision", tack.testing.bounds.HALF_OP_BOUNDS): a
# half op's statistics are Float32 and each result is rounded once to the half type, so it is
# within `bound` units of that type's unit roundoff (2^-11 for Float16) times its row's largest
# result of the exact result on the half inputs; relu is exact.
const HALF_UNIT = Dict{DataType,Float64}(Float16 => 2.0^-11)
const HALF_OP_BOUND = Dict(:add => 1.01, :relu => 0.0, :gelu => 1.01, :silu => 1.01,
                           :softmax => 1.01, :log_softmax => 1.01, :layer_norm => 1.01,
                           :rms_norm => 1.01)

"""`@test` that half `got` (any backend) is within op's half bound of `ref` (exact, or Float64
from the exact half inputs), a row being the elements along `dims` (Julia's dimension 1 is
NumPy's last axis, the rows of tack.ops); a NaN must meet a NaN."""
function half_check(got, ref, op::Symbol, ::Type{T}; dims = 1) where {T}
    g = Float64.(Array(got))
    scale = maximum(v -> isnan(v) ? 0.0 : abs(v), ref; dims = dims)
    tol = HALF_OP_BOUND[op] * HALF_UNIT[T] .* scale
    @test all((abs.(g .- ref) .<= tol) .| (isnan.(g) .& isnan.(ref)))
end

"""True, after recording a skipped test, where NNlib (the reference `NNlib.name`) is not
installed."""
function skip_without_nnlib(name::Symbol)
    HAVE_NNLIB && return false
    skip_test("NNlib not installed (NNlib.$name)")
    return true
end

"""Run `check()` (which compares with NNlib) where NNlib is installed and its function `name`
has a method for `args` (the reference's arguments, or representatives of their types); else
record one skipped test saying which: NNlib >= 0.9.28, say, declares `gelu_erf` but defines its
methods only once SpecialFunctions is loaded (runtests.jl loads it where installed)."""
function with_nnlib(check, name::Symbol, args...)
    skip_without_nnlib(name) && return nothing
    if isdefined(NNlib, name) && applicable(getfield(NNlib, name), args...)
        check()
    else
        skip_test("NNlib lacks a method for $name($(join(map(typeof, args), ", ")))")
    end
    return nothing
end

"""Random inputs of element type `T` and size `dims`, scaled by `s`, from the case's seed."""
ops_randn(seed, ::Type{T}, dims...; s = 1) where {T} = T.(s .* randn(test_rng(seed), dims...))

"""The element types a backend runs: Float32, and Float64 unless `skip_without_f64` (which
records the skip)."""
ops_eltypes(b) = skip_without_f64(b) ? (Float32,) : (Float32, Float64)

"""`ops_eltypes(b)` and Float16, for the ops whose files hold Float16 kernels (elementwise,
softmax, the norms), unless `skip_without_f16` (which records the skip)."""
ops_half_eltypes(b) = skip_without_f16(b) ? ops_eltypes(b) : (ops_eltypes(b)..., Float16)
