# tack_int_divmod(a, b, q, r) on Int32: Python's // and % (floor division, divisor's sign).
include(joinpath(KERNEL_DIR, "int_divmod.jl"))

function test_int_divmod(b)
    @testset "int_divmod n=$n" for n in (1, 7, 1025)
        rng = test_rng(n)
        x = rand(rng, Int32(-1000):Int32(999), n)
        y = rand(rng, [Int32(k) for k in -9:9 if k != 0], n)
        q, r = zeros(Int32, n), zeros(Int32, n)
        run!(tack_int_divmod, b, n, x, y, q, r)
        @test q == fld.(x, y)
        @test r == mod.(x, y)
    end
end
