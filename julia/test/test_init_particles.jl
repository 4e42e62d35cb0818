# tack_init_particles(pos, vel, n, frame): the seed's particle initialisation with `tack.random`:
# per element, seed(i, frame), then uniform u, normal z (Box-Muller) and a unit direction d;
# pos = d (0.4 + 0.6 u), vel = d z (vec3 arrays, C-order (n, 3)). The reference draws the same
# numbers with the UInt32 port of the generator in test_random_bits.jl, in Float64 from there.
include(joinpath(KERNEL_DIR, "init_particles.jl"))

function test_init_particles(b)
    @testset "init_particles n=$n" for n in (1, 7, 1025)
        pos, vel = zeros(Float32, 3, n), zeros(Float32, 3, n)
        run!(tack_init_particles, b, n, vec(pos), vec(vel), Int32(n), Int32(7))
        ref_pos, ref_vel = zeros(3, n), zeros(3, n)
        for i in 0:n-1
            s = pcg_seed(i, 7)
            u = Float64(pcg_unit(s)); s = pcg_advance(s)
            u1 = 1.0 - pcg_unit(s); s = pcg_advance(s)
            z = sqrt(-2.0 * log(u1)) * cos(2pi * pcg_unit(s)); s = pcg_advance(s)
            a = 2pi * pcg_unit(s); s = pcg_advance(s)
            dz = 2.0 * pcg_unit(s) - 1.0
            r = sqrt(1.0 - dz^2)
            d = [r * cos(a), r * sin(a), dz]
            ref_pos[:, i+1] = d .* (0.4 + 0.6 * u)
            ref_vel[:, i+1] = d .* z
        end
        @test allclose(pos, ref_pos; rtol = 1e-5, atol = 1e-5)
        @test allclose(vel, ref_vel; rtol = 1e-5, atol = 1e-5)
        radius = sqrt.(sum(abs2, Float64.(pos); dims = 1))
        @test all(0.4 - 1e-5 .<= radius .<= 1.0 + 1e-5)
    end
end
