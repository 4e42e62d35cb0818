# Makes `import KernelAbstractions`, `import Atomix` and `import StaticArrays` work on a Julia
# without them (Julia 1.5, where they are not installed): the stand-ins in packages/ join
# LOAD_PATH as a package directory. Where the real packages are found, nothing changes and they are used.
# `include` this before loading either package; afterwards `TACK_STANDIN[]` tells which ran.
const TACK_STANDIN = Ref(false)
if any(p -> Base.find_package(p) === nothing, ("KernelAbstractions", "Atomix", "StaticArrays"))
    pushfirst!(LOAD_PATH, joinpath(@__DIR__, "packages"))
    TACK_STANDIN[] = true
    @info "KernelAbstractions.jl, Atomix.jl or StaticArrays.jl is not installed: using Tack's " *
          "stand-ins (julia/test/standin), not the real packages"
end
