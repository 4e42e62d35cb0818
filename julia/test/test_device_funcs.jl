# tack_device_funcs(x, y, lo, hi, out): `@tack.func` helpers inlined: a tuple return with an early
# exit (lo, hi = the smaller and larger of x and y), a nested call (x² + y²), an early return
# (x clipped to [-1, 1]) and a local array filled by the callee (the powers c⁰..c³ of the clip).
include(joinpath(KERNEL_DIR, "device_funcs.jl"))

function test_device_funcs(b)
    @test TackRuntime.tk_workgroupsize(tack_device_funcs) === nothing  # local arrays: per work-item
    @testset "device_funcs n=$n" for n in (1, 7, 1025)
        rng = test_rng(n)
        x, y = 1.5f0 .* randn(rng, Float32, n), randn(rng, Float32, n)
        lo, hi, out = zeros(Float32, n), zeros(Float32, n), zeros(Float32, n)
        run!(tack_device_funcs, b, n, x, y, lo, hi, out)
        @test lo == min.(x, y) && hi == max.(x, y)
        ref = map(x, y) do p, q
            p, q = Float64(p), Float64(q)
            c = clamp(p, -1.0, 1.0)
            p^2 + q^2 + 1 + c + c^2 + c^3
        end
        @test allclose(out, ref; rtol = 1e-5, atol = 1e-5)
    end
end
