"""
    KernelAbstractions (Tack's stand-in, not KernelAbstractions.jl)

An independent re-implementation of the part of KernelAbstractions.jl 0.9's kernel language and
CPU backend that Tack's generated kernels use, written for Tack's Julia test tier on Julia 1.5
(where the real package, which needs Julia >= 1.6, cannot be installed). It is loaded only when the
real package is absent (`julia/test/standin/load.jl`) and says so (`STANDIN === true`).

Semantics follow KernelAbstractions v0.9.41's CPU backend, read in its sources:
<https://github.com/JuliaGPU/KernelAbstractions.jl/blob/v0.9.41/src/macros.jl> (`@kernel`: the
body is cut at every statement that holds an `@synchronize` and each piece becomes its own loop
over the work-items of a group, so a plain local does not survive a barrier),
<https://github.com/JuliaGPU/KernelAbstractions.jl/blob/v0.9.41/src/cpu.jl> (launch, partition,
index functions, `@localmem` per group, `@private` per work-item) and
<https://github.com/JuliaGPU/KernelAbstractions.jl/blob/v0.9.41/src/KernelAbstractions.jl> (the
macros and the backend API). Work-groups run one after another on the calling task; there is no
GPU backend, no `@Const` aliasing information and no precompiled workload.

Where KernelAbstractions 0.10 behaves differently for the same kernel text, the stand-in follows
0.10, so the tier exercises what 0.10 users run: `@print` is printf (macros.jl), and an exception
inside a kernel reaches the caller as a `KernelException` naming it (backend.jl).
"""
module KernelAbstractions

export @kernel, @Const, @localmem, @private, @uniform, @synchronize
export @index, @groupsize, @ndrange, @print
export Backend, GPU, CPU
export synchronize, get_backend, allocate

import Atomix: @atomic, @atomicswap, @atomicreplace
import Printf

"""True: this is Tack's stand-in, not KernelAbstractions.jl."""
const STANDIN = true

"""The KernelAbstractions.jl release whose CPU backend this follows: what `Base.pkgversion`
gives for it (`julia/test/standin/load.jl` supplies that function where Julia lacks it)."""
const STANDIN_VERSION = v"0.9.41"

include("exprtools.jl")
include("backend.jl")
include("macros.jl")
include("kernel.jl")

module Extras
include("loopinfo.jl")
using .LoopInfo
export @unroll
end

end # module
