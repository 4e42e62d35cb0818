# tack_matmul!(C, A, B) (julia/kernels/matmul.jl, tack.ops.matmul with its arguments swapped:
# docs/julia.md) against A * B in Float64, both tiers (portable four rows per work-item, 128 × 128
# shared-memory tiles), shapes off the tiles and on them.
include(joinpath(KERNEL_DIR, "matmul.jl"))

const MATMUL_CASES = ((37, 19, 70), (64, 64, 64), (1, 1, 1), (130, 3, 5), (5, 0, 3))

function test_matmul(b)
    for T in ops_eltypes(b), (m, k, n) in (T == Float32 ? MATMUL_CASES : ((37, 19, 70),))
        @testset "matmul $T ($m, $k, $n) workgroups=$wg" for wg in OPS_TIERS
            A, B = ops_randn(13, T, m, k), ops_randn(14, T, k, n)
            C = fill!(KA.allocate(b, T, m, n), T(7))  # overwritten, not accumulated into
            tack_matmul!(C, ops_on(b, A), ops_on(b, B); workgroups = wg)
            ops_check(C, Float64.(A) * Float64.(B), :matmul, T)
        end
    end
    @test_throws DimensionMismatch tack_matmul!(zeros(Float32, 2, 2), zeros(Float32, 2, 3),
                                                zeros(Float32, 2, 2))
    # no Float16 kernels (tack.ops multiplies half through an f32 copy): refused, saying which
    h = zeros(Float16, 2, 2)
    err = try tack_matmul!(h, h, h); nothing catch e; e end
    @test err isa ArgumentError && occursin("the kernels are Float32, Float64", err.msg)
end
