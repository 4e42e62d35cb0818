# tack_ndrange_5d(out, stop, __start0, ..., __start4, __ext1, ..., __ext4): `d0, d1, d2, d3, d4 =
# out.shape` before the loop, then `for i, j, k, m, q in tack.ndrange(d0, d1, (2, stop), d3, d4)`
# writing out[i, j, k, m, q] = 10000i + 1000j + 100k + 10m + q into a C-order (7, 1, 7, 3, 5)
# Int32 array (every extent compiled in: the unpacked shape is read in the kernel). The host passes
# the starts (0, 0, 2, 0, 0) and the extents of the last four dimensions; stop = 2 runs nothing.
include(joinpath(KERNEL_DIR, "ndrange_5d.jl"))

function test_ndrange_5d(b)
    @testset "ndrange_5d stop=$stop" for stop in (6, 7, 2)
        out = zeros(Int32, 5, 3, 7, 1, 7)                 # out[q+1, m+1, k+1, j+1, i+1]
        e2 = max(stop - 2, 0)
        run!(tack_ndrange_5d, b, 7 * 1 * e2 * 3 * 5, vec(out), Int32(stop),
             Int64(0), Int64(0), Int64(2), Int64(0), Int64(0),
             Int64(1), Int64(e2), Int64(3), Int64(5))
        ref = zeros(Int32, 5, 3, 7, 1, 7)
        for i in 0:6, j in 0:0, k in 2:stop-1, m in 0:2, q in 0:4
            ref[q+1, m+1, k+1, j+1, i+1] = 10000i + 1000j + 100k + 10m + q
        end
        @test out == ref
    end
end
