"""The Julia engine (engine.py): kernels run as KernelAbstractions.jl through juliacall, and its
arrays on GPU backends (storage.py).

See docs/design/003-julia-rendering.md and docs/julia.md.
"""
