# tack_add!(y, x1, x2; alpha) (julia/kernels/add.jl, tack.ops.add) against x1 .+ alpha .* x2.
include(joinpath(KERNEL_DIR, "add.jl"))

function test_add(b)
    @testset "add $T $(dims)" for T in ops_half_eltypes(b), dims in ((1,), (37, 5), (1031,), (3, 4, 5))
        x1, x2 = ops_randn(1, T, dims...), ops_randn(2, T, dims...)
        y = ops_zeros(b, T, dims...)
        tack_add!(y, ops_on(b, x1), ops_on(b, x2); alpha = 0.75)
        ops_check(y, Float64.(x1) .+ 0.75 .* Float64.(x2), :elementwise, T)
        T == Float16 && half_check(y, Float64.(x1) .+ 0.75 .* Float64.(x2), :add, T)
        tack_add!(y, ops_on(b, x1), ops_on(b, x2))  # alpha = 1
        ops_check(y, Float64.(x1) .+ Float64.(x2), :elementwise, T)
        T == Float16 && half_check(y, Float64.(x1) .+ Float64.(x2), :add, T)
    end
    z3, z4 = zeros(Float32, 3), zeros(Float32, 4)
    @test_throws DimensionMismatch tack_add!(z3, z3, z4)
end
