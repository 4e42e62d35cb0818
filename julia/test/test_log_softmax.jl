# tack_log_softmax!(y, x; dims) (julia/kernels/log_softmax.jl, tack.ops.log_softmax, the
# kernels of softmax.jl) against the definition in Float64 and NNlib.logsoftmax.
include(joinpath(KERNEL_DIR, "log_softmax.jl"))

function ref_log_softmax(x; dims)
    s = x .- maximum(x; dims = dims)
    return s .- log.(sum(exp.(s); dims = dims))
end

const LOG_SOFTMAX_CASES = (((37, 5), 1), ((300, 3), 1), ((8300, 1), 1), ((37, 5), 2))

function test_log_softmax(b)
    for T in ops_half_eltypes(b), (dims_, d) in (T == Float32 ? LOG_SOFTMAX_CASES :
                                                    T == Float16 ? (((37, 5), 1), ((8300, 1), 1)) :
                                                    (((37, 5), 1),))
        @testset "log_softmax $T $(dims_) dims=$d workgroups=$wg" for wg in OPS_TIERS
            x = ops_randn(7, T, dims_...; s = 3)
            y = ops_zeros(b, T, dims_...)
            tack_log_softmax!(y, ops_on(b, x); dims = d, workgroups = wg)
            ops_check(y, ref_log_softmax(Float64.(x); dims = d), :softmax, T)
            T == Float16 && half_check(y, ref_log_softmax(Float64.(x); dims = d), :log_softmax,
                                       T; dims = d)
            with_nnlib(:logsoftmax, Float64.(x)) do
                ops_check(y, NNlib.logsoftmax(Float64.(x); dims = d), :softmax, T)
                T == Float16 && half_check(y, NNlib.logsoftmax(Float64.(x); dims = d),
                                           :log_softmax, T; dims = d)
            end
        end
    end
    test_softmax_plus_inf(b, tack_log_softmax!, true)  # test_softmax.jl
end
