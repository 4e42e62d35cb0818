# tack_relu!(y, x) (julia/kernels/relu.jl, tack.ops.relu) against max(x, 0) and NNlib.relu.
include(joinpath(KERNEL_DIR, "relu.jl"))

function test_relu(b)
    @testset "relu $T $(dims)" for T in ops_eltypes(b), dims in ((1,), (37, 5), (1031,))
        x = ops_randn(3, T, dims...)
        x[1] = T(NaN)  # NaN stays NaN
        length(x) > 1 && (x[2] = -zero(T))
        y = ops_zeros(b, T, dims...)
        tack_relu!(y, ops_on(b, x))
        ops_check(y, [isnan(v) ? v : max(Float64(v), 0.0) for v in x], :elementwise, T)
        @test !signbit(Array(y)[min(2, length(x))])  # -0.0 gives 0
        with_nnlib(:relu, Float64(x[1])) do
            ops_check(y, NNlib.relu.(Float64.(x)), :elementwise, T)
        end
    end
end
