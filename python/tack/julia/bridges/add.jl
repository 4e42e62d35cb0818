"""
    tack_add!(y, x1, x2; alpha = 1)

`y .= x1 .+ alpha .* x2` (tack.ops.add) for arrays of one size and element type on one
backend; returns `y`.
"""
function tack_add!(y::AbstractArray{T}, x1::AbstractArray{T}, x2::AbstractArray{T};
                   alpha::Real = one(T)) where {T}
    tk_ops_same_size(:add, y, x1, x2)
    b = tk_ops_backend(:add, y, x1, x2)
    k = tk_ops_kernel(TK_ADD_KERNELS, :add, (:map, T, 0))
    (n,) = tk_ops_sizes(:add, length(y), length(y))
    tk_ops_launch!(k, b, n, x1, x2, y, tk_ops_float(T)(alpha))
    return y
end
