# tack_atomic_returns(a, u, lo, hi, x, v, old_a, old_u, old_lo, old_hi): each work-item i updates
# element i of a (Int32 add), u (UInt32 max: unsigned order), lo/hi (Float32 min/max through the
# compare-and-swap loop) and stores the value each atomic returned: the element before the update.
# NaNs in x, lo and hi check C's fmin/fmax rule (a number wins over a NaN).
include(joinpath(KERNEL_DIR, "atomic_returns.jl"))

fmin_ref(a, b) = isnan(a) ? b : isnan(b) ? a : min(a, b)
fmax_ref(a, b) = isnan(a) ? b : isnan(b) ? a : max(a, b)

function test_atomic_returns(b)
    @testset "atomic_returns n=$n" for n in (1, 7, 1025)
        rng = test_rng(n)
        a = rand(rng, typemin(Int32):(typemax(Int32) - Int32(3)), n)
        u, v = rand(rng, UInt32, n), rand(rng, UInt32, n)
        lo, hi, x = randn(rng, Float32, n), randn(rng, Float32, n), randn(rng, Float32, n)
        x[1:5:end] .= NaN32
        lo[2:7:end] .= NaN32
        hi[3:7:end] .= NaN32
        a0, u0, lo0, hi0 = copy(a), copy(u), copy(lo), copy(hi)
        olds = (zeros(Int32, n), zeros(UInt32, n), zeros(Float32, n), zeros(Float32, n))
        run!(tack_atomic_returns, b, n, a, u, lo, hi, x, v, olds...)
        @test a == a0 .+ Int32(3)
        @test u == max.(u0, v)
        @test isequal(lo, fmin_ref.(lo0, x))
        @test isequal(hi, fmax_ref.(hi0, x))
        @test olds[1] == a0 && olds[2] == u0
        @test isequal(olds[3], lo0) && isequal(olds[4], hi0)
    end
end
