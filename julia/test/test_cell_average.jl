# tack_cell_average(data, out, n_cells, cs__connectivity, cs__visits, cs__weight): the seed's
# CellSetExplicit (4 points per cell, a compile-time constant) passed as a device-class object,
# which the kernel receives flattened: its arrays `connectivity` and `visits` and its runtime
# scalar `weight` follow the kernel's own parameters. out[c] = weight * mean of data over the
# cell's points (gathered into a per-work-item local array by a method); every visit of a point adds 1
# to visits[point] atomically.
include(joinpath(KERNEL_DIR, "cell_average.jl"))

function test_cell_average(b)
    @test TackRuntime.tk_workgroupsize(tack_cell_average) === nothing  # local arrays: per work-item
    @testset "cell_average cells=$n" for n in (1, 7, 1025)
        rng = test_rng(n)
        npts = n + 3
        conn = rand(rng, Int32(0):Int32(npts - 1), 4 * n)
        visits = rand(rng, Int32(0):Int32(4), npts)
        data = randn(rng, Float32, npts)
        out = zeros(Float32, n)
        ref_visits = copy(visits)
        run!(tack_cell_average, b, n, data, out, Int32(n), conn, visits, 0.5f0)
        ref = zeros(n)
        for c in 1:n
            pts = conn[4c-3:4c] .+ 1
            ref[c] = 0.5 * sum(Float64.(data[pts])) / 4
            for p in pts
                ref_visits[p] += 1
            end
        end
        @test allclose(out, ref; rtol = 1e-6, atol = 1e-6)
        @test visits == ref_visits
    end
end
