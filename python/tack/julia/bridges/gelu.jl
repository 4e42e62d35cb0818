"""
    tack_gelu!(y, x; approximate = :tanh)

GELU elementwise (tack.ops.gelu): `approximate = :tanh` is `0.5x(1 + tanh(√(2/π)(x +
0.044715x³)))`, NNlib's `gelu`; `approximate = :none` is the exact `0.5x(1 + erf(x/√2))`
(NNlib's `gelu_erf`). Arrays of one size and element type on one backend; returns `y`.
"""
function tack_gelu!(y::AbstractArray{T}, x::AbstractArray{T};
                    approximate::Symbol = :tanh) where {T}
    approximate in (:tanh, :none) ||
        throw(ArgumentError("tack_gelu: approximate must be :tanh or :none, got :$approximate"))
    tk_ops_same_size(:gelu, y, x)
    b = tk_ops_backend(:gelu, y, x)
    k = tk_ops_kernel(TK_GELU_KERNELS, :gelu, (approximate, T, 0))
    (n,) = tk_ops_sizes(:gelu, length(y), length(y))
    tk_ops_launch!(k, b, n, x, y)
    return y
end
