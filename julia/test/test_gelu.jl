# tack_gelu!(y, x; approximate) (julia/kernels/gelu.jl, tack.ops.gelu): the tanh form against
# its definition and NNlib.gelu (NNlib's tanh form), the erf form against an erf summed in
# BigFloat and NNlib.gelu_erf where NNlib has it.
include(joinpath(KERNEL_DIR, "gelu.jl"))

"""erf(x) from its Taylor series 2/√π Σ (-1)ⁿ x²ⁿ⁺¹ / (n! (2n + 1)), in 256-bit BigFloat (the
terms reach about 1e15 at |x| = 6, far inside its 77 digits); ±1 beyond |x| = 6."""
function ref_erf(x::Float64)
    abs(x) >= 6 && return sign(x)
    return setprecision(BigFloat, 256) do
        z = BigFloat(x)
        term, total, n = z, z, 0
        while abs(term) > big(1e-40)
            n += 1
            term *= -z * z / n
            total += term / (2n + 1)
        end
        Float64(2 / sqrt(big(pi)) * total)
    end
end

ref_gelu_tanh(x) = 0.5x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715x^3)))
ref_gelu_erf(x) = 0.5x * (1 + ref_erf(x / sqrt(2)))

function test_gelu(b)
    @testset "gelu $T $(dims)" for T in ops_half_eltypes(b), dims in ((1,), (37, 5), (1031,))
        x = ops_randn(5, T, dims...; s = 3)
        y = ops_zeros(b, T, dims...)
        tack_gelu!(y, ops_on(b, x))
        ops_check(y, ref_gelu_tanh.(Float64.(x)), :elementwise, T)
        T == Float16 && half_check(y, ref_gelu_tanh.(Float64.(x)), :gelu, T)
        with_nnlib(:gelu, Float64(x[1])) do
            ops_check(y, NNlib.gelu.(Float64.(x)), :elementwise, T)
            T == Float16 && half_check(y, NNlib.gelu.(Float64.(x)), :gelu, T)
        end
        tack_gelu!(y, ops_on(b, x); approximate = :none)
        ops_check(y, ref_gelu_erf.(Float64.(x)), :elementwise, T)
        T == Float16 && half_check(y, ref_gelu_erf.(Float64.(x)), :gelu, T)
        with_nnlib(:gelu_erf, Float64(x[1])) do
            ops_check(y, NNlib.gelu_erf.(Float64.(x)), :elementwise, T)
            T == Float16 && half_check(y, NNlib.gelu_erf.(Float64.(x)), :gelu, T)
        end
    end
    @test_throws ArgumentError tack_gelu!(zeros(Float32, 2), zeros(Float32, 2); approximate = :erf)
end
