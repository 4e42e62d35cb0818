"""
    tack_relu!(y, x)

`y .= max.(x, 0)` (tack.ops.relu; NaN stays NaN), NNlib's `relu`, for arrays of one
size and element type on one backend; returns `y`.
"""
function tack_relu!(y::AbstractArray{T}, x::AbstractArray{T}) where {T}
    tk_ops_same_size(:relu, y, x)
    b = tk_ops_backend(:relu, y, x)
    k = tk_ops_kernel(TK_RELU_KERNELS, :relu, (:map, T, 0))
    (n,) = tk_ops_sizes(:relu, length(y), length(y))
    tk_ops_launch!(k, b, n, x, y)
    return y
end
