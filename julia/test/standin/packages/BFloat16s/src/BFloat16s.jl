"""
    BFloat16s (Tack's stand-in, not BFloat16s.jl)

The one name of BFloat16s.jl that Tack's runtime uses, the element type `BFloat16`
(`TackRuntime.TkBFloat16`), for Tack's Julia test tier on Julia 1.5, where the real package
cannot be installed. As in BFloat16s.jl where Julia has no `Core.BFloat16`
(<https://github.com/JuliaMath/BFloat16s.jl/blob/main/src/bfloat16.jl>), a 16-bit primitive
`AbstractFloat`; unlike it, a storage type only: no arithmetic, conversions or `zero`, since
Tack's kernels only load, store and `reinterpret` bf16 values (TackRuntime's `tk_bf16`/`tk_f32`
do the rounding on the bits), so a kernel that needed more fails here.
"""
module BFloat16s

export BFloat16

"""True: this is Tack's stand-in, not BFloat16s.jl."""
const STANDIN = true

primitive type BFloat16 <: AbstractFloat 16 end

end # module
