# tack_math_builtins(x, out): a sum of Tack's math builtins.
include(joinpath(KERNEL_DIR, "math_builtins.jl"))

function test_math_builtins(b)
    @testset "math_builtins n=$n" for n in (1, 7, 1025)
        x = randn(test_rng(n), Float32, n)
        out = zeros(Float32, n)
        run!(tack_math_builtins, b, n, x, out)
        v = Float64.(x)
        ref = sin.(v) .+ cos.(v) .+ tanh.(v) .+ exp.(-v .^ 2) .+ log.(1 .+ v .^ 2) .+
              atan.(v, 1.5) .+ min.(v, 0.25) .+ max.(abs.(v), 0.1) .+ pi
        @test allclose(out, ref; rtol = 1e-5, atol = 1e-5)
    end
end
