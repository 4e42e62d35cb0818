# tack_mat3_f64(F, u, F_inv, out): Float64 3×3 matrices (C-order (n, 3, 3): row r of A is
# F[:, r, p] here) and 3-vectors; F_inv = inverse(A) and
# out = (A Aᵀ + det(A) I) u + u @ A + (u ⊗ u) u + A[1, 2] trace(A) (0-based indices in Tack).
import LinearAlgebra  # det, inv, tr in the reference (declared in julia/test/Project.toml)
include(joinpath(KERNEL_DIR, "mat3_f64.jl"))

function test_mat3_f64(b)
    skip_without_f64(b) && return
    @testset "mat3_f64 n=$n" for n in (1, 7, 129)
        rng = test_rng(n)
        As = [[3.0 0 0; 0 3 0; 0 0 3] .+ 0.5 .* randn(rng, 3, 3) for _ in 1:n]
        F = zeros(3, 3, n)
        for p in 1:n
            F[:, :, p] = permutedims(As[p])
        end
        U = randn(rng, 3, n)
        Ainv, out = zeros(3, 3, n), zeros(3, n)
        run!(tack_mat3_f64, b, n, vec(F), vec(U), vec(Ainv), vec(out))
        for p in 1:n
            A, w = As[p], U[:, p]
            B = A * transpose(A) + LinearAlgebra.det(A) * [1.0 0 0; 0 1 0; 0 0 1]
            ref = B * w + transpose(A) * w + (w * transpose(w)) * w .+
                  A[2, 3] * LinearAlgebra.tr(A)
            @test allclose(permutedims(Ainv[:, :, p]), LinearAlgebra.inv(A);
                           rtol = 1e-10, atol = 1e-10)
            @test allclose(out[:, p], ref; rtol = 1e-10, atol = 1e-10)
        end
    end
end
