# tack_random_bits(states, us, n, frame): per element i, the state `random.seed(i, frame)` and
# two `random.uniform` draws with the states after each (states is C-order (n, 3), us (n, 2)).
# The reference ports Tack's generator (python/tack/lib/random.py, docs/language.md "Random
# numbers": an LCG step, then the PCG RXS-M-XS output) to UInt32 arithmetic; states and uniforms
# agree to the bit. PCG_TABLE anchors the port to the Python generator's own numbers.
# test_init_particles.jl uses these helpers too.
include(joinpath(KERNEL_DIR, "random_bits.jl"))

# (index, stream, seed(index, stream), advance(stream)) from julia/tools/pcg_table.py
const PCG_TABLE = [
    (0, 0, 0x30be035e, 0x07bb2fe2),
    (1, 0, 0x5e6301b0, 0x07bb2fe2),
    (5, 123456, 0x0b13e552, 0x8696326f),
    (1024, 123456, 0xb8530557, 0x8696326f),
    (2147483647, 7, 0x7ed8e257, 0x7e67121c),
    (4294967295, 4294967295, 0xb8731594, 0xe62a4902),
]

function pcg_advance(s::UInt32)
    x = s * UInt32(747796405) + UInt32(2891336453)          # wraps modulo 2^32
    w = xor(x >> ((x >> 28) + UInt32(4)), x) * UInt32(277803737)
    return xor(w >> 22, w)
end
pcg_seed(index::Integer, stream::Integer) =
    pcg_advance(xor(index % UInt32, pcg_advance(stream % UInt32)))
pcg_unit(s::UInt32) = Float32(s >> 8) * Float32(2.0^-24)   # exact: s >> 8 < 2^24

function test_random_bits(b)
    @testset "the port against Python's generator" for (i, s, seed, adv) in PCG_TABLE
        @test pcg_seed(i, s) == seed && pcg_advance(s % UInt32) == adv
    end
    @testset "random_bits n=$n" for n in (1, 7, 1025)
        states, us = zeros(UInt32, 3, n), zeros(Float32, 2, n)
        run!(tack_random_bits, b, n, vec(states), vec(us), Int32(n), Int32(123456))
        ref_states, ref_us = zeros(UInt32, 3, n), zeros(Float32, 2, n)
        for i in 0:n-1
            s = pcg_seed(i, 123456)
            ref_states[1, i+1] = s
            for k in 1:2
                ref_us[k, i+1] = pcg_unit(s)
                s = pcg_advance(s)
                ref_states[k+1, i+1] = s
            end
        end
        @test states == ref_states
        @test us == ref_us
        @test all(0 .<= us .< 1)
    end
end
