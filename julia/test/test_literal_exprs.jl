# tack_literal_exprs(a, out, top): integer expressions of literals are computed exactly (2^40,
# 10^12 ÷ 7, 1 << 33 as Int64; 2^64 - 256 as UInt64), not in 32 bits.
include(joinpath(KERNEL_DIR, "literal_exprs.jl"))

function test_literal_exprs(b)
    @testset "literal_exprs n=$n" for n in (1, 7, 1025)
        rng = test_rng(n)
        a = rand(rng, Int32(-1000):Int32(1000), n)
        out, top = zeros(Int64, n), zeros(UInt64, n)
        run!(tack_literal_exprs, b, n, a, out, top)
        c = div(Int64(10)^12, 7) - (Int64(1) << 33)
        @test out == [xor(Int64(v) * Int64(2)^40 + c, ~(Int64(2)^40)) for v in a]
        @test top == [UInt64(v & Int32(255)) + (typemax(UInt64) - UInt64(255)) for v in a]
    end
end
