# tack_stencil5(u, out, start): 5-point Laplacian of the interior of a C-order (rows, 10) array.
# The column count 10 is baked into this specialization; rows are free. The parallel loop is
# range(1, rows - 1), so n = rows - 2 work-items and the hidden start is 1.
include(joinpath(KERNEL_DIR, "stencil5.jl"))

function test_stencil5(b)
    @testset "stencil5 rows=$rows" for rows in (2, 9, 66)
        U = randn(test_rng(rows), Float32, 10, rows)   # U[j+1, i+1] is u[i, j] (reversed dims)
        O = zeros(Float32, 10, rows)
        run!(tack_stencil5, b, rows - 2, vec(U), vec(O), Int64(1))
        ref = zeros(10, rows)
        for i in 2:rows-1, j in 2:9
            ref[j, i] = 0.25 * (U[j, i-1] + U[j, i+1] + U[j-1, i] + U[j+1, i]) - U[j, i]
        end
        @test allclose(O, ref; rtol = 1e-5, atol = 1e-5)
    end
end
