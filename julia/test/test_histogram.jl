# tack_histogram(data, bins, n): bins[trunc(10 * data[i]) + 1] += 1 with an atomic add, for data
# in [0, 1); many lanes hit the same bin.
include(joinpath(KERNEL_DIR, "histogram.jl"))

function test_histogram(b)
    @testset "histogram n=$n" for n in (1, 7, 1025, 100_000)
        data = rand(test_rng(n), Float32, n)
        bins = zeros(Int32, 10)
        run!(tack_histogram, b, n, data, bins, Int32(n))
        ref = zeros(Int32, 10)
        for x in data
            ref[trunc(Int, x * 10f0) + 1] += 1
        end
        @test bins == ref
        @test sum(bins) == n
    end
end
