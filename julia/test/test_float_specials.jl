# tack_float_specials(x, out): typed special literals (Inf32, NaN tests, 1.0f-7, 3.0f38, -0.0).
include(joinpath(KERNEL_DIR, "float_specials.jl"))

function test_float_specials(b)
    @testset "float_specials n=$n" for n in (6, 9, 100)
        x = vcat(Float32[NaN, 3.3f38, 0, -0.0, 1, -2], randn(test_rng(n), Float32, n - 6))
        out = zeros(Float32, n)
        run!(tack_float_specials, b, n, x, out)
        ref = map(x) do v
            isnan(v) ? -Inf32 : v > 3.0f38 ? Inf32 : iszero(v) ? copysign(1.0f-7, v) :
                v * 1.5f-7 + 2.5f6
        end
        @test allclose(out, ref; rtol = 1e-6)
        @test signbit(out[4]) && !signbit(out[3])      # copysign saw -0.0 and +0.0
    end
end
