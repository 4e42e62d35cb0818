# tack_vec_geometry(a, b, out, dots, flags): two vec3 arrays (C-order (n, 3), 3×n here); per
# element the unit normal of a × b scaled by a·b plus the componentwise larger of a and b (a mask
# and `select`), a·b + |a||b|, and any(a > b) + 2 all(a < 0.5) + 4 count(a > b).
include(joinpath(KERNEL_DIR, "vec_geometry.jl"))

vec_geometry_cross(u, v) = [u[2] * v[3] - u[3] * v[2], u[3] * v[1] - u[1] * v[3],
                            u[1] * v[2] - u[2] * v[1]]

function test_vec_geometry(b)
    @testset "vec_geometry n=$n" for n in (1, 7, 257)
        rng = test_rng(n)
        A, B = randn(rng, Float32, 3, n), randn(rng, Float32, 3, n)
        out, dots, flags = zeros(Float32, 3, n), zeros(Float32, n), zeros(Int32, n)
        run!(tack_vec_geometry, b, n, vec(A), vec(B), vec(out), dots, flags)
        ref_out, ref_dots, ref_flags = zeros(3, n), zeros(n), zeros(Int32, n)
        for i in 1:n
            u, v = Float64.(A[:, i]), Float64.(B[:, i])
            c = vec_geometry_cross(u, v)
            d = sum(u .* v)
            m = u .> v
            ref_out[:, i] = ifelse.(m, u, v) .+ (c ./ sqrt(sum(abs2, c))) .* d
            ref_dots[i] = d + sqrt(sum(abs2, u)) * sqrt(sum(abs2, v))
            ref_flags[i] = any(m) + 2 * all(u .< 0.5) + 4 * count(m)
        end
        @test allclose(out, ref_out; rtol = 1e-5, atol = 1e-5)
        @test allclose(dots, ref_dots; rtol = 1e-5, atol = 1e-5)
        @test flags == ref_flags
    end
end
