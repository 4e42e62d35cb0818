# tack_silu!(y, x) (julia/kernels/silu.jl, tack.ops.silu) against x * sigmoid(x) and NNlib.swish.
include(joinpath(KERNEL_DIR, "silu.jl"))

function test_silu(b)
    @testset "silu $T $(dims)" for T in ops_half_eltypes(b), dims in ((1,), (37, 5), (1031,))
        x = ops_randn(4, T, dims...; s = 4)
        y = ops_zeros(b, T, dims...)
        tack_silu!(y, ops_on(b, x))
        ops_check(y, [v / (1 + exp(-v)) for v in Float64.(x)], :elementwise, T)
        T == Float16 && half_check(y, [v / (1 + exp(-v)) for v in Float64.(x)], :silu, T)
        with_nnlib(:swish, Float64(x[1])) do
            ops_check(y, NNlib.swish.(Float64.(x)), :elementwise, T)
            T == Float16 && half_check(y, NNlib.swish.(Float64.(x)), :silu, T)
        end
    end
end
