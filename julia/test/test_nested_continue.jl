# tack_nested_continue(x, out): `continue` nested in an `if` of the parallel loop (rendered as a
# one-trip `while true ... break end`).
include(joinpath(KERNEL_DIR, "nested_continue.jl"))

function test_nested_continue(b)
    @testset "nested_continue n=$n" for n in (1, 7, 1025)
        x = 2 .* randn(test_rng(n), Float32, n)
        out = fill(7.0f0, n)
        run!(tack_nested_continue, b, n, x, out)
        ref = [v > 1 ? 7.0f0 : (v > 0 ? 2v : v - 1) for v in x]
        @test out == ref
    end
end
