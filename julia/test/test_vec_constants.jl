# tack_vec_constants(v, k, out, outs): module-level vector/matrix constants W3 = (0.25, 0.5, 0.25),
# PRIMES = Int32 (2, 3, 5, 7) and ROT90 = [0 -1; 1 0]: out = ROT90 v + ROT90[k % 2] W3[k] and
# outs = W3[k] + PRIMES[k] + W3 · (v.x, v.y, 1) + sum(PRIMES) (0-based k; a runtime index past a
# table reads its last value).
include(joinpath(KERNEL_DIR, "vec_constants.jl"))

function test_vec_constants(b)
    @testset "vec_constants n=$n" for n in (1, 7, 1025)
        rng = test_rng(n)
        V = randn(rng, Float32, 2, n)
        k = rand(rng, Int32(0):Int32(5), n)
        out, outs = zeros(Float32, 2, n), zeros(Float32, n)
        run!(tack_vec_constants, b, n, vec(V), k, vec(out), outs)
        w3, primes, rot = [0.25, 0.5, 0.25], [2, 3, 5, 7], [0.0 -1.0; 1.0 0.0]
        ref, refs = zeros(2, n), zeros(n)
        for i in 1:n
            v, kk = Float64.(V[:, i]), k[i]
            wk = w3[min(kk, 2) + 1]
            ref[:, i] = rot * v .+ rot[kk % 2 + 1, :] .* wk
            refs[i] = wk + primes[min(kk, 3) + 1] + (0.25v[1] + 0.5v[2] + 0.25) + 17
        end
        @test allclose(out, ref; rtol = 1e-6, atol = 1e-6)
        @test allclose(outs, refs; rtol = 1e-6, atol = 1e-6)
    end
end
