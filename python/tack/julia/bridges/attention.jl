"""
    tack_attention!(O, Q, K, V; scale = 1/sqrt(d), causal = false, workgroups = <GPU?>)

Scaled dot-product attention (tack.ops.attention) on arrays of size (d, s, h, b) — head
dimension, sequence, heads, batch: NumPy's (b, h, s, d) C-order arrays, the same memory —:
`O[:, i, h, b] = Σⱼ softmax(K[:, :, h, b]ᵀ Q[:, i, h, b] * scale)ⱼ V[:, j, h, b]`, keys
`j > i` left out when `causal`. The kernels bake the head dimension: `d` must be one of 16, 32, 64,
128. NNlib's `dot_product_attention` takes (d·h, s, b) arrays with `nheads = h`, heads split
from the first dimension. Returns `O`.
"""
function tack_attention!(O::AbstractArray{T,4}, Q::AbstractArray{T,4}, K::AbstractArray{T,4},
                         V::AbstractArray{T,4}; scale::Union{Nothing,Real} = nothing,
                         causal::Bool = false,
                         workgroups::Bool = tk_ops_workgroups(KernelAbstractions.get_backend(Q))
                         ) where {T}
    op = :attention
    tk_ops_same_size(op, Q, K, V, O)
    be = tk_ops_backend(op, O, Q, K, V)
    d, s, h, nb = size(Q)
    length(Q) == 0 && return O
    sc = scale === nothing ? inv(sqrt(T(d))) : T(scale)
    rows32, s32, bh32 = tk_ops_sizes(op, length(Q) + TK_OPS_LANES * d, s * h * nb, s, h * nb)
    if workgroups
        k = tk_ops_kernel(TK_ATTENTION_KERNELS, op, (:blocked, T, d))
        groups = h * nb * cld(s, TK_OPS_LANES)
        tk_ops_launch!(k, be, groups * TK_OPS_LANES, Q, K, V, O, bh32, s32, sc, Int32(causal))
    else
        k = tk_ops_kernel(TK_ATTENTION_KERNELS, op, (:rows, T, d))
        tk_ops_launch!(k, be, s * h * nb, Q, K, V, O, rows32, s32, sc, Int32(causal))
    end
    return O
end
