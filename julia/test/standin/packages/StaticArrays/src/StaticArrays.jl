"""
    StaticArrays (Tack's stand-in, not StaticArrays.jl)

The one StaticArrays.jl constructor Tack's runtime calls, `MVector{N,T}(undef)` (per-work-item
scratch, `TackRuntime.tk_private`), for Tack's Julia test tier on Julia 1.5, where the
environment of the stand-ins has no registry to install the real package from. Written from
StaticArrays' documentation of `MVector`/`MArray`
(<https://github.com/JuliaArrays/StaticArrays.jl/blob/master/src/MArray.jl>): a mutable,
fixed-length vector whose `undef` constructor leaves the elements uninitialized. The stand-in
fills them with a recognizable garbage pattern instead (as the KernelAbstractions stand-in does
for `@localmem` and `@private`), so a kernel that reads scratch before writing it fails visibly.
"""
module StaticArrays

export MVector

"""True: this is Tack's stand-in, not StaticArrays.jl."""
const STANDIN = true

garbage(::Type{T}) where {T<:Union{Float16,Float32,Float64}} = T(NaN)
# Another float type (a bfloat16 without arithmetic, such as TackRuntime's own): all bits set, a NaN
garbage(::Type{T}) where {T<:AbstractFloat} = reinterpret(T, 0xffffffffffffffff % UInt16)
garbage(::Type{Bool}) = true
garbage(::Type{T}) where {T<:Integer} = 0x5a5a5a5a5a5a5a5a % T
garbage(::Type{T}) where {T} = error("no garbage pattern for $T")

"""A mutable vector of length `N` (the length is part of the type, as in StaticArrays)."""
struct MVector{N,T} <: AbstractVector{T}
    data::Vector{T}
    function MVector{N,T}(::UndefInitializer) where {N,T}
        N isa Int && N >= 0 || throw(ArgumentError("MVector length must be an Int >= 0, got $N"))
        return new{N,T}(fill!(Vector{T}(undef, N), garbage(T)))
    end
end

Base.size(::MVector{N}) where {N} = (N,)
Base.IndexStyle(::Type{<:MVector}) = IndexLinear()
Base.@propagate_inbounds Base.getindex(v::MVector, i::Int) = v.data[i]
Base.@propagate_inbounds Base.setindex!(v::MVector, x, i::Int) = (v.data[i] = x; v)

end
