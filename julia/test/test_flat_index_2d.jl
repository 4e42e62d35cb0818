# tack_flat_index_2d(a, out): one flat index into a 2-D array: out[i] = 2 * a.flat[i].
include(joinpath(KERNEL_DIR, "flat_index_2d.jl"))

function test_flat_index_2d(b)
    @testset "flat_index_2d n=$n" for n in (1, 7, 1025)
        A = randn(test_rng(n), Float32, 3, n)
        out = zeros(Float32, 3n)
        run!(tack_flat_index_2d, b, 3n, vec(A), out)
        @test allclose(out, 2 .* vec(Float64.(A)); rtol = 1e-7)
    end
end
