# tack_skip_negative(x, out): `continue` in the parallel loop (rendered as `if !(x < 0) ... end`);
# skipped elements keep their old value.
include(joinpath(KERNEL_DIR, "skip_negative.jl"))

function test_skip_negative(b)
    @testset "skip_negative n=$n" for n in (1, 7, 1025)
        x = randn(test_rng(n), Float32, n)
        out = fill(7.0f0, n)
        run!(tack_skip_negative, b, n, x, out)
        @test allclose(out, [v < 0 ? 7.0 : sqrt(Float64(v)) for v in x]; rtol = 2e-6, atol = 1e-7)
    end
end
