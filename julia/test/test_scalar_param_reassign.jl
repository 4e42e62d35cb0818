# tack_scalar_param_reassign(out, bias): a scalar parameter assigned in the parallel loop is a
# per-iteration local seeded from the argument: out[i] = iseven(i) ? 2 * bias : bias.
include(joinpath(KERNEL_DIR, "scalar_param_reassign.jl"))

function test_scalar_param_reassign(b)
    @testset "scalar_param_reassign n=$n" for n in (1, 7, 1025)
        out = zeros(Int32, n)
        run!(tack_scalar_param_reassign, b, n, out, Int32(5))
        @test out == [iseven(i) ? Int32(10) : Int32(5) for i in 0:n-1]
    end
end
