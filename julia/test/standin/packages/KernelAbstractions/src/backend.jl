# Backends, the kernel object, the launch and what runs inside a work-group (KA v0.9.41
# src/KernelAbstractions.jl, src/nditeration.jl, src/compiler.jl and src/cpu.jl).

abstract type Backend end
abstract type GPU <: Backend end

"""`CPU(; static = false)`: KernelAbstractions' CPU backend (here: groups run serially)."""
struct CPU <: Backend
    static::Bool
    CPU(; static::Bool = false) = new(static)
end

isgpu(::GPU) = true
isgpu(::CPU) = false
synchronize(::CPU) = nothing
functional(::CPU) = true
functional(::Backend) = missing
supports_float64(::Backend) = true
supports_atomics(::Backend) = true
supports_unified(::CPU) = true
pagelock!(::CPU, x) = nothing
unsafe_free!(::AbstractArray) = nothing

get_backend(::Array) = CPU()
function get_backend(A::AbstractArray)
    P = parent(A)
    P isa typeof(A) &&
        throw(ArgumentError("Implement `KernelAbstractions.get_backend(::$(typeof(A)))`"))
    return get_backend(P)
end

allocate(::CPU, ::Type{T}, dims::Tuple) where {T} = Array{T}(undef, dims)
allocate(backend::Backend, T::Type, dims...) = allocate(backend, T, dims)
zeros(b::Backend, ::Type{T}, dims...) where {T} = fill!(allocate(b, T, dims...), zero(T))
ones(b::Backend, ::Type{T}, dims...) where {T} = fill!(allocate(b, T, dims...), one(T))

function copyto!(::CPU, A, B)
    length(A) == length(B) || error("Arrays must match in length")
    Base.mightalias(A, B) && error("Arrays may not alias")
    return Base.copyto!(A, B)
end

# -- the kernel object ---------------------------------------------------------------------

"""A kernel bound to a backend: `WG`/`ND` are static sizes (tuples) or `nothing` (dynamic)."""
struct Kernel{B<:Backend,F}
    backend::B
    f::F
    workgroupsize::Union{Nothing,Tuple{Vararg{Int}}}
    ndrange::Union{Nothing,Tuple{Vararg{Int}}}
end

backend(k::Kernel) = k.backend
_tuple(x::Integer) = (Int(x),)
_tuple(x::Tuple) = map(Int, x)
_tuple(::Nothing) = nothing

function construct(backend::Backend, f, wg, nd, generate_cpu::Bool)
    isgpu(backend) && error("Tack's KernelAbstractions stand-in has no GPU backend")
    generate_cpu || error("This kernel is unavailable for backend CPU")
    return Kernel(backend, f, _tuple(wg), _tuple(nd))
end

const CPU_GRAINSIZE = 1024

"""KA's default CPU workgroup: the whole ndrange up to 1024 work-items, else 1024 of them."""
function default_cpu_workgroupsize(ndrange)
    n = prod(ndrange)
    iszero(n) && return map(one, ndrange)
    n <= CPU_GRAINSIZE && return ndrange
    available = Ref(CPU_GRAINSIZE)
    return ntuple(length(ndrange)) do i
        dim, remaining = ndrange[i], available[]
        remaining == 0 && return 1
        remaining <= dim && (available[] = 0; return remaining)
        available[] = remaining ÷ dim
        return dim
    end
end

function partition_error(k::Kernel, ndrange, wg)
    error("""
        Can not partition kernel!

        You created a dynamically sized kernel, but forgot to provide runtime
        parameters for the kernel. Either provide them statically if known
        or dynamically.
        NDRange(Static):  $(k.ndrange)
        NDRange(Dynamic): $(ndrange)
        Workgroupsize(Static):  $(k.workgroupsize)
        Workgroupsize(Dynamic): $(wg)
    """)
end

"""The launch's ndrange, workgroup size (padded with ones), group grid and bounds check."""
function launch_config(k::Kernel, ndrange, workgroupsize)
    ndrange, wg = _tuple(ndrange), _tuple(workgroupsize)
    if k.ndrange !== nothing
        ndrange !== nothing && ndrange != k.ndrange &&
            error("Static NDRange ($(k.ndrange)) and launch NDRange ($ndrange) differ")
        ndrange = k.ndrange
    end
    if k.workgroupsize !== nothing
        wg !== nothing && wg != k.workgroupsize &&
            error("Static WorkgroupSize ($(k.workgroupsize)) and launch WorkgroupSize $(wg) differ")
        wg = k.workgroupsize
    elseif wg === nothing && ndrange !== nothing
        wg = default_cpu_workgroupsize(ndrange)
    end
    (ndrange === nothing || wg === nothing) && partition_error(k, ndrange, wg)
    @assert length(wg) <= length(ndrange)
    wg = ntuple(i -> i <= length(wg) ? wg[i] : 1, length(ndrange))
    groups = ntuple(i -> cld(ndrange[i], wg[i]), length(ndrange))
    check = any(i -> mod(ndrange[i], wg[i]) != 0, 1:length(ndrange))
    return ndrange, wg, groups, check
end

"""What `@index`, `@groupsize` and the work-item loops read inside one group."""
struct Context{N}
    group::CartesianIndex{N}
    groups::CartesianIndices{N}
    items::CartesianIndices{N}
    ndrange::CartesianIndices{N}
    check::Bool
end

function (k::Kernel{CPU})(args...; ndrange = nothing, workgroupsize = nothing)
    nd, wg, groups, check = launch_config(k, ndrange, workgroupsize)
    prod(groups) == 0 && return nothing
    grid, items, range = CartesianIndices(groups), CartesianIndices(wg), CartesianIndices(nd)
    for g in grid
        try
            k.f(Context(g, grid, items, range, check), args...)
        catch err
            err isa InterruptException && rethrow()
            throw(KernelException(string(nameof(typeof(err))), sprint(showerror, err)))
        end
    end
    return nothing
end

"""
    KernelException

What an exception inside a kernel becomes at the launch, as on KernelAbstractions 0.10's CPU
backend (POCL), where the faulting work-item returns and the host throws a `KernelException`
naming the exception (`src/pocl/compiler/exceptions.jl`, KernelAbstractions.jl#763), not as on
0.9's CPU backend, where the Julia exception itself unwinds: the stand-in models what 0.10 users
see. `name` is the exception's type and `reason` its message (what 0.10 records at `-g1`).
"""
struct KernelException <: Exception
    name::String
    reason::String
end

function Base.showerror(io::IO, err::KernelException)
    article = first(uppercase(err.name)) in ('A', 'E', 'I', 'O', 'U') ? "An" : "A"
    print(io, "KernelException: $article $(err.name) was thrown on device ",
          "Tack's stand-in CPU: ", err.reason)
end

# -- inside a group (the names KA's macros call) ---------------------------------------------

@inline __workitems_iterspace(ctx::Context) = ctx.items
@inline function __global(ctx::Context{N}, I::CartesianIndex{N}) where {N}
    return CartesianIndex(ntuple(d -> (ctx.group.I[d] - 1) * size(ctx.items, d) + I.I[d], N))
end
@inline __validindex(ctx::Context, I::CartesianIndex) =
    !ctx.check || __global(ctx, I) in ctx.ndrange

@inline __index_Local_Linear(ctx::Context, I::CartesianIndex) = LinearIndices(ctx.items)[I]
@inline __index_Group_Linear(ctx::Context, ::CartesianIndex) = LinearIndices(ctx.groups)[ctx.group]
@inline __index_Global_Linear(ctx::Context, I::CartesianIndex) =
    LinearIndices(ctx.ndrange)[__global(ctx, I)]
@inline __index_Local_Cartesian(::Context, I::CartesianIndex) = I
@inline __index_Group_Cartesian(ctx::Context, ::CartesianIndex) = ctx.group
@inline __index_Global_Cartesian(ctx::Context, I::CartesianIndex) = __global(ctx, I)
@inline __index_Local_NTuple(ctx, I...) = Tuple(__index_Local_Cartesian(ctx, I...))
@inline __index_Group_NTuple(ctx, I...) = Tuple(__index_Group_Cartesian(ctx, I...))
@inline __index_Global_NTuple(ctx, I...) = Tuple(__index_Global_Cartesian(ctx, I...))

groupsize(ctx::Context) = size(ctx.items)
ndrange(ctx::Context) = ctx.ndrange

# KA leaves `@localmem` and `@private` storage uninitialized (an `MArray(undef)`); the stand-in
# fills it with a recognizable garbage pattern, so a kernel that reads it before writing fails
# visibly instead of seeing zeros by luck.
garbage(::Type{T}) where {T<:Union{Float16,Float32,Float64}} = T(NaN)
# Another float type (a bfloat16 without arithmetic, such as TackRuntime's own): all bits set, a NaN
garbage(::Type{T}) where {T<:AbstractFloat} = reinterpret(T, 0xffffffffffffffff % UInt16)
garbage(::Type{Bool}) = true
garbage(::Type{T}) where {T<:Integer} = 0x5a5a5a5a5a5a5a5a % T
garbage(::Type{T}) where {T} = error("no garbage pattern for $T")
uninitialized(::Type{T}, dims) where {T} = fill!(Array{T}(undef, dims), garbage(T))

"""`@localmem T dims`: one array per work-group (KA: an `MArray` allocated per group)."""
@inline SharedMemory(::Type{T}, ::Val{Dims}, ::Val) where {T,Dims} = uninitialized(T, Dims)

"""`@private T dims` storage: `dims` per work-item, indexed by the local linear index."""
struct ScratchArray{N,D}
    data::D
    ScratchArray{N}(data::D) where {N,D} = new{N,D}(data)
end
@inline Scratchpad(ctx::Context, ::Type{T}, ::Val{Dims}) where {T,Dims} =
    ScratchArray{length(Dims)}(uninitialized(T, (Dims..., prod(groupsize(ctx)))))
@inline Base.getindex(A::ScratchArray{N}, idx) where {N} = view(A.data, ntuple(_ -> :, N)..., idx)

function __synchronize()
    error("@synchronize used outside kernel or not captured")
end

# `@print` as KA 0.10 runs it on every backend (POCL included): one printf call. Literals join
# the format string as they are (a `%` in them is a conversion unless written `%%`); each value
# takes the specifier of its type, Float32 and Bool converted first (Int8 is `Cchar`, printed as
# a character); a type without a specifier (UInt8, Float16: KA 0.10 drops them with an error
# log) is an error here, so a kernel that would lose a value fails visibly. `_print` in
# https://github.com/JuliaGPU/OpenCL.jl/blob/master/lib/intrinsics/src/printf.jl (SPIRVIntrinsics,
# which POCLBackend's `KI._print` calls: KA src/pocl/backend.jl). Julia's Printf stands in for C's
# printf, so the text goes to Julia's stdout as `print` did.
const PRINT_SPECIFIERS = Dict{Type,String}(Int16 => "%hd", Int32 => "%d", Int64 => "%ld",
    UInt16 => "%hu", UInt32 => "%u", UInt64 => "%lu", Float64 => "%f", Cchar => "%c")
const PRINT_CONVERSIONS = Dict{Type,Type}(Float32 => Float64, Bool => Int32)

@generated function __print(items...)
    fmt, args = "", Any[]
    for (i, T) in enumerate(items)
        if T <: Val
            fmt *= string(T.parameters[1])
            continue
        end
        part = :(items[$i])
        if haskey(PRINT_CONVERSIONS, T)
            part, T = :($(PRINT_CONVERSIONS[T])($part)), PRINT_CONVERSIONS[T]
        end
        haskey(PRINT_SPECIFIERS, T) || return :(error("@print: printf has no specifier for ",
                                                      $T, " (KernelAbstractions 0.10 drops it)"))
        fmt *= PRINT_SPECIFIERS[T]
        push!(args, part)
    end
    return :(Printf.@printf($fmt, $(args...)))
end
