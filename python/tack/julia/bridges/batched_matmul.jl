"""
    tack_batched_matmul!(C, A, B; workgroups = <GPU?>)

`C[:, :, i] = A[:, :, i] * B[:, :, i]` for 3-D `A` (m × k × z), `B` (k × n × z), `C`
(m × n × z), NNlib's `batched_mul` (the batch is the last dimension, NumPy's first: tack.ops'
batched_matmul on (z, ·, ·)); the kernels are matmul.jl's. Returns `C`.
"""
function tack_batched_matmul!(C::AbstractArray{T,3}, A::AbstractArray{T,3},
                              B::AbstractArray{T,3};
                              workgroups::Bool =
                                  tk_ops_workgroups(KernelAbstractions.get_backend(C))
                              ) where {T}
    m, k, z = size(A)
    size(B, 1) == k && size(B, 3) == z && size(C) == (m, size(B, 2), z) ||
        throw(DimensionMismatch("tack_batched_matmul: C $(size(C)) = A $(size(A)) ⊠ " *
                                "B $(size(B)) does not fit"))
    return tk_matmul_run!(:batched_matmul, C, A, B, z, m, k, size(B, 2), workgroups)
end
