# tack_barrier_shapes(data, out, n): a 256-lane workgroup kernel with `@synchronize` inside a `for`
# (rendered as a `while` over counters), inside a `while` whose barrier sits in an `if`, and inside
# an `if`/`else` on the scalar n. Per group of 256 values d with sum s: out = (d shifted left by
# one lane + 2) / s when n > 256 (two groups or more), else -d.
include(joinpath(KERNEL_DIR, "barrier_shapes.jl"))

function test_barrier_shapes(b)
    @test TackRuntime.tk_workgroupsize(tack_barrier_shapes) == 256
    @testset "barrier_shapes groups=$g" for g in (1, 2, 5)
        D = 0.1f0 .+ 0.9f0 .* rand(test_rng(g), Float32, 256, g)   # column = one workgroup
        D[:, 2:2:end] .*= -1
        out = zeros(Float32, 256 * g)
        run!(tack_barrier_shapes, b, 256 * g, vec(D), out, Int32(256 * g))
        ref = similar(D, Float64)
        for j in 1:g
            d = Float64.(D[:, j])
            s = sum(d)
            ref[:, j] = g > 1 ? (circshift(d, -1) .+ 2) ./ s : -d
        end
        @test allclose(out, vec(ref); rtol = 1e-5, atol = 1e-6)
    end
end
