"""
    tack_rms_norm!(y, x, w = nothing; eps = 1e-6, workgroups = <GPU?>)

`y = x ./ sqrt.(mean(x .^ 2; dims = 1) .+ eps) .* w` over dimension 1 (NumPy's last axis, as in
tack.ops.rms_norm); `w` a vector of `size(x, 1)`, ones when `nothing`. Returns `y`.
"""
function tack_rms_norm!(y::AbstractArray{T}, x::AbstractArray{T}, w = nothing;
                        eps::Real = 1e-6,
                        workgroups::Bool = tk_ops_workgroups(KernelAbstractions.get_backend(x))
                        ) where {T}
    op = :rms_norm
    tk_ops_same_size(op, y, x)
    (ndims(x) >= 1 && size(x, 1) > 0) ||
        throw(ArgumentError("tack_$op: x needs a non-empty dimension 1, got size $(size(x))"))
    n = size(x, 1)
    rows = length(x) ÷ n
    be = tk_ops_backend(op, y, x)
    wv = tk_ops_vector(op, w, T, be, n, 1)
    rows == 0 && return y
    rows32, n32 = tk_ops_sizes(op, max(length(x) + 512 * n + 8 * TK_OPS_LANES, TK_OPS_LANES * rows), rows, n)
    args = (x, wv, y, rows32, n32, tk_ops_float(T)(eps))
    if !workgroups
        tk_ops_launch!(tk_ops_kernel(TK_RMS_NORM_KERNELS, op, (:rows, T, 0)), be, rows, args...)
    elseif n <= TK_OPS_CACHED_MAX
        key = (:cached, T, tk_ops_per_lane(n))
        k = tk_ops_kernel(TK_RMS_NORM_KERNELS, op, key)
        tk_ops_launch!(k, be, TK_OPS_LANES * rows, args...)
    else
        key = (:long, T, 0)
        k = tk_ops_kernel(TK_RMS_NORM_KERNELS, op, key)
        tk_ops_launch!(k, be, TK_OPS_LANES * rows, args...)
    end
    return y
end
