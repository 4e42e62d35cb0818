# tack_weak_literals_f64(x, out): float literals take Float64 next to Float64 data; 1 / 3 of two
# integers is a Float32 division; a captured constant 2.
include(joinpath(KERNEL_DIR, "weak_literals_f64.jl"))

function test_weak_literals_f64(b)
    skip_without_f64(b) && return
    @testset "weak_literals_f64 n=$n" for n in (1, 7, 1025)
        x = randn(test_rng(n), n)
        out = zeros(n)
        run!(tack_weak_literals_f64, b, n, x, out)
        @test allclose(out, x .* 0.1 .+ 0.1 .+ Float64(1.0f0 / 3.0f0) .+ 2.0;
                       rtol = 1e-15, atol = 1e-15)
    end
end
