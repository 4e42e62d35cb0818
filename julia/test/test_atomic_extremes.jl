# tack_atomic_extremes(x, lo, hi): lo[1] = min(lo[1], x[i]) and hi[1] = max(hi[1], x[i]) for every
# i, atomically: Float32 atomic min/max, i.e. TackRuntime's compare-and-swap loop. A NaN in x loses
# to any number (C's fmin/fmax, like every Tack backend).
include(joinpath(KERNEL_DIR, "atomic_extremes.jl"))

function test_atomic_extremes(b)
    @testset "atomic_extremes n=$n" for n in (1, 7, 1025, 100_000)
        x = randn(test_rng(n), Float32, n)
        n > 3 && (x[3] = NaN32)
        lo, hi = [Inf32], [-Inf32]
        run!(tack_atomic_extremes, b, n, x, lo, hi)
        finite = filter(!isnan, x)
        @test lo == [isempty(finite) ? Inf32 : minimum(finite)]
        @test hi == [isempty(finite) ? -Inf32 : maximum(finite)]
    end
end
