# tack_ndrange_4d(a, out, sums, __start0, ..., __start3, __ext1, __ext2, __ext3):
# `for i, j, k, m in tack.ndrange(rows, (1, 3), 5, 7)` over C-order (rows, 3, 5, 7) arrays (3, 5
# and 7 compiled in): out = 2a + 1000i + 100j + 10k + m, and sums the total of 1000p + 100q +
# 10r + s over the nested sequential `tack.ndrange(i + 1, (j, 3), 2, (m, m + 2))`. The host passes
# the starts (0, 1, 0, 0) and the extents of the last three dimensions; j = 0 is not in the domain.
include(joinpath(KERNEL_DIR, "ndrange_4d.jl"))

function test_ndrange_4d(b)
    @testset "ndrange_4d rows=$rows" for rows in (1, 3, 7)
        A = randn(test_rng(rows), Float32, 7, 5, 3, rows)  # A[m+1, k+1, j+1, i+1] is a[i, j, k, m]
        out, sums = zeros(Float32, 7, 5, 3, rows), zeros(Int32, 7, 5, 3, rows)
        run!(tack_ndrange_4d, b, rows * 2 * 5 * 7, vec(A), vec(out), vec(sums),
             Int64(0), Int64(1), Int64(0), Int64(0), Int64(2), Int64(5), Int64(7))
        ref, refs = zeros(7, 5, 3, rows), zeros(Int32, 7, 5, 3, rows)
        for i in 0:rows-1, j in 1:2, k in 0:4, m in 0:6
            ref[m+1, k+1, j+1, i+1] = 2.0 * A[m+1, k+1, j+1, i+1] + 1000i + 100j + 10k + m
            refs[m+1, k+1, j+1, i+1] = sum(1000p + 100q + 10r + s
                                           for p in 0:i, q in j:2, r in 0:1, s in m:m+1)
        end
        @test allclose(out, ref; rtol = 1e-6, atol = 1e-6)
        @test sums == refs
    end
end
