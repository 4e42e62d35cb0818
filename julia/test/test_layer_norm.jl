# tack_layer_norm!(y, x, w, b; eps) and tack_layer_norm_stats! (julia/kernels/layer_norm.jl,
# tack.ops.layer_norm) against the definition in Float64 (no NNlib function: Flux's LayerNorm
# is this over dimension 1), every tier: portable, one-read at PER 1/2/32, long rows.
include(joinpath(KERNEL_DIR, "layer_norm.jl"))

"""Each column of `x` normalized: (c - μ) / √(σ² + eps) · w + b, σ² the biased variance; also
μ and 1/√(σ² + eps) per column."""
function ref_layer_norm(x, w, b, eps)
    n = size(x, 1)
    mu = sum(x; dims = 1) ./ n
    var = sum((x .- mu) .^ 2; dims = 1) ./ n
    rstd = 1 ./ sqrt.(var .+ eps)
    return (x .- mu) .* rstd .* w .+ b, vec(mu), vec(rstd)
end

const NORM_CASES = ((37, 5), (300, 2), (5000, 1), (8300, 1), (37, 4, 2))

function test_layer_norm(b)
    for T in ops_half_eltypes(b), dims_ in (T == Float32 ? NORM_CASES :
                                      T == Float16 ? ((37, 5), (5000, 1), (8300, 1)) : ((37, 5),))
        @testset "layer_norm $T $(dims_) workgroups=$wg" for wg in OPS_TIERS
            n, rest = dims_[1], dims_[2:end]
            x = ops_randn(8, T, dims_...; s = 2) .+ T(3)  # an offset: the variance is centred
            w, bias = ops_randn(9, T, n), ops_randn(10, T, n)
            y = ops_zeros(b, T, dims_...)
            mean, rstd = ops_zeros(b, T, rest...), ops_zeros(b, T, rest...)
            tack_layer_norm_stats!(y, mean, rstd, ops_on(b, x), ops_on(b, w), ops_on(b, bias);
                                   eps = 1e-5, workgroups = wg)
            ry, rmu, rr = ref_layer_norm(Float64.(x), Float64.(w), Float64.(bias), 1e-5)
            ops_check(y, ry, :norm, T)
            T == Float16 && half_check(y, ry, :layer_norm, T)
            ops_check(vec(Array(mean)), rmu, :norm, T)
            ops_check(vec(Array(rstd)), rr, :norm, T)
            y2 = ops_zeros(b, T, dims_...)
            tack_layer_norm!(y2, ops_on(b, x); workgroups = wg)  # no weight, no bias
            ops_check(y2, ref_layer_norm(Float64.(x), 1.0, 0.0, 1e-5)[1], :norm, T)
            T == Float16 && half_check(y2, ref_layer_norm(Float64.(x), 1.0, 0.0, 1e-5)[1],
                                       :layer_norm, T)
        end
    end
    @test_throws DimensionMismatch tack_layer_norm!(zeros(Float32, 4, 2), zeros(Float32, 4, 2),
                                                    zeros(Float32, 3))
end
