# tack_rms_norm!(y, x, w; eps) (julia/kernels/rms_norm.jl, tack.ops.rms_norm) against the
# definition in Float64, every tier (portable, one-read at PER 1/2/32, long rows).
include(joinpath(KERNEL_DIR, "rms_norm.jl"))

# 37 and 300 off the 256 lanes (PER 1 and 2), PER 32, 8300 > 256 × 32 (long rows), 3-D
const RMS_NORM_CASES = ((37, 5), (300, 2), (5000, 1), (8300, 1), (37, 4, 2))

ref_rms_norm(x, w, eps) = x ./ sqrt.(sum(x .^ 2; dims = 1) ./ size(x, 1) .+ eps) .* w

function test_rms_norm(b)
    for T in ops_half_eltypes(b), dims_ in (T == Float32 ? RMS_NORM_CASES :
                                      T == Float16 ? ((37, 5), (5000, 1), (8300, 1)) : ((37, 5),))
        @testset "rms_norm $T $(dims_) workgroups=$wg" for wg in OPS_TIERS
            x = ops_randn(11, T, dims_...; s = 2)
            w = ops_randn(12, T, dims_[1])
            y = ops_zeros(b, T, dims_...)
            tack_rms_norm!(y, ops_on(b, x), ops_on(b, w); eps = 1e-6, workgroups = wg)
            ops_check(y, ref_rms_norm(Float64.(x), Float64.(w), 1e-6), :norm, T)
            T == Float16 && half_check(y, ref_rms_norm(Float64.(x), Float64.(w), 1e-6),
                                       :rms_norm, T)
            tack_rms_norm!(y, ops_on(b, x); workgroups = wg)
            ops_check(y, ref_rms_norm(Float64.(x), 1.0, 1e-6), :norm, T)
            T == Float16 && half_check(y, ref_rms_norm(Float64.(x), 1.0, 1e-6), :rms_norm, T)
        end
    end
end
