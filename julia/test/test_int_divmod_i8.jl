# tack_int_divmod_i8(a, b, q, r) on Int8: floor division wraps (-128 // -1 == -128).
include(joinpath(KERNEL_DIR, "int_divmod_i8.jl"))

function test_int_divmod_i8(b)
    @testset "int_divmod_i8 n=$n" for n in (1, 7, 1025)
        rng = test_rng(n)
        x = rand(rng, Int8, n)
        x[1] = typemin(Int8)
        y = rand(rng, [Int8(k) for k in -9:9 if k != 0], n)
        y[1] = Int8(-1)
        q, r = zeros(Int8, n), zeros(Int8, n)
        run!(tack_int_divmod_i8, b, n, x, y, q, r)
        @test q == fld.(Int.(x), Int.(y)) .% Int8      # computed wide, then wrapped
        @test r == mod.(Int.(x), Int.(y)) .% Int8
    end
end
