# Makes `import KernelAbstractions` and `import Atomix` work on a Julia without them (Julia 1.5,
# where neither can be installed): the stand-ins in packages/ join LOAD_PATH as a package
# directory. Where the real packages are found, nothing changes and they are used.
# `include` this before loading either package; afterwards `TACK_STANDIN[]` tells which ran.
const TACK_STANDIN = Ref(false)
if Base.find_package("KernelAbstractions") === nothing || Base.find_package("Atomix") === nothing
    pushfirst!(LOAD_PATH, joinpath(@__DIR__, "packages"))
    TACK_STANDIN[] = true
    @info "KernelAbstractions.jl and Atomix.jl are not installed: using Tack's stand-ins " *
          "(julia/test/standin), not the real packages"
end
