### A Pluto.jl notebook ###
# v0.19.46

using Markdown
using InteractiveUtils

# ╔═╡ 7ac40000-0000-0000-0000-000000000001
md"""
# Tack kernels in Julia

Tack renders every kernel it compiles as KernelAbstractions.jl source
(`tack.inspect(kernel, *args, engine="julia")`), and the repository keeps a set of them,
regenerated and checked by its tests, in `julia/kernels/`. This notebook includes three of them
(`saxpy`, `stencil5`, `nbody`), runs them on KernelAbstractions' CPU backend, on CUDA when
CUDA.jl is installed and functional, and plots a result.

Launch convention of a generated kernel: `TackRuntime.launch!(kernel, backend, n, written, args...)`
with every array flattened to a 1-D vector in C order (see the header of each file, and
`docs/julia.md`).

*This notebook has not been executed by the project's CI* (there is no Julia there): the test
suite checks that it parses and that the kernels it includes exist.
"""

# ╔═╡ 7ac40000-0000-0000-0000-000000000002
begin
	# The repository's Julia project (KernelAbstractions, Atomix): Pluto's own package manager is
	# off in a notebook that activates a project.
	import Pkg
	const REPO = normpath(joinpath(@__DIR__, "..", ".."))
	Pkg.activate(REPO)
	Pkg.instantiate()
	using KernelAbstractions
	const KERNEL_DIR = joinpath(REPO, "julia", "kernels")
end

# ╔═╡ 7ac40000-0000-0000-0000-000000000003
begin
	include(joinpath(REPO, "julia", "src", "TackRuntime.jl"))
	using .TackRuntime
	include(joinpath(KERNEL_DIR, "saxpy.jl"))
	include(joinpath(KERNEL_DIR, "stencil5.jl"))
	include(joinpath(KERNEL_DIR, "nbody.jl"))
end

# ╔═╡ 7ac40000-0000-0000-0000-000000000004
"""Run a generated kernel on `backend` over `n` work-items; arrays are written back."""
run!(kernel, backend, n, args...) =
	(TackRuntime.launch!(kernel, backend, n, map(a -> a isa AbstractArray, args), args...); args)

# ╔═╡ 7ac40000-0000-0000-0000-000000000005
backends = let
	found = Any[CPU()]
	if Base.find_package("CUDA") !== nothing
		@eval import CUDA
		Base.invokelatest(CUDA.functional) && push!(found, CUDA.CUDABackend())
	end
	found
end

# ╔═╡ 7ac40000-0000-0000-0000-000000000006
md"""
## saxpy on every backend
"""

# ╔═╡ 7ac40000-0000-0000-0000-000000000007
saxpy_ok = map(backends) do b
	x, y = Float32.(1:1000), fill(0.5f0, 1000)
	out = zeros(Float32, 1000)
	run!(tack_saxpy, b, 1000, 2.0f0, x, y, out)
	string(nameof(typeof(b))) => out ≈ 2 .* x .+ y
end

# ╔═╡ 7ac40000-0000-0000-0000-000000000008
md"""
## A 5-point stencil

`stencil5` was specialized for 10 columns (the extent is compiled in); rows are free. Julia
arrays are column-major, so a C-order `(rows, 10)` array is a `10 × rows` Julia matrix.
"""

# ╔═╡ 7ac40000-0000-0000-0000-000000000009
laplacian = let rows = 64
	U = Float32[sin(0.2f0 * i) * cos(0.5f0 * j) for j in 1:10, i in 1:rows]
	O = zeros(Float32, 10, rows)
	run!(tack_stencil5, CPU(), rows - 2, vec(U), vec(O), Int64(1))
	O
end

# ╔═╡ 7ac40000-0000-0000-0000-00000000000a
md"""
## N-body accelerations, plotted

The plot needs Plots.jl in your default environment (`import Pkg; Pkg.add("Plots")`): it is not
a dependency of the repository's project.
"""

# ╔═╡ 7ac40000-0000-0000-0000-00000000000b
acc, P = let n = 512
	P = vcat(randn(Float32, 3, n), ones(Float32, 1, n))   # x, y, z, mass per body
	A = zeros(Float32, 3, n)
	run!(tack_nbody, CPU(), n, vec(P), vec(A), Int32(n), 0.01f0)
	A, P
end

# ╔═╡ 7ac40000-0000-0000-0000-00000000000c
begin
	import Plots
	Plots.scatter(P[1, :], P[2, :]; zcolor = log.(vec(sqrt.(sum(abs2, acc; dims = 1)))),
		markersize = 2, aspect_ratio = :equal, label = false, title = "log |a|")
end

# ╔═╡ Cell order:
# ╟─7ac40000-0000-0000-0000-000000000001
# ╠═7ac40000-0000-0000-0000-000000000002
# ╠═7ac40000-0000-0000-0000-000000000003
# ╠═7ac40000-0000-0000-0000-000000000004
# ╠═7ac40000-0000-0000-0000-000000000005
# ╟─7ac40000-0000-0000-0000-000000000006
# ╠═7ac40000-0000-0000-0000-000000000007
# ╟─7ac40000-0000-0000-0000-000000000008
# ╠═7ac40000-0000-0000-0000-000000000009
# ╟─7ac40000-0000-0000-0000-00000000000a
# ╠═7ac40000-0000-0000-0000-00000000000b
# ╠═7ac40000-0000-0000-0000-00000000000c
