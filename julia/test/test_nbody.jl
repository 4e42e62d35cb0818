# tack_nbody(pos, acc, n, eps2): softened gravitational acceleration; pos is C-order (n, 4)
# (x, y, z, mass), acc (n, 3).
include(joinpath(KERNEL_DIR, "nbody.jl"))

function test_nbody(b)
    @testset "nbody n=$n" for n in (1, 7, 129)
        rng = test_rng(n)
        P = vcat(randn(rng, Float32, 3, n), 0.5f0 .+ 0.5f0 .* rand(rng, Float32, 1, n))
        A = zeros(Float32, 3, n)
        run!(tack_nbody, b, n, vec(P), vec(A), Int32(n), 0.01f0)
        ref = zeros(3, n)
        for i in 1:n, j in 1:n
            d = Float64.(P[1:3, j]) .- Float64.(P[1:3, i])
            r2 = sum(abs2, d) + Float64(0.01f0)
            ref[:, i] .+= d .* (P[4, j] / r2^1.5)
        end
        @test allclose(A, ref; rtol = 2e-4, atol = 2e-4)
    end
end
