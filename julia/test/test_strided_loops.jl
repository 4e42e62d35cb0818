# tack_strided_loops(out, n): loops with negative and positive steps, `continue` inside a loop.
include(joinpath(KERNEL_DIR, "strided_loops.jl"))

# foldl, not `sum(...; init = 0)`, which needs Julia 1.6
strided(i) = foldl(+, (k for k in i:-3:0 if k % 5 != 0); init = 0) + length(0:4:i-1)

function test_strided_loops(b)
    @testset "strided_loops n=$n" for n in (1, 7, 1025)
        out = zeros(Int32, n)
        run!(tack_strided_loops, b, n, out, Int32(n))
        @test out == Int32.(strided.(0:n-1))
    end
end
