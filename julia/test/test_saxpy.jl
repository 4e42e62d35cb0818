# tack_saxpy(a, x, y, out): out = a * x + y
include(joinpath(KERNEL_DIR, "saxpy.jl"))

function test_saxpy(b)
    @testset "saxpy n=$n" for n in (1, 7, 1025)
        rng = test_rng(n)
        x, y = randn(rng, Float32, n), randn(rng, Float32, n)
        out = zeros(Float32, n)
        run!(tack_saxpy, b, n, 2.5f0, x, y, out)
        @test allclose(out, 2.5 .* x .+ y; rtol = 1e-6, atol = 1e-6)
    end
end
