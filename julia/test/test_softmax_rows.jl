# tack_softmax_rows(x, out): row-wise softmax of a C-order (rows, 37) array; reference NNlib.
include(joinpath(KERNEL_DIR, "softmax_rows.jl"))

function test_softmax_rows(b)
    skip_without_nnlib(:softmax) && return
    @testset "softmax_rows rows=$rows" for rows in (1, 5, 33)
        X = randn(test_rng(rows), Float32, 37, rows)   # a C-order row is a Julia column
        O = zeros(Float32, 37, rows)
        run!(tack_softmax_rows, b, rows, vec(X), vec(O))
        @test allclose(O, NNlib.softmax(Float64.(X); dims = 1); rtol = 1e-5, atol = 1e-7)
    end
end
