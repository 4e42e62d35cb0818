# tack_iterate_plate(scale, p__ny, p__nx, p__temp, p__out, __start0, __start1, __ext1):
# `for c in p` over a device-class `Plate` whose class declares __tack_iterate__ = ("nx", "ny")
# (fastest first), desugared to `tack.ndrange(p.ny, p.nx)`: c[0] (c.x) runs over the nx columns,
# c[1] (c.y) over the ny rows. The object arrives flattened: its runtime sizes ny and nx (Int32)
# and its C-order (ny, 9) arrays temp and out (the golden was made with 9 columns, compiled in);
# the host passes the domain's starts and the extent of its last (fastest) dimension, and
# ny * nx work-items. out[y, x] = temp[y, x] * scale + (x - 2y).
include(joinpath(KERNEL_DIR, "iterate_plate.jl"))

function test_iterate_plate(b)
    @testset "iterate_plate rows=$ny" for ny in (1, 5, 40)
        nx = 9
        T = randn(test_rng(ny), Float32, nx, ny)    # T[x+1, y+1] is temp[y, x]
        out = zeros(Float32, nx, ny)
        run!(tack_iterate_plate, b, ny * nx, 0.5f0, Int32(ny), Int32(nx), vec(T), vec(out),
             Int64(0), Int64(0), Int64(nx))
        ref = [Float64(T[x+1, y+1]) * 0.5 + (x - 2y) for x in 0:nx-1, y in 0:ny-1]
        @test allclose(out, ref; rtol = 1e-6, atol = 1e-6)
    end
end
