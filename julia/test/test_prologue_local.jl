# tack_prologue_local(x, out): a local assigned before the parallel loop is re-seeded for every
# iteration: out = x * 4. This specialization bakes len(x) == 7.
include(joinpath(KERNEL_DIR, "prologue_local.jl"))

function test_prologue_local(b)
    @testset "prologue_local" begin
        x = randn(test_rng(7), Float32, 7)
        out = zeros(Float32, 7)
        run!(tack_prologue_local, b, 7, x, out)
        @test allclose(out, 4 .* Float64.(x); rtol = 1e-7)
    end
end
