# tack_float_divmod(a, b, q, r) on Float64: Python's float // and % (CPython's algorithm).
include(joinpath(KERNEL_DIR, "float_divmod.jl"))

function test_float_divmod(b)
    skip_without_f64(b) && return
    @testset "float_divmod n=$n" for n in (1, 7, 1025)
        rng = test_rng(n)
        x = 10 .* randn(rng, n)
        y = 3 .* randn(rng, n) .+ 0.1
        q, r = zeros(n), zeros(n)
        run!(tack_float_divmod, b, n, x, y, q, r)
        @test allclose(q, fld.(x, y); rtol = 1e-12, atol = 1e-12)
        @test allclose(r, mod.(x, y); rtol = 1e-12, atol = 1e-12)
    end
end
