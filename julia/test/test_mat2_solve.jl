# tack_mat2_solve(A, rhs, x, det): per 2×2 matrix M of a `tack.mat2` array (C-order (n, 2, 2): M's
# row r is A[:, r, p] here) its determinant, and inverse(M) @ rhs + transpose(M) @ [1, 2].
import LinearAlgebra  # det and inv in the reference (declared in julia/test/Project.toml)
include(joinpath(KERNEL_DIR, "mat2_solve.jl"))

function test_mat2_solve(b)
    @testset "mat2_solve n=$n" for n in (1, 7, 257)
        rng = test_rng(n)
        Ms = [Float32.([3 0; 0 3] .+ 0.5 .* randn(rng, 2, 2)) for _ in 1:n]
        A = zeros(Float32, 2, 2, n)       # A[c, r, p] is M_p[r, c]: row-major per matrix
        for p in 1:n
            A[:, :, p] = permutedims(Ms[p])
        end
        rhs = randn(rng, Float32, 2, n)
        x, det = zeros(Float32, 2, n), zeros(Float32, n)
        run!(tack_mat2_solve, b, n, vec(A), vec(rhs), vec(x), det)
        M64 = [Float64.(M) for M in Ms]
        ref_x = zeros(2, n)
        for p in 1:n
            ref_x[:, p] = LinearAlgebra.inv(M64[p]) * Float64.(rhs[:, p]) +
                          transpose(M64[p]) * [1.0, 2.0]
        end
        @test allclose(x, ref_x; rtol = 1e-5, atol = 1e-5)
        @test allclose(det, LinearAlgebra.det.(M64); rtol = 1e-5, atol = 1e-5)
    end
end
