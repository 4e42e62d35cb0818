# Makes `import KernelAbstractions`, `import Atomix`, `import StaticArrays` and `import BFloat16s`
# work on a Julia without them (Julia 1.5, where they are not installed): the stand-ins in
# packages/ join LOAD_PATH as a package directory. Where the real packages are found, nothing
# changes and they are used. `include` this before loading any of them; afterwards
# `TACK_STANDIN[]` tells which ran.
const TACK_STANDIN = Ref(false)
if any(p -> Base.find_package(p) === nothing,
       ("KernelAbstractions", "Atomix", "StaticArrays", "BFloat16s"))
    pushfirst!(LOAD_PATH, joinpath(@__DIR__, "packages"))
    TACK_STANDIN[] = true
    @info "KernelAbstractions.jl, Atomix.jl, StaticArrays.jl or BFloat16s.jl is not installed: " *
          "using Tack's stand-ins (julia/test/standin), not the real packages"
end

# `Base.pkgversion` (Julia 1.9), which TackRuntime's `tk_ka_version` calls, on a Julia without
# it (Julia 1.5, where only the stand-ins load): the version a stand-in states
# (`STANDIN_VERSION`), else `nothing`, as Base answers for a package that states none
# (https://github.com/JuliaLang/julia/blob/v1.9.0/base/loading.jl, `pkgversion`).
if !isdefined(Base, :pkgversion)
    Core.eval(Base, :(function pkgversion(m::Module)
        root = moduleroot(m)
        return isdefined(root, :STANDIN_VERSION) ? getfield(root, :STANDIN_VERSION) : nothing
    end))
end
