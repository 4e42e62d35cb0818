# tack_ndrange_3d(out, a, b, __start0, __start1, __start2, __ext1, __ext2):
# `for i, j, k in tack.ndrange((1, a), (2, b), 3)` writing out[i, j, k] = 100 i + 10 j + k into a
# C-order (rows, 10, 3) Int32 array (10 and 3 compiled in). The host passes the starts (1, 2, 0),
# the extents of the last two dimensions and the trip count; an empty domain runs nothing.
include(joinpath(KERNEL_DIR, "ndrange_3d.jl"))

function test_ndrange_3d(b)
    @testset "ndrange_3d rows=$rows a=$a b=$bb" for (rows, a, bb) in
            ((2, 2, 10), (8, 8, 9), (17, 16, 10), (5, 1, 4), (5, 4, -3))
        out = zeros(Int32, 3, 10, rows)                   # out[k+1, j+1, i+1] is out[i, j, k]
        e0, e1 = max(a - 1, 0), max(bb - 2, 0)
        run!(tack_ndrange_3d, b, e0 * e1 * 3, vec(out), Int32(a), Int32(bb),
             Int64(1), Int64(2), Int64(0), Int64(e1), Int64(3))
        ref = zeros(Int32, 3, 10, rows)
        for i in 1:a-1, j in 2:bb-1, k in 0:2
            ref[k+1, j+1, i+1] = 100i + 10j + k
        end
        @test out == ref
    end
end
