"""
    tack_log_softmax!(y, x; dims = 1, workgroups = <GPU?>)

`y = x .- m .- log.(sum(exp.(x .- m); dims))` with `m` the maximum along `dims`
(tack.ops.log_softmax), NNlib's `logsoftmax(x; dims)`; the kernels are softmax.jl's.
Returns `y`.
"""
function tack_log_softmax!(y::AbstractArray, x::AbstractArray; dims::Integer = 1,
                           workgroups::Bool = tk_ops_workgroups(KernelAbstractions.get_backend(x)))
    return tk_softmax_run!(:log_softmax, y, x, dims, 1, workgroups)
end
