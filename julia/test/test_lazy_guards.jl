# tack_lazy_guards(x, out, n): `a if c else b` and `and` evaluate only what they must: the last
# work-item's x[i + 1] is out of bounds, which Julia's bounds checks would report.
include(joinpath(KERNEL_DIR, "lazy_guards.jl"))

function test_lazy_guards(b)
    @testset "lazy_guards n=$n" for n in (1, 7, 1025)
        x = randn(test_rng(n), Float32, n)
        out = zeros(Float32, n)
        run!(tack_lazy_guards, b, n, x, out, Int32(n))
        ref = [i < n ? (x[i+1] > 0 ? x[i+1] + 10.0f0 : x[i+1]) : -1.0f0 for i in 1:n]
        @test out == ref
    end
end
