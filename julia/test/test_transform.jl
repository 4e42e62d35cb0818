# tack_transform(x, out): out = sqrt(|x|)
include(joinpath(KERNEL_DIR, "transform.jl"))

function test_transform(b)
    @testset "transform n=$n" for n in (1, 7, 1025)
        x = randn(test_rng(n), Float32, n)
        out = zeros(Float32, n)
        run!(tack_transform, b, n, x, out)
        @test allclose(out, sqrt.(abs.(Float64.(x))); rtol = 2e-6, atol = 1e-7)
    end
end
