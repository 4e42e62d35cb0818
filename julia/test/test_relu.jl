# tack_relu!(y, x) (julia/kernels/relu.jl, tack.ops.relu) against x < 0 ? 0 : x and NNlib.relu;
# in Float16 exact, and bit for bit NNlib.relu of the Float16 inputs themselves.
include(joinpath(KERNEL_DIR, "relu.jl"))

function test_relu(b)
    @testset "relu $T $(dims)" for T in ops_half_eltypes(b), dims in ((1,), (37, 5), (1031,))
        x = ops_randn(3, T, dims...)
        x[1] = T(NaN)  # NaN stays NaN
        length(x) > 1 && (x[2] = -zero(T))
        y = ops_zeros(b, T, dims...)
        tack_relu!(y, ops_on(b, x))
        ops_check(y, [v < 0 ? 0.0 : Float64(v) for v in x], :elementwise, T)
        # as NNlib.relu, ifelse(x < 0, 0, x): -0.0 stays -0.0
        length(x) > 1 && @test signbit(Array(y)[2])
        with_nnlib(:relu, Float64(x[1])) do
            ops_check(y, NNlib.relu.(Float64.(x)), :elementwise, T)
        end
        if T == Float16
            half_check(y, [v < 0 ? 0.0 : Float64(v) for v in x], :relu, T)
            with_nnlib(:relu, x[1]) do  # NNlib in Float16: the same bits, -0.0 and NaN too
                @test isequal(Array(y), NNlib.relu.(x))
            end
        end
    end
end
