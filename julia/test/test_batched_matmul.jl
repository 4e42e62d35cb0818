# tack_batched_matmul!(C, A, B) (julia/kernels/batched_matmul.jl, the kernels of matmul.jl)
# against a product per batch in Float64 and NNlib.batched_mul (batch last, as here).
include(joinpath(KERNEL_DIR, "batched_matmul.jl"))

const BATCHED_CASES = ((37, 19, 70, 3), (64, 16, 64, 2))

function test_batched_matmul(b)
    for T in ops_eltypes(b), (m, k, n, z) in (T == Float32 ? BATCHED_CASES : ((37, 19, 70, 3),))
        @testset "batched_matmul $T ($m, $k, $n, $z) workgroups=$wg" for wg in OPS_TIERS
            A, B = ops_randn(15, T, m, k, z), ops_randn(16, T, k, n, z)
            C = ops_zeros(b, T, m, n, z)
            tack_batched_matmul!(C, ops_on(b, A), ops_on(b, B); workgroups = wg)
            ref = cat((Float64.(A[:, :, i]) * Float64.(B[:, :, i]) for i in 1:z)...; dims = 3)
            ops_check(C, ref, :matmul, T)
            with_nnlib(:batched_mul, Float64.(A), Float64.(B)) do
                ops_check(C, NNlib.batched_mul(Float64.(A), Float64.(B)), :matmul, T)
            end
        end
    end
    # unlike NNlib.batched_mul, a batch of 1 (of A or of B) is not broadcast (docs/julia.md)
    for (za, zb) in ((1, 2), (2, 1))
        A, B = ops_randn(17, Float32, 4, 3, za), ops_randn(18, Float32, 3, 5, zb)
        @test_throws DimensionMismatch tack_batched_matmul!(ops_zeros(b, Float32, 4, 5, 2),
                                                            ops_on(b, A), ops_on(b, B))
    end
end
