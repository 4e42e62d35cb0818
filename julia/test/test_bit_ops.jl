# tack_bit_ops(a, b, out): shifts, xor, not, and on Int32 (wrapping).
include(joinpath(KERNEL_DIR, "bit_ops.jl"))

function test_bit_ops(b)
    @testset "bit_ops n=$n" for n in (1, 7, 1025)
        rng = test_rng(n)
        a = rand(rng, Int32(-5000):Int32(4999), n)
        s = rand(rng, Int32(0):Int32(99), n)
        out = zeros(Int32, n)
        run!(tack_bit_ops, b, n, a, s, out)
        # arithmetic on wide integers, then wrapped: a << k == a * 2^k, a >> 1 == fld(a, 2)
        wide = [xor(Int64(v) * 2^(k & 7), fld(Int64(v), 2)) | (~Int64(v) & 255) for (v, k) in zip(a, s)]
        @test out == wide .% Int32
    end
end
