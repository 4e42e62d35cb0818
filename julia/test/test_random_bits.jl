# tack_random_bits(states, us, n, frame): per element i, the state `random.seed(i, frame)` and
# two `random.uniform` draws with the states after each (states is C-order (n, 3), us (n, 2)).
# The reference ports Tack's generator (python/tack/lib/random.py, docs/language.md "Random numbers": an LCG step,
# then the PCG RXS-M-XS output) to UInt32 arithmetic; states and uniforms agree to the bit.
# test_init_particles.jl uses these helpers too.
include(joinpath(KERNEL_DIR, "random_bits.jl"))

function pcg_advance(s::UInt32)
    x = s * UInt32(747796405) + UInt32(2891336453)          # wraps modulo 2^32
    w = xor(x >> ((x >> 28) + UInt32(4)), x) * UInt32(277803737)
    return xor(w >> 22, w)
end
pcg_seed(index::Integer, stream::Integer) =
    pcg_advance(xor(index % UInt32, pcg_advance(stream % UInt32)))
pcg_unit(s::UInt32) = Float32(s >> 8) * Float32(2.0^-24)   # exact: s >> 8 < 2^24

function test_random_bits(b)
    @test pcg_seed(5, 123456) == pcg_advance(UInt32(5) ⊻ pcg_advance(UInt32(123456)))
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
