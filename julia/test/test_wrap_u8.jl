# tack_wrap_u8(a, out): out = a * a + 200, where a * a wraps at UInt8 (Tack's fixed-width rule)
# before the Int32 addition.
include(joinpath(KERNEL_DIR, "wrap_u8.jl"))

function test_wrap_u8(b)
    @testset "wrap_u8 n=$n" for n in (1, 7, 1025)
        a = rand(test_rng(n), UInt8, n)
        out = zeros(Int32, n)
        run!(tack_wrap_u8, b, n, a, out)
        @test out == Int32.(mod.(Int.(a) .^ 2, 256)) .+ Int32(200)
    end
end
