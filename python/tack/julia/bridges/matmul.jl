"""
    tk_matmul_run!(op, C, A, B, z, m, k, n, workgroups)

`C[:, :, i] = A[:, :, i] * B[:, :, i]` for `z` column-major products of `A` (m × k) and `B`
(k × n). Julia's column-major `A` is NumPy's C-order array of the reversed shape, `Aᵀ`, so
C = A B is computed as the C-order product Cᵀ = Bᵀ Aᵀ: tack.ops' kernels get (B, A) with the
sizes (n, k, m).
"""
function tk_matmul_run!(op::Symbol, C::AbstractArray{T}, A::AbstractArray{T},
                        B::AbstractArray{T}, z::Integer, m::Integer, k::Integer, n::Integer,
                        workgroups::Bool) where {T}
    be = tk_ops_backend(op, C, A, B)
    length(C) == 0 && return C
    k == 0 && return fill!(C, zero(T))
    total = max(length(A), length(B), length(C)) + 64 * (m + n + k) * z
    z32, rm, rk, rn = tk_ops_sizes(op, total, z, n, k, m)  # the C-order product's sizes
    if workgroups
        tiles = z * cld(n, 128) * cld(m, 128)  # 128 x 128 output tiles (tack.ops.matmul)
        k_ = tk_ops_kernel(TK_MATMUL_KERNELS, op, (:tiled, T, 0))
        tk_ops_launch!(k_, be, TK_OPS_LANES * tiles, B, A, C, z32, rm, rk, rn)
    else
        fill!(C, zero(T))  # the portable kernel accumulates into C
        k_ = tk_ops_kernel(TK_MATMUL_KERNELS, op, (:rows4, T, 0))
        tk_ops_launch!(k_, be, z * cld(n, 4), B, A, C, z32, rm, rk, rn)
    end
    return C
end

"""
    tack_matmul!(C, A, B; workgroups = <GPU?>)

`C = A * B` for matrices `A` (m × k), `B` (k × n), `C` (m × n) of one element type on one
backend (tack.ops.matmul; on GPUs 128 × 128 shared-memory tiles). Returns `C`.
"""
function tack_matmul!(C::AbstractMatrix{T}, A::AbstractMatrix{T}, B::AbstractMatrix{T};
                      workgroups::Bool = tk_ops_workgroups(KernelAbstractions.get_backend(C))
                      ) where {T}
    m, k = size(A)
    size(B, 1) == k && size(C) == (m, size(B, 2)) || throw(DimensionMismatch(
        "tack_matmul: C $(size(C)) = A $(size(A)) * B $(size(B)) does not fit"))
    return tk_matmul_run!(:matmul, C, A, B, 1, m, k, size(B, 2), workgroups)
end
