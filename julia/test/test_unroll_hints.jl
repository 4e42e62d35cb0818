# tack_unroll_hints(x, out, steps, n): loops under tack.unroll (KA's @unroll) — a count on a
# runtime trip count, a full unroll of a constant one, a negative step with continue and break.
include(joinpath(KERNEL_DIR, "unroll_hints.jl"))

function unroll_steps(i)
    t = 0
    for k in i:-3:0
        k % 5 == 0 && continue
        t > 600 && break
        t += k
    end
    return t
end

function test_unroll_hints(b)
    @testset "unroll_hints n=$n" for n in (1, 7, 1025)
        x = randn(test_rng(n), Float32, n)
        out = zeros(Float32, n)
        steps = zeros(Int32, n)
        run!(tack_unroll_hints, b, n, x, out, steps, Int32(n))
        ref = [sum(Float64(x[mod(i + j, n) + 1]) * 0.5^(n - 1 - j) for j in 0:n-1) +
               3 * Float64(x[i + 1]) for i in 0:n-1]
        @test allclose(out, ref; rtol = 1e-5, atol = 1e-5)
        @test steps == Int32.(unroll_steps.(0:n-1))
    end
end
