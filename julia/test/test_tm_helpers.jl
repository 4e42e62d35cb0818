# tack_tm_helpers(x, v, w, out, out3): `tack.math` (GLSL definitions) on scalars and vec3s:
# out = fract(x) + mix(1, 3, x) + clamp(x, -0.5, 0.75) + saturate(x) + smoothstep(-1, 1, x)
#       + step(0.25, x) + sign(x) + length(v) + distance(v, w),
# out3 = normalize(v) + mix(v, w, 0.25) + clamp(w, -0.5, 0.5) + sign(v) + fract(w).
include(joinpath(KERNEL_DIR, "tm_helpers.jl"))

function test_tm_helpers(b)
    @testset "tm_helpers n=$n" for n in (1, 7, 1025)
        rng = test_rng(n)
        x = randn(rng, Float32, n)
        V, W = randn(rng, Float32, 3, n), 2.0f0 .* randn(rng, Float32, 3, n)
        out, out3 = zeros(Float32, n), zeros(Float32, 3, n)
        run!(tack_tm_helpers, b, n, x, vec(V), vec(W), out, vec(out3))
        ref, ref3 = zeros(n), zeros(3, n)
        for i in 1:n
            a, v, w = Float64(x[i]), Float64.(V[:, i]), Float64.(W[:, i])
            t = clamp((a + 1) / 2, 0.0, 1.0)
            ref[i] = (a - floor(a)) + (1 - a + 3a) + clamp(a, -0.5, 0.75) + clamp(a, 0.0, 1.0) +
                     t * t * (3 - 2t) + (a < 0.25 ? 0.0 : 1.0) + sign(a) +
                     sqrt(sum(abs2, v)) + sqrt(sum(abs2, v .- w))
            ref3[:, i] = v ./ sqrt(sum(abs2, v)) .+ (0.75 .* v .+ 0.25 .* w) .+
                         clamp.(w, -0.5, 0.5) .+ sign.(v) .+ (w .- floor.(w))
        end
        @test allclose(out, ref; rtol = 1e-5, atol = 1e-5)
        @test allclose(out3, ref3; rtol = 1e-5, atol = 1e-5)
    end
end
