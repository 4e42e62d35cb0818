# tack_shifts(a, u, s, out_a, out_u): `>>` is arithmetic on Int32 and logical on UInt32.
include(joinpath(KERNEL_DIR, "shifts.jl"))

function test_shifts(b)
    @testset "shifts n=$n" for n in (1, 7, 1025)
        rng = test_rng(n)
        a, u = rand(rng, Int32, n), rand(rng, UInt32, n)
        out_a, out_u = zeros(Int32, n), zeros(UInt32, n)
        run!(tack_shifts, b, n, a, u, Int32(5), out_a, out_u)
        # as arithmetic: a >> 5 == fld(a, 32), a << 3 == a * 8 (wrapping), u >> 5 == u ÷ 32
        @test out_a == [xor(fld(v, Int32(32)), ~(v * Int32(8))) for v in a]
        @test out_u == [(v ÷ UInt32(32)) | (v * UInt32(2)) for v in u]
    end
end
