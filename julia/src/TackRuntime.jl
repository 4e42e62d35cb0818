"""
    TackRuntime

The small runtime of Tack's generated KernelAbstractions.jl kernels:

* device helpers `tk_*` that kernels call: Base functions that throw a `DomainError` for some
  inputs (`sqrt`, `log`, `sin`, `^`, ...) where Tack's contract — like C's libm and every other
  Tack backend — gives NaN; a non-throwing wrapping integer power; and Tack's atomics, which
  return the element's old value (Atomix underneath). They are plain `@inline` functions, so every
  KA backend compiles them like kernel code.
* `launch!`, the host side of a launch from Python (juliacall): zero-copy views of NumPy buffers
  on the CPU, upload/download for GPU backends, the static workgroup size a kernel declares with
  `tk_workgroupsize`; `launch_resident!` and the `tk_alloc` family keep `tack.Array`s on a GPU
  backend between launches.

Load it with `include("julia/src/TackRuntime.jl"); using .TackRuntime`.
See docs/design/003-julia-rendering.md for why each helper exists.
"""
module TackRuntime

import KernelAbstractions
import KernelAbstractions: @kernel, @index
const KA = KernelAbstractions  # not `import ... as KA`, so that Julia 1.5 loads this file too
import Atomix
import BFloat16s
import StaticArrays

export tk_sqrt, tk_log, tk_log2, tk_log10, tk_sin, tk_cos, tk_tan, tk_asin, tk_acos,
    tk_pow, tk_ipow, tk_private, tk_atomic_add!, tk_atomic_min!, tk_atomic_max!, tk_minnum,
    tk_maxnum, tk_fptoi, TkBFloat16, tk_bf16, tk_f32, tk_shfl_down

# Tack's bf16 element type: BFloat16s.jl's BFloat16 (a dependency of Tack's Julia environments),
# which is Core.BFloat16 from Julia 1.11 on x86-64 (and on aarch64 with LLVM 19), so that a
# Julia caller's bf16 arrays are the kernels' own. docs/julia.md, "Half precision".
const TkBFloat16 = BFloat16s.BFloat16

# f32 → bf16 rounded to nearest even on the bits, a NaN kept quiet with its sign, and bf16 → f32
# exactly: what every Tack engine computes (render/llvm/half.py). Not `BFloat16(x)`, which from
# Julia 1.11 is LLVM's fptrunc: AVX-512 BF16's vcvtneps2bf16, which flushes subnormals to zero.
@inline function tk_bf16(x::Float32)
    u = reinterpret(UInt32, x)
    high = u >> 16
    rounded = (u + (0x00007fff + (high & 0x00000001))) >> 16
    return reinterpret(TkBFloat16, ifelse(isnan(x), high | 0x00000040, rounded) % UInt16)
end
@inline tk_f32(x::TkBFloat16) = reinterpret(Float32, UInt32(reinterpret(UInt16, x)) << 16)

# Tack's float min/max (C fmin/fmax, LLVM minnum/maxnum): a NaN loses to a number, and of +0.0
# and -0.0 max gives +0.0 and min -0.0 in either order (docs/language.md), as the native
# engines' `zero_tie` does: where a == b, the AND (max) or OR (min) of their bits, which is
# either operand unless they are zeros of two signs. Base's min/max return NaN when either
# argument is NaN (base/math.jl), so they are not used. (Written on the bits: Julia 1.5.3's
# LLVM turned `ifelse(iszero(a) & iszero(b), a + b, ...)` with a constant -0.0 into -0.0.)
@inline tk_uint(::Type{T}) where {T} = sizeof(T) == 2 ? UInt16 : sizeof(T) == 4 ? UInt32 : UInt64
@inline tk_minnum(a::T, b::T) where {T<:AbstractFloat} =
    ifelse(a == b, reinterpret(T, reinterpret(tk_uint(T), a) | reinterpret(tk_uint(T), b)),
           ifelse((a < b) | isnan(b), a, b))
@inline tk_maxnum(a::T, b::T) where {T<:AbstractFloat} =
    ifelse(a == b, reinterpret(T, reinterpret(tk_uint(T), a) & reinterpret(tk_uint(T), b)),
           ifelse((a > b) | isnan(b), a, b))

# Tack's float → integer conversion: truncation toward zero, saturated at the type's range, NaN
# to 0 (LLVM's fptosi.sat/fptoui.sat, as the native engines emit it; docs/language.md,
# "Conversions"). `unsafe_trunc` alone gives an arbitrary value out of range, `trunc` throws.
# `F(typemax(T))` rounds up to a power of two where the float cannot hold typemax (Int32 in
# Float32), so `x >= hi` is exactly "the truncation does not fit"; typemin is exact.
@inline function tk_fptoi(::Type{T}, x::F) where {T<:Integer, F<:AbstractFloat}
    hi, lo = F(typemax(T)), F(typemin(T))
    ifelse(isnan(x), zero(T), ifelse(x >= hi, typemax(T),
                                     ifelse(x <= lo, typemin(T), unsafe_trunc(T, x))))
end

# A NaN of the argument's type with no Float64 constant anywhere (Metal has no Float64).
@inline tk_nan(::Type{Float32}) = NaN32
@inline tk_nan(::Type{Float64}) = NaN64

# Base: `sqrt`/`log*` of x < 0 call `throw_complex_domainerror` (base/math.jl); `sin`/`cos`/`tan`
# of ±Inf and `asin`/`acos` of |x| > 1 throw too (base/special/trig.jl). Each guard is written so
# that NaN also takes the NaN branch: Base is then never called outside its domain.
@inline tk_sqrt(x::T) where {T<:AbstractFloat} = x >= zero(T) ? sqrt(x) : tk_nan(T)
@inline tk_log(x::T) where {T<:AbstractFloat} = x >= zero(T) ? log(x) : tk_nan(T)
@inline tk_log2(x::T) where {T<:AbstractFloat} = x >= zero(T) ? log2(x) : tk_nan(T)
@inline tk_log10(x::T) where {T<:AbstractFloat} = x >= zero(T) ? log10(x) : tk_nan(T)
@inline tk_sin(x::T) where {T<:AbstractFloat} = isfinite(x) ? sin(x) : tk_nan(T)
@inline tk_cos(x::T) where {T<:AbstractFloat} = isfinite(x) ? cos(x) : tk_nan(T)
@inline tk_tan(x::T) where {T<:AbstractFloat} = isfinite(x) ? tan(x) : tk_nan(T)
@inline tk_asin(x::T) where {T<:AbstractFloat} = abs(x) <= one(T) ? asin(x) : tk_nan(T)
@inline tk_acos(x::T) where {T<:AbstractFloat} = abs(x) <= one(T) ? acos(x) : tk_nan(T)

"""
    tk_pow(x, y)

C's `pow` for floats of one type. Base's `^` throws for `x < 0` and a finite non-integer `y`
(`throw_exp_domainerror`, base/math.jl) and Metal's `air.pow` is only specified for `x >= 0`, so a
negative base is handled here with C99's rules (F.10.4.4): `±|x|^y` for an integer `y` (sign from
its parity); `|x|^y` when `y` or `x` is infinite (the result is then 0, 1 or Inf); NaN otherwise.
"""
@inline function tk_pow(x::T, y::T) where {T<:AbstractFloat}
    x < zero(T) || return x^y
    isinteger(y) || return isinf(y) | isinf(x) ? abs(x)^y : tk_nan(T)
    r = abs(x)^y
    return rem(y, T(2)) == zero(T) ? r : -r
end

"""
    tk_ipow(x, p)

`x^p` for integers, `p >= 0` (the IR guarantees it), wrapping at `x`'s width, by squaring. Base's
`power_by_squaring` has the same result type but throws for `p < 0` (base/intfuncs.jl); this
never throws, so no exception path reaches a GPU.
"""
@inline function tk_ipow(x::T, p::Integer) where {T<:Integer}
    r = one(T)
    while p > zero(p)
        if isodd(p)
            r *= x
        end
        x *= x
        p >>>= 1
    end
    return r
end

"""
    tk_private(T, Val(n))

Per-work-item scratch (`tack.local_array`) of a kernel without barriers: uninitialized like
`@private`, but a StaticArrays `MVector` — what KA's GPU backends make of `@private` and what KA's
docstring of `@private` suggests for storage that does not live across a `@synchronize`
(src/KernelAbstractions.jl) — instead of KA 0.9's CPU `@private`, a per-group `MArray` of
(n, groupsize) read through views (src/cpu.jl). StaticArrays is imported here, not reached as
`KA.StaticArrays`: that binding is KA's implementation detail, not its API.
"""
@inline tk_private(::Type{T}, ::Val{N}) where {T,N} = StaticArrays.MVector{N,T}(undef)

# -- atomics -----------------------------------------------------------------------------------

# Tack's atomic_add/min/max (ir/ops.py): the element's value just before the update, relaxed
# ordering (`:monotonic`, LLVM's name for C's relaxed). `A` is a kernel's array argument or a
# `@localmem` array (Atomix takes its `pointer`: an `MArray` on KA's CPU backend). `Atomix.@atomic A[i] op v` lowers to
# `Atomix.modify!`, which returns `old => new` (Atomix src/sugar.jl; the CUDA extension returns
# `old => op(old, x)` too), so `first` is the old value. Integer `min`/`max` are atomic
# read-modify-write operations on every backend; UnsafeAtomics picks `umin`/`umax` for unsigned
# types (src/core.jl).

"""
    tk_atomic_add!(A, i, v)

`A[i] += v` atomically (integers wrap); returns the old `A[i]`.
"""
@inline tk_atomic_add!(A, i, v) = first(Atomix.@atomic :monotonic A[i] + v)

"""
    tk_atomic_min!(A, i, v)

`A[i] = min(A[i], v)` atomically; returns the old `A[i]`. Floats follow C's `fmin` (a number wins
over a NaN, like the IR's float MIN and LLVM's `atomicrmw fmin`) through a compare-and-swap loop:
no backend has a float atomic min (UnsafeAtomics: float `+`/`-` only; CUDA.jl#2129).
"""
@inline tk_atomic_min!(A, i, v::Integer) = first(Atomix.@atomic :monotonic min(A[i], v))
@inline tk_atomic_min!(A, i, v::AbstractFloat) = tk_cas_loop!(tk_fmin, A, i, v)

"""
    tk_atomic_max!(A, i, v)

`A[i] = max(A[i], v)` atomically; returns the old `A[i]` (floats as in `tk_atomic_min!`).
"""
@inline tk_atomic_max!(A, i, v::Integer) = first(Atomix.@atomic :monotonic max(A[i], v))
@inline tk_atomic_max!(A, i, v::AbstractFloat) = tk_cas_loop!(tk_fmax, A, i, v)

# C's fmin/fmax: the number when exactly one argument is NaN (Base's min/max propagate NaN).
@inline tk_fmin(a::T, b::T) where {T<:AbstractFloat} = (a < b) | isnan(b) ? a : b
@inline tk_fmax(a::T, b::T) where {T<:AbstractFloat} = (a > b) | isnan(b) ? a : b

# The unsigned integer type of a float's bit pattern.
tk_bits(::Type{Float32}) = UInt32
tk_bits(::Type{Float64}) = UInt64

# Replace A[i] by f(A[i], v) with compare-and-swap until no other lane got in between (no backend
# has a float atomic min/max: docs/language.md "Atomics", docs/design/003-julia-rendering.md).
# The swap compares bit patterns, as `UInt32`/`UInt64` through `reinterpret` (a device array
# again on CUDA and Metal: `Base.reinterpret(::Type, ::CuDeviceArray)` in CUDA.jl's
# src/device/array.jl, `::MtlDeviceArray` in Metal.jl's): an element holding a NaN is replaced
# like any other, whatever comparison a backend's `replace!` reports success with. Metal's swap
# is the weak one, which may fail without saying so (https://github.com/JuliaConcurrent/Atomix.jl/
# blob/main/ext/AtomixMetalExt.jl reports `success = old === expected`), so a reported success is
# checked: min and max only move an element one way, so after a swap that landed the element
# already absorbs `v`; one that did not is retried. The first guess is a plain load (Atomix's
# atomic load is missing on CUDA and Metal); a stale guess costs one more round.
@inline function tk_cas_loop!(f::F, A, i, v::T) where {F,T}
    U = tk_bits(T)
    B = reinterpret(U, A)
    old = reinterpret(U, A[i])
    while true
        x = reinterpret(T, old)
        new = reinterpret(U, f(x, v))
        new == old && return x
        r = Atomix.@atomicreplace :monotonic B[i] old => new
        if r.success
            now = A[i]
            reinterpret(U, f(now, v)) == reinterpret(U, now) && return x
            old = reinterpret(U, now)  # the swap did not land: retry from what is there
        else
            old = r.old
        end
    end
end

# -- host side ---------------------------------------------------------------------------------

"""
    host_vector(x)

A `Vector` over the memory of a contiguous 1-D host array, without copying: a NumPy buffer arrives
from juliacall as a `PyArray`, whose `pointer` is the buffer's (PythonCall src/Wrap/PyArray.jl).
Numbers pass through. The caller keeps `x` alive while the result is used.
"""
host_vector(x::Number) = x
host_vector(x::Vector) = x
function host_vector(x::AbstractVector)
    stride(x, 1) == 1 || throw(ArgumentError("Tack passes contiguous arrays; got stride $(stride(x, 1))"))
    return unsafe_wrap(Array, pointer(x), length(x))
end

"""
    tk_workgroupsize(kernel)

The static workgroup size `kernel` (a generated kernel's constructor) must be launched with, or
`nothing` to let KernelAbstractions choose. A generated kernel that uses `@localmem`, `@private`,
`@synchronize` or lane ids declares 256 (Tack's workgroup, ir/ops.py) right after itself:
`TackRuntime.tk_workgroupsize(::typeof(tk_name_hash)) = 256`.
"""
tk_workgroupsize(kernel) = nothing

"""
    instantiate(kernel, backend)

`kernel(backend)`, or `kernel(backend, wg)` when the kernel declares a static workgroup size.
"""
function instantiate(kernel, backend)
    wg = tk_workgroupsize(kernel)
    return wg === nothing ? kernel(backend) : kernel(backend, wg)
end

"""
    launch!(kernel, backend, n, written, args...)

Run `kernel(backend)(args..., n; ndrange = n)` (`kernel(backend, 256)` for a kernel that declares
that workgroup size) and wait for it. `args` are the kernel's arguments in order (1-D host arrays
and scalars of the kernel's exact types); `written[i]` says whether argument `i` may be written: a
`Bool`, or from Python a `UInt8` whose bit 0 says so and whose bit 1 marks a bf16 array that
arrives as its `UInt16` bits (NumPy's bfloat16 is ml_dtypes', which juliacall does not convert),
taken as `TkBFloat16`s without copying.
On the CPU the kernel runs in place on the host memory. On a GPU the host memory is uploaded once
per run of overlapping arrays (`device_copies`), so arguments that alias, even partially, stay
aliased on the device; the runs holding a written argument are copied back after
`KA.synchronize`.
"""
function launch!(kernel, backend, n::Integer, flags, args...)
    n > 0 || return nothing
    written = map(f -> (f & 0x01) != 0, flags)
    host = ntuple(k -> (flags[k] & 0x02) != 0 ? host_vector(reinterpret(TkBFloat16,
                                                                       host_vector(args[k]))) :
                       host_vector(args[k]), length(args))
    GC.@preserve args begin
        if backend isa KA.CPU
            instantiate(kernel, backend)(host..., Int64(n); ndrange = n)
            KA.synchronize(backend)
        else
            dev, runs = device_copies(backend, host)
            instantiate(kernel, backend)(dev..., Int64(n); ndrange = n)
            KA.synchronize(backend)
            copy_back!(runs, written)
        end
    end
    return nothing
end

"""
    device_copies(backend, host) -> (dev, runs)

The device arguments of the host arguments `host`: numbers pass through; host arrays whose memory
overlaps form one *run*, uploaded once into one device buffer covering all of them, and each
array becomes that buffer or a view of it. Overlapping arrays must share the element type and
alignment (views of one NumPy array do). `runs[j]` is `(host span, device buffer, members)`.
"""
function device_copies(backend, host)
    order = sortperm([h isa Array ? UInt(pointer(h)) : typemax(UInt) for h in host])
    spans, member = Tuple{UInt,UInt,DataType}[], zeros(Int, length(host))
    for k in order
        h = host[k]
        h isa Array || continue
        lo = UInt(pointer(h)); hi = lo + UInt(sizeof(h))
        if !isempty(spans) && lo < spans[end][2]  # overlaps the run being built
            glo, ghi, T = spans[end]
            eltype(h) === T && (lo - glo) % sizeof(T) == 0 || throw(ArgumentError(
                "Tack passes overlapping arrays of one element type and alignment; got " *
                "$(eltype(h)) over $T"))
            spans[end] = (glo, max(ghi, hi), T)
        else
            push!(spans, (lo, hi, eltype(h)))
        end
        member[k] = length(spans)
    end
    runs = map(enumerate(spans)) do (j, (lo, hi, T))
        h = unsafe_wrap(Array, Ptr{T}(lo), Int((hi - lo) ÷ sizeof(T)))
        d = KA.allocate(backend, T, length(h))
        copyto!(d, h)
        (h, d, findall(==(j), member))
    end
    dev = map(enumerate(host)) do (k, h)
        h isa Array || return h
        span, d, _ = runs[member[k]]
        off = Int((UInt(pointer(h)) - UInt(pointer(span))) ÷ sizeof(eltype(h)))
        return off == 0 && length(h) == length(d) ? d : view(d, off+1:off+length(h))
    end
    return dev, runs
end

"""`copyto!` each run of `device_copies` that holds a written argument back to its host span."""
function copy_back!(runs, written)
    for (h, d, members) in runs
        any(k -> written[k], members) && copyto!(h, d)
    end
    return nothing
end

# -- device storage: the memory of `tack.Array`s on a GPU backend --------------------------------
# An array is one byte vector from `KA.allocate(backend, UInt8, (nbytes,))` (KA's storage call,
# src/KernelAbstractions.jl), kept on the device between launches; a launch passes
# `reinterpret(T, bytes)`, which on CUDA.jl, Metal.jl, AMDGPU.jl and oneAPI.jl is again the
# backend's own array type, sharing the memory. Host data crosses only in `tk_upload!` and
# `tk_download!`. The layout is the NumPy one: C (row-major) order, flat. See docs/julia.md,
# "tack.Arrays on Julia GPU devices".

"""`nbytes` bytes of device memory on `backend` (contents unspecified)."""
tk_alloc(backend, nbytes::Integer) = KA.allocate(backend, UInt8, (Int(nbytes),))

"""`bytes` seen as a vector of `T`, without a copy: a kernel's array argument."""
tk_typed(bytes, ::Type{T}) where {T} = reinterpret(T, bytes)

"""Copy the host bytes `host` (a NumPy `uint8` array) into `bytes`, from byte `offset`."""
function tk_upload!(bytes, offset::Integer, host)
    h = host_vector(host)
    GC.@preserve host copyto!(bytes, Int(offset) + 1, h, 1, length(h))
    return nothing
end

"""Wait for `backend`'s queued work, then copy `bytes` from byte `offset` into `host`."""
function tk_download!(host, bytes, offset::Integer, backend)
    KA.synchronize(backend)
    h = host_vector(host)
    GC.@preserve host copyto!(h, 1, bytes, Int(offset) + 1, length(h))
    return nothing
end

"""Zero every byte of `bytes`."""
tk_fill0!(bytes) = (fill!(bytes, 0x00); nothing)

"""Copy the first `nbytes` bytes of `src` to `dst` (device to device)."""
tk_copy!(dst, src, nbytes::Integer) = (copyto!(dst, 1, src, 1, Int(nbytes)); nothing)

"""
    launch_resident!(kernel, backend, n, args...)

Run `kernel` on arguments that already live on `backend` (device arrays from `tk_typed`, and
scalars), without waiting: no copy is made, and `KA.synchronize(backend)` (the engine's `sync`,
or the next `tk_download!`) is where it finishes and where its errors surface.
"""
function launch_resident!(kernel, backend, n::Integer, args...)
    n > 0 && instantiate(kernel, backend)(args..., Int64(n); ndrange = n)
    return nothing
end

"""Wait for every kernel and copy queued on `backend`."""
tk_synchronize(backend) = (KA.synchronize(backend); nothing)

# -- half precision: probed per backend ------------------------------------------------------------
# KA has no query for Float16 (or bfloat16) support, as it has `supports_float64`, and backends
# differ: SPIR-V needs the Float16 capability or an extension for arithmetic on `half` and for a
# `bfloat` type at all (oneAPI devices, PoCL under KA 0.10), and which GPUs lower LLVM's
# `bfloat` is a matter of their compiler's version. So the engine runs this kernel once per backend and half type before compiling a kernel that
# uses it, and refuses the kernel when it fails: what Tack's half kernels do (load, widen to
# Float32, compute, round once, store), on values with a subnormal, a NaN and an overflow.

@kernel function tk_half_probe_kernel!(y, x)
    i = @index(Global, Linear)
    y[i] = tk_half_probe_op(x[i])
end
@inline tk_half_probe_op(h::Float16) = Float16(Float32(h) * 3.0f0 + 0.25f0)
@inline tk_half_probe_op(b::TkBFloat16) = tk_bf16(tk_f32(b) * 3.0f0 + 0.25f0)

# Probe inputs: 1.5, -2.25, the smallest subnormal, the largest finite value (3x overflows), NaN.
tk_half_probe_bits(::Type{Float16}) = UInt16[0x3e00, 0xc080, 0x0001, 0x7bff, 0x7e00]
tk_half_probe_bits(::Type{TkBFloat16}) = UInt16[0x3fc0, 0xc010, 0x0001, 0x7f7f, 0x7fc0]

tk_half_isnan(::Type{Float16}, u::UInt16) = (u & 0x7fff) > 0x7c00
tk_half_isnan(::Type{TkBFloat16}, u::UInt16) = (u & 0x7fff) > 0x7f80

"""
    tk_half_probe(backend, T)

`""` when a kernel in `T` (`Float16` or `TkBFloat16`) compiles and runs on `backend` and gives
the host's bits; else why not (the exception, or the bits it gave).
"""
function tk_half_probe(backend, ::Type{T}) where {T}
    host = collect(reinterpret(T, tk_half_probe_bits(T)))  # a Vector: GPU copyto! takes it
    want = reinterpret(UInt16, map(tk_half_probe_op, host))
    try
        x = KA.allocate(backend, T, length(host))
        y = KA.allocate(backend, T, length(host))
        copyto!(x, host)
        tk_half_probe_kernel!(backend)(y, x; ndrange = length(host))
        KA.synchronize(backend)
        got = reinterpret(UInt16, Array(y))
        all(map((g, w) -> g == w || (tk_half_isnan(T, g) && tk_half_isnan(T, w)), got, want)) &&
            return ""  # (a NaN's payload is not compared: GPUs give their canonical NaN)
        return "it computed the bits $(repr(got)) where $(repr(want)) were expected"
    catch err
        err isa InterruptException && rethrow()
        return first(sprint(showerror, err), 400)
    end
end

# ---- KernelAbstractions' sub-groups (docs/design/003-julia-rendering.md, "Warps and KI
# sub-groups"). The KI form of a warp kernel (render/julia/subgroups.py) calls `tk_shfl_down`; the
# engine renders that form only where `tk_subgroups(backend)` describes the backend's sub-groups.
# KA's sub-group interface is `KernelAbstractions.KernelIntrinsics` in KA's repository
# (https://github.com/JuliaGPU/KernelAbstractions.jl/pull/668, `src/intrinsics.jl`); no released
# KA has it, and KA 0.9 has no `KernelIntrinsics` at all, hence the `isdefined` checks.
const tk_KI = isdefined(KA, :KernelIntrinsics) ? getfield(KA, :KernelIntrinsics) : nothing

# KA's `shfl_down(val, offset)`: the value of the lane `offset` higher in the sub-group (the
# renderer selects the lane's own value where that lane is outside its 32-lane warp).
@inline tk_shfl_down(x, s::Int32) = tk_KI.shfl_down(x, s)

# The loaded KA's version, as the engine reads it before choosing a warp kernel's text.
tk_ka_version() = string(Base.pkgversion(KA))

"""
    tk_subgroups(backend)

`"size T1 T2 ..."`: `KI.sub_group_size(backend)` and the element types of
`KI.shfl_down_types(backend)`, where the loaded KernelAbstractions has those and `shfl_down`;
`""` where it lacks them or the backend defines no sub-group size.
"""
function tk_subgroups(backend)
    KI = tk_KI
    KI === nothing && return ""
    all(f -> isdefined(KI, f), (:shfl_down, :sub_group_size, :shfl_down_types)) || return ""
    size = try
        Int(KI.sub_group_size(backend))
    catch err
        err isa MethodError || rethrow()
        return ""  # a backend without sub-groups
    end
    return join([string(size); [string(T) for T in KI.shfl_down_types(backend)]], " ")
end

end # module
