# tack_ndrange_2d(a, out, __start0, __start1, __ext1): `for i, j in tack.ndrange(rows, cols)`
# over C-order (rows, 9) arrays (the golden was made with 9 columns, compiled in); the host passes
# the domain's starts and the extent of the last dimension, and rows * cols work-items.
# out[i, j] = a[i, j] * i - j.
include(joinpath(KERNEL_DIR, "ndrange_2d.jl"))

function test_ndrange_2d(b)
    @testset "ndrange_2d rows=$rows" for rows in (1, 5, 40)
        cols = 9
        A = randn(test_rng(rows), Float32, cols, rows)    # A[j+1, i+1] is a[i, j]
        out = zeros(Float32, cols, rows)
        run!(tack_ndrange_2d, b, rows * cols, vec(A), vec(out), Int64(0), Int64(0), Int64(cols))
        ref = [Float64(A[j+1, i+1]) * i - j for j in 0:cols-1, i in 0:rows-1]
        @test allclose(out, ref; rtol = 1e-6, atol = 1e-6)
    end
end
