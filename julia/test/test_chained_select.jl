# tack_chained_select(x, out, lo, hi): 1 if lo < x <= hi, else -1 if x < lo or x is NaN, else 0.
include(joinpath(KERNEL_DIR, "chained_select.jl"))

function test_chained_select(b)
    @testset "chained_select n=$n" for n in (1, 7, 1025)
        rng = test_rng(n)
        x = [rand(rng) < 0.1 ? NaN32 : randn(rng, Float32) for _ in 1:n]
        out = zeros(Float32, n)
        run!(tack_chained_select, b, n, x, out, -0.5f0, 0.5f0)
        ref = [(-0.5 < v <= 0.5) ? 1.0f0 : ((v < -0.5 || isnan(v)) ? -1.0f0 : 0.0f0) for v in x]
        @test out == ref
    end
end
