# tack_sequential_sees_writes(buf, out): a work-item reads its own earlier stores (prefix sums of
# 0..5 along a C-order (n, 6) row).
include(joinpath(KERNEL_DIR, "sequential_sees_writes.jl"))

function test_sequential_sees_writes(b)
    @testset "sequential_sees_writes n=$n" for n in (1, 7, 1025)
        B = zeros(Int64, 6, n)
        out = zeros(Int64, n)
        run!(tack_sequential_sees_writes, b, n, vec(B), out)
        @test out == (0:n-1) .+ 15
        @test B == [i + sum(0:k) for k in 0:5, i in 0:n-1]
    end
end
