"""
    tk_softmax_run!(op, y, x, dims, want_log, workgroups)

Softmax (`want_log = 0`) or log-softmax (1) of `x` along `dims` into `y`, as tack.ops does it.
Julia's column-major `x` is NumPy's C-order array of the reversed shape, so Julia's `dims` is
NumPy's axis `ndims(x) - dims`: along `dims = 1` (NNlib's default, each column a row of the
C-order array) the row kernels run, along another dimension the column kernel, whose
neighbouring work-items read neighbouring elements.
"""
function tk_softmax_run!(op::Symbol, y::AbstractArray{T}, x::AbstractArray{T}, dims::Integer,
                         want_log::Integer, workgroups::Bool) where {T}
    tk_ops_same_size(op, y, x)
    1 <= dims <= ndims(x) ||
        throw(ArgumentError("tack_$op: dims = $dims is out of range for $(ndims(x)) dimensions"))
    b = tk_ops_backend(op, y, x)
    length(x) == 0 && return y
    n = size(x, dims)
    inner = prod(size(x)[1:dims-1])  # NumPy's elements after the axis
    rows = length(x) ÷ n
    # a row's last lane may index up to TK_OPS_LANES * per past its start (the Python wrapper's
    # bound)
    total = max(length(x) + 512 * n + 8 * TK_OPS_LANES, TK_OPS_LANES * rows)
    rows32, n32, inner32 = tk_ops_sizes(op, total, rows, n, inner)
    flag = Int32(want_log)
    if inner > 1
        k = tk_ops_kernel(TK_SOFTMAX_KERNELS, op, (:columns, T, 0))
        tk_ops_launch!(k, b, rows, x, y, rows32, n32, inner32, flag)
    elseif !workgroups
        k = tk_ops_kernel(TK_SOFTMAX_KERNELS, op, (:rows, T, 0))
        tk_ops_launch!(k, b, rows, x, y, rows32, n32, flag)
    elseif n <= TK_OPS_CACHED_MAX
        k = tk_ops_kernel(TK_SOFTMAX_KERNELS, op, (:cached, T, tk_ops_per_lane(n)))
        tk_ops_launch!(k, b, TK_OPS_LANES * rows, x, y, rows32, n32, flag)
    else
        k = tk_ops_kernel(TK_SOFTMAX_KERNELS, op, (:online, T, 0))
        tk_ops_launch!(k, b, TK_OPS_LANES * rows, x, y, rows32, n32, flag)
    end
    return y
end

"""
    tack_softmax!(y, x; dims = 1, workgroups = <GPU?>)

`y = exp.(x .- m) ./ sum(exp.(x .- m); dims)` with `m` the maximum along `dims` (tack.ops.softmax),
NNlib's `softmax(x; dims)`. `workgroups` picks the workgroup kernels (default on GPUs) or the
portable ones (default on KA's CPU backend); both compute the same function. Returns `y`.
"""
function tack_softmax!(y::AbstractArray, x::AbstractArray; dims::Integer = 1,
                       workgroups::Bool = tk_ops_workgroups(KernelAbstractions.get_backend(x)))
    return tk_softmax_run!(:softmax, y, x, dims, 0, workgroups)
end
