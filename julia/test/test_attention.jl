# tack_attention!(O, Q, K, V; scale, causal) (julia/kernels/attention.jl, tack.ops.attention) on
# (d, s, h, b) arrays against the definition in Float64 and NNlib.dot_product_attention (which
# takes (d·h, s, b) with `nheads` and returns (output, scores)), causal and not, both tiers.
include(joinpath(KERNEL_DIR, "attention.jl"))

"""softmax(Kᵀq · scale) over the keys j (j ≤ i when causal), times V, per query i."""
function ref_attention(Q, K, V, scale, causal)
    d, s, h, nb = size(Q)
    O = zeros(d, s, h, nb)
    for bb in 1:nb, hh in 1:h, i in 1:s
        keys = causal ? i : s
        sc = [scale * sum(Q[:, i, hh, bb] .* K[:, j, hh, bb]) for j in 1:keys]
        p = exp.(sc .- maximum(sc))
        p ./= sum(p)
        O[:, i, hh, bb] = sum(p[j] .* V[:, j, hh, bb] for j in 1:keys)
    end
    return O
end

"""NNlib's layout: (d, s, h, b) → (d·h, s, b), the heads inside the feature dimension."""
to_nnlib(X) = reshape(permutedims(X, (1, 3, 2, 4)), size(X, 1) * size(X, 3), size(X, 2), size(X, 4))
from_nnlib(X, d, h) = permutedims(reshape(X, d, h, size(X, 2), size(X, 3)), (1, 3, 2, 4))

# (d, s, h, b): a sequence off every tile (37), one over a workgroup of 256 queries (300)
const ATTENTION_CASES = ((16, 37, 2, 2), (16, 300, 1, 1), (32, 5, 3, 1))

function test_attention(b)
    for T in ops_eltypes(b), dims_ in (T == Float32 ? ATTENTION_CASES : ((16, 37, 2, 1),))
        for causal in (false, true)
            @testset "attention $T $(dims_) causal=$causal workgroups=$wg" for wg in OPS_TIERS
                d, s, h, nb = dims_
                Q, K, V = (ops_randn(16 + i, T, dims_...) for i in 1:3)
                O = ops_zeros(b, T, dims_...)
                tack_attention!(O, ops_on(b, Q), ops_on(b, K), ops_on(b, V); causal = causal,
                                workgroups = wg)
                F = map(x -> Float64.(x), (Q, K, V))
                ops_check(O, ref_attention(F..., 1 / sqrt(d), causal), :attention, T)
                with_nnlib(:dot_product_attention, map(to_nnlib, F)...) do
                    mask = causal ? NNlib.make_causal_mask(to_nnlib(F[1])) : nothing
                    x, _ = NNlib.dot_product_attention(map(to_nnlib, F)...; nheads = h,
                                                       mask = mask)
                    ops_check(O, from_nnlib(x, d, h), :attention, T)
                end
            end
        end
    end
    Q = ops_randn(20, Float32, 16, 9, 1, 1)
    O = zeros(Float32, 16, 9, 1, 1)
    tack_attention!(O, Q, Q, Q; scale = 0.3)
    @test allclose(O, ref_attention(Float64.(Q), Float64.(Q), Float64.(Q), 0.3, false);
                   rtol = 2e-4, atol = 2e-5)
    z8 = zeros(Float32, 8, 4, 1, 1)  # head dimension 8: not rendered
    @test_throws ArgumentError tack_attention!(z8, copy(z8), copy(z8), copy(z8))
end
