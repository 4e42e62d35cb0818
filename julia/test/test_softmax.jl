# tack_softmax!(y, x; dims) (julia/kernels/softmax.jl, tack.ops.softmax) against the definition
# in Float64 and NNlib.softmax, every tier: the portable row and column kernels, the one-read
# workgroup kernel at several PER constants, and the online kernel of rows over 256 * 32.
include(joinpath(KERNEL_DIR, "softmax.jl"))

function ref_softmax(x; dims)
    e = exp.(x .- maximum(x; dims = dims))
    return e ./ sum(e; dims = dims)
end

# (size, dims): a non-power-of-two row (37), rows past one workgroup's 256 lanes (300: PER 2;
# 5000: PER 32), a row too long to cache (8300: online), other dimensions (column kernel), and a
# leading singleton (dims = 2 of a 1 × 37 array is a row again).
const SOFTMAX_CASES = (((37, 5), 1), ((300, 3), 1), ((5000, 1), 1), ((8300, 1), 1),
                       ((37, 5), 2), ((4, 5, 6), 3), ((1, 37), 2))
const SOFTMAX_CASES_F64 = (((37, 5), 1), ((4, 5, 6), 2))
# Float16: each tier once, the long rows too (their f32 maximum and sum)
const SOFTMAX_CASES_F16 = (((37, 5), 1), ((5000, 1), 1), ((8300, 1), 1), ((4, 5, 6), 3))

function test_softmax(b)
    for T in ops_half_eltypes(b), (dims_, d) in (T == Float32 ? SOFTMAX_CASES :
                                                    T == Float16 ? SOFTMAX_CASES_F16 :
                                                    SOFTMAX_CASES_F64)
        @testset "softmax $T $(dims_) dims=$d workgroups=$wg" for wg in OPS_TIERS
            x = ops_randn(6, T, dims_...; s = 3)
            y = ops_zeros(b, T, dims_...)
            tack_softmax!(y, ops_on(b, x); dims = d, workgroups = wg)
            ref = ref_softmax(Float64.(x); dims = d)
            ops_check(y, ref, :softmax, T)
            T == Float16 && half_check(y, ref, :softmax, T; dims = d)
            @test all(isapprox.(sum(Float64.(Array(y)); dims = d), 1;
                                atol = T == Float16 ? 1e-3 : 1e-4))  # Float16: 11-bit outputs
            with_nnlib(:softmax, Float64.(x)) do
                ops_check(y, NNlib.softmax(Float64.(x); dims = d), :softmax, T)
                T == Float16 && half_check(y, NNlib.softmax(Float64.(x); dims = d), :softmax,
                                           T; dims = d)
            end
        end
    end
    @test_throws ArgumentError tack_softmax!(zeros(Float32, 3), zeros(Float32, 3); dims = 2)
    test_softmax_plus_inf(b, tack_softmax!, false)
end

"""NNlib's softmax (logsoftmax with `want_log`) of columns holding +inf, written from its limit
(https://github.com/FluxML/NNlib.jl/blob/master/src/softmax.jl): the k +inf elements share the
column, 1/k each (-log k), the others 0 (-Inf). Where NNlib is installed, the kernels are also
compared with NNlib itself on the same Float32 input, which checks that reading of its source."""
function test_softmax_plus_inf(b, f!, want_log)
    x = Float32[Inf 1 Inf; 1 2 3; 2 Inf Inf]  # +inf first in column 1, last in 2, twice in 3
    want = want_log ? Float32[0 -Inf -log(2); -Inf -Inf -Inf; -Inf 0 -log(2)] :
                      Float32[1 0 0.5; 0 0 0; 0 1 0.5]
    name = want_log ? :logsoftmax : :softmax
    @testset "$(nameof(f!)) +Inf workgroups=$wg" for wg in OPS_TIERS,
                                                          (xs, d) in ((x, 1), (permutedims(x), 2))
        y = ops_zeros(b, Float32, size(xs)...)
        f!(y, ops_on(b, xs); dims = d, workgroups = wg)
        @test allclose(Array(y), d == 1 ? want : permutedims(want); rtol = 1e-6)
        with_nnlib(name, xs) do
            @test allclose(Array(y), getfield(NNlib, name)(xs; dims = d); rtol = 1e-6)
        end
    end
end
