# tack_stepped_launch(out, start, stop, start_hidden): the parallel loop range(start, stop, 3);
# the host passes the trip count as n and the start as the hidden parameter.
include(joinpath(KERNEL_DIR, "stepped_launch.jl"))

function test_stepped_launch(b)
    @testset "stepped_launch n=$n" for n in (1, 7, 1025)
        out = zeros(Int64, n + 10)
        start, stop = 2, n + 7
        run!(tack_stepped_launch, b, length(start:3:stop-1), out, Int32(start), Int32(stop),
             Int64(start))
        ref = zeros(Int64, n + 10)
        for i in start:3:stop-1
            ref[i+1] = 2i + 1
        end
        @test out == ref
    end
end
