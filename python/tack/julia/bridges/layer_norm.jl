"""
    tk_layer_norm_run!(y, mean, rstd, x, w, b, eps, workgroups)

Layer normalization of `x` over dimension 1 (NumPy's last axis): each column `c` becomes
`(c .- μ) ./ sqrt(σ² + eps) .* w .+ b` (biased variance σ²), with `mean[j] = μ` and
`rstd[j] = 1/sqrt(σ² + eps)` of column `j` (tack.ops.layer_norm, one kernel for all three).
"""
function tk_layer_norm_run!(op::Symbol, y::AbstractArray{T}, mean::AbstractArray{T},
                            rstd::AbstractArray{T}, x::AbstractArray{T}, w, bias, eps::Real,
                            workgroups::Bool) where {T}
    tk_ops_same_size(op, y, x)
    (ndims(x) >= 1 && size(x, 1) > 0) ||
        throw(ArgumentError("tack_$op: x needs a non-empty dimension 1, got size $(size(x))"))
    n = size(x, 1)
    rows = length(x) ÷ n
    length(mean) == rows == length(rstd) || throw(DimensionMismatch(
        "tack_$op: mean and rstd need $rows elements (one per column of x)"))
    be = tk_ops_backend(op, y, mean, rstd, x)
    wv = tk_ops_vector(op, w, T, be, n, 1)
    bv = tk_ops_vector(op, bias, T, be, n, 0)
    rows == 0 && return y
    rows32, n32 = tk_ops_sizes(op, max(length(x) + 512 * n + 8 * TK_OPS_LANES, TK_OPS_LANES * rows), rows, n)
    args = (x, wv, bv, y, mean, rstd, rows32, n32, tk_ops_float(T)(eps))
    if !workgroups
        tk_ops_launch!(tk_ops_kernel(TK_LAYER_NORM_KERNELS, op, (:rows, T, 0)), be, rows, args...)
    elseif n <= TK_OPS_CACHED_MAX
        key = (:cached, T, tk_ops_per_lane(n))
        k = tk_ops_kernel(TK_LAYER_NORM_KERNELS, op, key)
        tk_ops_launch!(k, be, TK_OPS_LANES * rows, args...)
    else
        key = (:long, T, 0)
        k = tk_ops_kernel(TK_LAYER_NORM_KERNELS, op, key)
        tk_ops_launch!(k, be, TK_OPS_LANES * rows, args...)
    end
    return y
end

"""
    tack_layer_norm!(y, x, w = nothing, b = nothing; eps = 1e-5, workgroups = <GPU?>)

`y = (x .- μ) ./ sqrt.(σ² .+ eps) .* w .+ b` over dimension 1 (each column normalized: NumPy's
last axis, as in tack.ops.layer_norm and Flux's `LayerNorm`); `w`, `b` vectors of
`size(x, 1)`, ones and zeros when `nothing`. Returns `y`.
"""
function tack_layer_norm!(y::AbstractArray{T}, x::AbstractArray{T}, w = nothing, b = nothing;
                          eps::Real = 1e-5,
                          workgroups::Bool = tk_ops_workgroups(KernelAbstractions.get_backend(x))
                          ) where {T}
    be = KernelAbstractions.get_backend(x)
    rows = size(x, 1) == 0 ? 0 : length(x) ÷ size(x, 1)
    mean = KernelAbstractions.allocate(be, T, rows)
    rstd = KernelAbstractions.allocate(be, T, rows)
    return tk_layer_norm_run!(:layer_norm, y, mean, rstd, x, w, b, eps, workgroups)
end

"""
    tack_layer_norm_stats!(y, mean, rstd, x, w = nothing, b = nothing; eps = 1e-5, workgroups)

`tack_layer_norm!` that also writes each column's mean and reciprocal standard deviation
`1/sqrt(σ² + eps)` into `mean` and `rstd`, arrays of one element per column of `x` (for `x`
of size `(n, rest...)`, e.g. of size `rest`; Python's `return_stats = True`). Returns
`(y, mean, rstd)`.
"""
function tack_layer_norm_stats!(y::AbstractArray{T}, mean::AbstractArray{T},
                                rstd::AbstractArray{T}, x::AbstractArray{T}, w = nothing,
                                b = nothing; eps::Real = 1e-5,
                                workgroups::Bool =
                                    tk_ops_workgroups(KernelAbstractions.get_backend(x))
                                ) where {T}
    tk_layer_norm_run!(:layer_norm, y, mean, rstd, x, w, b, eps, workgroups)
    return y, mean, rstd
end
