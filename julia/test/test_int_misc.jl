# tack_int_misc(a, e, out): integer power by a runtime exponent, min/max, abs, xor with the
# Int32 minimum (a typed typemin literal), all wrapping at Int32.
include(joinpath(KERNEL_DIR, "int_misc.jl"))

function test_int_misc(b)
    @testset "int_misc n=$n" for n in (1, 7, 1025)
        rng = test_rng(n)
        a, e = rand(rng, Int32(-50):Int32(49), n), rand(rng, Int32(0):Int32(8), n)
        out = zeros(Int32, n)
        run!(tack_int_misc, b, n, a, e, out)
        wide = [Int64(v)^k + min(v, 7) - max(v, -7) + abs(v) + (Int64(v) ⊻ -2^31)
                for (v, k) in zip(a, e)]
        @test out == wide .% Int32
    end
end
