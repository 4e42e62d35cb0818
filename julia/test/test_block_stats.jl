# tack_block_stats(data, sums, maxs, n): tack.block_sum and tack.block_max (Tack's library
# reductions, written in Tack's kernel language and inlined: shared memory and barriers) per
# 256-lane workgroup; lane 0 stores the group's results.
include(joinpath(KERNEL_DIR, "block_stats.jl"))

function test_block_stats(b)
    @test TackRuntime.tk_workgroupsize(tack_block_stats) == 256
    @testset "block_stats groups=$g" for g in (1, 3)
        D = randn(test_rng(g), Float32, 256, g)   # column = one workgroup
        sums, maxs = zeros(Float32, g), zeros(Float32, g)
        run!(tack_block_stats, b, 256 * g, vec(D), sums, maxs, Int32(256 * g))
        @test allclose(sums, vec(sum(Float64.(D); dims = 1)); rtol = 1e-5, atol = 1e-5)
        @test maxs == vec(maximum(D; dims = 1))
    end
end
