"""The KernelAbstractions.jl renderer (ka) and the IR rewrites it runs first (rewrites)."""
