# The host side every op file shares (defined once per module, whichever file comes first).
if !isdefined(@__MODULE__, :tk_ops_launch!)
    """
        tk_ops_launch!(kernel, backend, n, args...)

    Run a generated kernel on `n` work-items of `backend` and wait for it: arrays are passed as
    `vec(a)` (the kernels index flat column-major memory, which is NumPy's C order of the
    reversed shape), and a kernel that declares Tack's workgroup (TK_OPS_LANES lanes) gets it
    (`TackRuntime.instantiate`).
    """
    function tk_ops_launch!(kernel, backend, n::Integer, args...)
        n > 0 || return nothing
        flat = map(a -> a isa AbstractArray ? vec(a) : a, args)
        TackRuntime.instantiate(kernel, backend)(flat..., Int64(n); ndrange = Int(n))
        KernelAbstractions.synchronize(backend)
        return nothing
    end

    """Whether `backend` takes the workgroup kernels (shared memory, block reductions) by
    default: GPUs do; KA's CPU backend takes the portable ones, one row per work-item."""
    tk_ops_workgroups(backend) = !(backend isa KernelAbstractions.CPU)

    """The one backend of `arrays` (`KernelAbstractions.get_backend`), or an `ArgumentError`."""
    function tk_ops_backend(op::Symbol, arrays...)
        b = KernelAbstractions.get_backend(first(arrays))
        for a in arrays
            KernelAbstractions.get_backend(a) == b ||
                throw(ArgumentError("tack_$op: the arrays live on different backends"))
        end
        return b
    end

    """The kernel of `table` for `key` = (tier, element type, parameter), or an `ArgumentError`
    naming what is missing (an element type the file has no kernels in, an unrendered head
    dimension) and the element types it has."""
    function tk_ops_kernel(table, op::Symbol, key)
        haskey(table, key) && return table[key]
        have = join(sort!(unique!([string(k[2]) for k in keys(table)])), ", ")
        throw(ArgumentError("tack_$op: no kernel for $(key[2]) with parameter $(key[3]); " *
                            "the kernels are $have"))
    end

    """The type of an op's float scalars (`eps`, `alpha`) for arrays of `T`: `T`, except that
    Float16 kernels take Float32 ones, the precision their statistics are computed in."""
    tk_ops_float(::Type{T}) where {T} = T
    tk_ops_float(::Type{Float16}) = Float32

    """`values` as the kernels' `Int32` sizes; `total` bounds every flat index the op makes
    (the Python wrapper's bound), and larger problems are refused (no Int64 kernels here)."""
    function tk_ops_sizes(op::Symbol, total::Integer, values::Integer...)
        total < typemax(Int32) ||
            throw(ArgumentError("tack_$op: $total elements need 64-bit indices; " *
                                "these kernels index in 32 bits"))
        return map(Int32, values)
    end

    """Check that `arrays` all have the size of the first (a `DimensionMismatch` otherwise)."""
    function tk_ops_same_size(op::Symbol, arrays...)
        for a in arrays
            size(a) == size(first(arrays)) || throw(DimensionMismatch(
                "tack_$op: sizes $(size(first(arrays))) and $(size(a)) differ"))
        end
        return nothing
    end

    """The smallest power of two of elements per lane, at least 8 (the consecutive elements a
    lane takes at a time, tack.ops.softmax.STEP), that holds a row of `n` (TK_OPS_LANES
    lanes)."""
    function tk_ops_per_lane(n::Integer)
        per = 8
        while per * TK_OPS_LANES < n
            per *= 2
        end
        return per
    end

    """
        tk_ops_vector(op, v, T, backend, n, default)

    A weight or bias: `v` checked (length `n`, element type `T`), or a vector of `default` on
    `backend` when `v === nothing`.
    """
    function tk_ops_vector(op::Symbol, v, ::Type{T}, backend, n::Integer, default) where {T}
        if v === nothing
            return fill!(KernelAbstractions.allocate(backend, T, n), T(default))
        end
        eltype(v) === T || throw(ArgumentError("tack_$op: a parameter vector of $(eltype(v)) " *
                                               "for an input of $T"))
        length(v) == n || throw(DimensionMismatch("tack_$op: a parameter vector of length " *
                                                  "$(length(v)) for dimension 1 of size $n"))
        return v
    end
end
