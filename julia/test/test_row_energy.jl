# tack_row_energy(data, out): per row of a C-order (rows, 7) array, the sum of x + x^2, staged
# through a 14-element per-work-item scratch array (Tack's local_array_like, `tk_private`).
include(joinpath(KERNEL_DIR, "row_energy.jl"))

function test_row_energy(b)
    @test TackRuntime.tk_workgroupsize(tack_row_energy) === nothing  # local arrays: per work-item
    @testset "row_energy rows=$rows" for rows in (1, 7, 1025)
        D = Float32.(rand(test_rng(rows), -20:19, 7, rows))   # D[j+1, r+1] is data[r, j]
        out = zeros(Float32, rows)
        run!(tack_row_energy, b, rows, vec(D), out)
        ref = [sum(Int64(v) + Int64(v)^2 for v in D[:, r]) for r in 1:rows]
        @test out == Float32.(ref)   # small integers: exact in any summation order
    end
end
