"""
    tack_silu!(y, x)

`y .= x .* sigmoid.(x)` (tack.ops.silu), NNlib's `swish`, for arrays of one size and
element type on one backend; returns `y`.
"""
function tack_silu!(y::AbstractArray{T}, x::AbstractArray{T}) where {T}
    tk_ops_same_size(:silu, y, x)
    b = tk_ops_backend(:silu, y, x)
    k = tk_ops_kernel(TK_SILU_KERNELS, :silu, (:map, T, 0))
    (n,) = tk_ops_sizes(:silu, length(y), length(y))
    tk_ops_launch!(k, b, n, x, y)
    return y
end
