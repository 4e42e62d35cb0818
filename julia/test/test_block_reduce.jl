# tack_block_reduce(data, partial_sums, n): each 256-lane workgroup sums its slice of data in
# `@localmem` with a tree of `@synchronize`d steps (a `while` over a halving stride, rendered with
# its condition in a shared slot and the per-lane values in `@private` cells), then lane 0 adds the
# group's sum to partial_sums[1] atomically. n is a multiple of 256, as in the Python corpus.
include(joinpath(KERNEL_DIR, "block_reduce.jl"))

function test_block_reduce(b)
    @test TackRuntime.tk_workgroupsize(tack_block_reduce) == 256
    @testset "block_reduce groups=$g" for g in (1, 4, 33)
        n = 256 * g
        data = randn(test_rng(g), Float32, n)
        partial = zeros(Float32, 1)
        run!(tack_block_reduce, b, n, data, partial, Int32(n))
        @test allclose(partial, [sum(Float64, data)]; rtol = 1e-4, atol = 1e-3)
    end
end
