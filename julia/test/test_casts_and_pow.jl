# tack_casts_and_pow(x, out_i, out_f): int(x) truncation, integer power, i8/u8 casts, float pow,
# floor/ceil.
include(joinpath(KERNEL_DIR, "casts_and_pow.jl"))

function test_casts_and_pow(b)
    @testset "casts_and_pow n=$n" for n in (1, 7, 1025)
        x = 40 .* rand(test_rng(n), Float32, n)
        out_i, out_f = zeros(Int32, n), zeros(Float32, n)
        run!(tack_casts_and_pow, b, n, x, out_i, out_f)
        k = trunc.(Int, x)                    # 0 <= k < 40: i8 and i32 hold k^3 and k exactly
        @test out_i == Int32.(k .^ 3 .+ k .+ 255)
        ref = sqrt.(Float64.(k)) .+ Float64.(x) .^ 2 .+ floor.(Float64.(x)) .+ ceil.(-Float64.(x))
        @test allclose(out_f, ref; rtol = 1e-6, atol = 1e-5)
    end
end
