# Tests of Tack's KernelAbstractions/Atomix stand-ins (julia/test/standin/packages): kernels from
# KernelAbstractions' own test suite (v0.9.41 test/private.jl, test/localmem.jl, test/test.jl,
# https://github.com/JuliaGPU/KernelAbstractions.jl/tree/v0.9.41/test) with KA's expected results,
# and what KA 0.9's CPU backend rejects or loses, rejected or lost here too.
#
#   julia julia/test/standin/test/runtests.jl       (prints TACK_STANDIN_TESTS passed=… last)
using Test
include(joinpath(@__DIR__, "..", "load.jl"))
using KernelAbstractions
import Atomix
import BFloat16s
import StaticArrays
const KA = KernelAbstractions

# -- KA's own kernels (test/private.jl, test/localmem.jl) -----------------------------------

@kernel function private(A)
    @uniform N = prod(@groupsize())
    I = @index(Global, Linear)
    i = @index(Local, Linear)
    priv = @private Int (1,)
    @inbounds begin
        priv[1] = N - i + 1
        @synchronize
        A[I] = priv[1]
    end
end

@kernel function forloop(A, ::Val{N}) where {N}
    I = @index(Global, Linear)
    i = @index(Local, Linear)
    priv = @private Int (N,)
    for j in 1:N
        priv[j] = A[I, j]
    end
    A[I, 1] = 0
    @synchronize
    for j in 1:N
        k = mod1(j + i - 1, N)
        A[k, 1] += priv[j]
        @synchronize
    end
end

@kernel function stmt_form(A)
    @uniform bs = @groupsize()[1]
    @private s = bs ÷ 2
    I = @index(Global, Linear)
    @synchronize
    A[I] = s
end

@kernel function localmem(A)
    N = @uniform prod(@groupsize())
    @uniform begin
        N2 = prod(@groupsize())
    end
    I = @index(Global, Linear)
    i = @index(Local, Linear)
    lmem = @localmem Int (N,)
    @inbounds begin
        lmem[i] = i
        @synchronize
        A[I] = lmem[N2 - i + 1]
    end
end

@kernel function localmem2(A)
    N = @uniform prod(@groupsize())
    I = @index(Global, Linear)
    i = @index(Local, Linear)
    lmem = @localmem Int (N,)
    @inbounds begin
        lmem[i] = i + 3
        for j in 1:2
            lmem[i] -= j
            @synchronize
        end
        A[I] = lmem[N - i + 1]
    end
end

@kernel function index_linear(G, L, P)
    I = @index(Global, Linear)
    i = @index(Local, Linear)
    g = @index(Group, Linear)
    G[I], L[I], P[I] = I, i, g
end

@kernel function index_cartesian(A)
    I = @index(Global, Cartesian)
    A[I] = I[1] + 10 * I[2]
end

# -- what KA's CPU lowering loses or rejects -------------------------------------------------

@kernel function plain_local_across_barrier(out)
    i = @index(Global, Linear)
    v = 2i
    @synchronize()
    out[i] = v          # `v` belonged to the first work-item loop
end

@kernel function lone_barrier_in_branch(out, c)
    i = @index(Global, Linear)
    if c
        @synchronize()  # a branch of one statement is not split (MacroTools.unblock)
    end
    out[i] = 1
end

@kernel function index_inside_expression(out)
    out[@index(Global, Linear)] = 1   # only `x = @index(...)` gets the work-item
end

@kernel function static_groups(out)
    i = @index(Global, Linear)
    out[i] = @index(Local, Linear)
end

@kernel function out_of_bounds(out)
    i = @index(Global, Linear)
    out[i + 1] = 1      # a BoundsError at the last work-item
end

@kernel function uninitialized_localmem(out)
    i = @index(Local, Linear)
    s = @localmem Float32 (4,)
    out[i] = s[i]
end

@kernel function atomics(h, x)
    i = @index(Global, Linear)
    Atomix.@atomic :monotonic h[x[i]] += Int32(1)
end

"""The exception `f()` throws, or `nothing`."""
kernel_error(f) = try
    f()
    nothing
catch e
    e
end

function run_standin_tests()
    @testset "Tack's KernelAbstractions stand-in" begin
        @test KA.STANDIN && Atomix.STANDIN && BFloat16s.STANDIN

        @testset "KA test/private.jl" begin
            A = zeros(Int, 64)
            private(CPU(), 16)(A, ndrange = length(A))
            @test all(A[1:16] .== 16:-1:1) && all(A[49:64] .== 16:-1:1)
            A = ones(Int, 64, 64)
            forloop(CPU())(A, Val(size(A, 2)), ndrange = size(A, 1), workgroupsize = size(A, 1))
            @test all(A[:, 1] .== 64) && all(A[:, 2:end] .== 1)
            B = zeros(Int, 32)
            stmt_form(CPU(), 16)(B, ndrange = 32)
            @test all(B .== 8)
        end

        @testset "KA test/localmem.jl" for k in (localmem(CPU(), 16), localmem2(CPU(), 16))
            A = zeros(Int, 64)
            k(A, ndrange = length(A))
            @test all(A[1:16] .== 16:-1:1) && all(A[17:32] .== 16:-1:1)
        end

        @testset "indices and partition" begin
            G, L, P = zeros(Int, 300), zeros(Int, 300), zeros(Int, 300)
            index_linear(CPU(), 128)(G, L, P, ndrange = 300)  # 3 groups, the last masked
            @test G == 1:300 && L == [mod1(i, 128) for i in 1:300]
            @test P == [cld(i, 128) for i in 1:300]
            G, L, P = zeros(Int, 2000), zeros(Int, 2000), zeros(Int, 2000)
            index_linear(CPU())(G, L, P, ndrange = 2000)      # KA's default: groups of 1024
            @test maximum(L) == 1024 && maximum(P) == 2
            C = zeros(Int, 3, 4)
            index_cartesian(CPU(), (2, 2))(C, ndrange = size(C))
            @test C == [i + 10j for i in 1:3, j in 1:4]
            out = zeros(Int, 8)
            @test_throws ErrorException static_groups(CPU(), 4)(out, ndrange = 8, workgroupsize = 2)
            @test_throws ErrorException static_groups(CPU())(out)    # no ndrange
            static_groups(CPU(), 4)(out, ndrange = 0)                # nothing to run
            @test out == zeros(Int, 8)
        end

        @testset "rejected as KA rejects" begin
            err = try
                @eval @kernel function kernel_return()
                    return
                end
                nothing
            catch e
                e
            end
            @test err isa LoadError && err.error ==
                ErrorException("Return statement not permitted in a kernel function kernel_return")
            err = try
                @eval @kernel function kernel_nested_return(a)
                    f = x -> return x
                    a[1] = f(1)
                end
                nothing
            catch e
                e
            end
            @test err isa LoadError                                # KA walks closures too
            # an exception inside a kernel surfaces as KA 0.10's KernelException naming it
            out = zeros(Int, 4)
            err = kernel_error(() -> plain_local_across_barrier(CPU(), 4)(out, ndrange = 4))
            @test err isa KA.KernelException && err.name == "UndefVarError"
            err = kernel_error(() -> lone_barrier_in_branch(CPU(), 4)(out, true, ndrange = 4))
            @test err isa KA.KernelException && err.name == "ErrorException" &&
                  occursin("@synchronize used outside kernel or not captured", err.reason)
            err = kernel_error(() -> index_inside_expression(CPU())(out, ndrange = 4))
            @test err isa KA.KernelException && err.name == "MethodError"
            err = kernel_error(() -> out_of_bounds(CPU(), 4)(zeros(Int, 3), ndrange = 3))
            @test err isa KA.KernelException && err.name == "BoundsError"
            @test startswith(sprint(showerror, err), "KernelException: A BoundsError was thrown")
            @test_throws LoadError @eval KA.Extras.@unroll n for i in 1:3 end
            # C's "relaxed" is Julia's (and Atomix's) :monotonic
            @test_throws LoadError @eval Atomix.@atomic :relaxed out[1] += 1
        end

        @testset "storage and atomics" begin
            out = zeros(Float32, 4)
            uninitialized_localmem(CPU(), 4)(out, ndrange = 4)
            @test all(isnan, out)   # KA leaves @localmem undefined; the stand-in makes it visible
            h = zeros(Int32, 3)
            atomics(CPU())(h, [1, 3, 3, 2, 3], ndrange = 5)
            @test h == Int32[1, 1, 3]
            a = Float32[NaN, -0.0f0]
            r = Atomix.@atomicreplace :monotonic a[1] NaN32 => 1.0f0   # bits compare: NaN ok
            @test r.old === NaN32 && r.success
            r = Atomix.@atomicreplace :monotonic a[2] 0.0f0 => 1.0f0   # and -0.0 is not 0.0
            @test r.old === -0.0f0 && !r.success
            @test (Atomix.@atomic :monotonic a[1] + 2) == (1.0f0 => 3.0f0)
            @test_throws InexactError Atomix.@atomic :monotonic h[1] + 0.5   # convert, as Atomix
        end

        @testset "StaticArrays' MVector (TackRuntime.tk_private)" begin
            v = StaticArrays.MVector{3,Float32}(undef)
            @test v isa AbstractVector{Float32} && size(v) == (3,) && length(v) == 3
            @test all(isnan, v)   # undefined in StaticArrays; the stand-in makes it visible
            v[2] = 1.5f0
            @test v[2] === 1.5f0
            @test_throws BoundsError v[4]
            @test length(StaticArrays.MVector{0,Int32}(undef)) == 0
        end

        @testset "BFloat16s' BFloat16 (TackRuntime.TkBFloat16) and Base.pkgversion" begin
            B = BFloat16s.BFloat16
            @test B <: AbstractFloat && isbitstype(B) && sizeof(B) == 2
            @test reinterpret(UInt16, reinterpret(B, 0x3fc0)) === 0x3fc0  # bits kept
            @test reinterpret(UInt16, Array(reinterpret(B, UInt16[1, 0x7fc0]))) == [1, 0x7fc0]
            @test_throws MethodError zero(B)  # a storage type: no arithmetic to hide a misuse
            # load.jl's pkgversion where Julia (< 1.9) has none; Base's reads a Project.toml,
            # which the stand-ins lack
            want = VERSION < v"1.9" ? v"0.9.41" : nothing
            @test Base.pkgversion(KA) == want
            @test Base.pkgversion(KA.Extras) == want  # a submodule: its package's
            @test Base.pkgversion(Atomix) === nothing  # a stand-in that states no version
        end
    end
end

let ts = run_standin_tests()
    c = Test.get_test_counts(ts)
    println("TACK_STANDIN_TESTS passed=$(c[1] + c[5])")
end
